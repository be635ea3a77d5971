"""What the Space adds to Gradio's page: its stylesheet (:data:`CSS`) and its ``<head>``
(:data:`HEAD`: the viewport for phones and the script that keeps the address in step with the
open tab, view and question set). :func:`medqade.app.ui.launch_kwargs` passes both to
``Blocks.launch``.
"""

from __future__ import annotations

from typing import Final

CSS: Final = """
/* Gradio's semibold Source Sans file is a 5 KB subset without most capitals, so any text at
   weight 600 (headings, card names) showed capitals such as the A of "MedQADE" or the B of
   "27B" from a fallback font; weight 600 is drawn with the complete bold file instead. */
@font-face { font-family: 'Source Sans Pro'; font-weight: 600; font-style: normal;
             src: url('static/fonts/SourceSansPro/SourceSansPro-Bold.woff2') format('woff2'); }
.mq-banner { background: #fff3cd; color: #5c4400; border: 1px solid #e0c36a;
             padding: 8px 12px; border-radius: 6px; margin-bottom: 6px; }
/* prose.block: Markdown drawn on the server, flush with the page as gr.Markdown is */
.block.mq-prose > .html-container { padding: 0; }
.mq-item .mq-question { font-size: 1.1em; margin: 6px 0; }
.mq-item a.mq-link { word-break: break-all; }
.mq-item .mq-item-id { scroll-margin-top: 12px; }  /* a jump lands with the heading whole */
.mq-empty { color: #666; }
/* item view: answer cards and the label grid */
ol.mq-answers { list-style: none; padding: 0; margin: 8px 0; display: grid; gap: 6px; }
li.mq-answer { border: 1px solid #ddd; border-radius: 6px; padding: 6px 10px; }
li.mq-answer.mq-hit { border: 2px solid #c2410c; background: #fff7ed; }
.mq-answer-text { font-size: 1.05em; margin: 2px 0; }
.mq-answer-meta { font-size: 0.9em; color: #444; }
.mq-badge { display: inline-block; border-radius: 9px; padding: 0 7px; margin-left: 4px;
            font-size: 0.85em; background: #e5e7eb; color: #111; }
.mq-badge.mq-unanimous { background: #dcfce7; color: #14532d; }
.mq-badge.mq-split { background: #fee2e2; color: #7f1d1d; }
.mq-badge.mq-trigger { background: #c2410c; color: #fff; }
.mq-cons.mq-c1 { color: #166534; font-weight: 600; }
.mq-cons.mq-c0 { color: #991b1b; font-weight: 600; }
.mq-grid-wrap { max-height: 720px; overflow: auto; }
table.mq-grid { border-collapse: collapse; font-size: 0.9em; width: auto; min-width: 0; }
table.mq-grid caption { caption-side: bottom; text-align: left; font-size: 0.85em;
                        color: #555; padding-top: 4px; }
table.mq-grid th, table.mq-grid td { padding: 1px 8px; border-bottom: 1px solid #eee;
                                     text-align: center; white-space: nowrap; line-height: 1.35; }
table.mq-grid th[scope=row] { text-align: left; font-weight: normal; max-width: 14em;
                              overflow: hidden; text-overflow: ellipsis; }
table.mq-grid tr.mq-group th { text-align: left; font-weight: 600; background: #f3f4f6; }
table.mq-grid tr.mq-consensus { font-weight: 700; border-bottom: 2px solid #999; }
table.mq-grid th.mq-hit { background: #c2410c; color: #fff; }
td.mq-c1 { color: #166534; } td.mq-c0 { color: #991b1b; } td.mq-c2 { color: #6b7280; }
td.mq-contra, span.mq-contra { background: #fde68a; font-weight: 700; color: #7c2d12; }
/* server-rendered read-only tables (html_table) */
.mq-table { overflow-x: auto; }
.mq-table table { border-collapse: collapse; font-size: 0.92em; }
.mq-table caption { caption-side: top; text-align: left; font-weight: 600; padding: 2px 0 4px; }
.mq-table th, .mq-table td { padding: 2px 10px; border-bottom: 1px solid #e5e7eb;
                             white-space: nowrap; text-align: left; }
.mq-table thead th { border-bottom: 2px solid #9ca3af; }
.mq-table th[scope=row] { font-weight: normal; }
.mq-table td.mq-num, .prose .mq-table td.mq-num { text-align: right;
                                                  font-variant-numeric: tabular-nums; }
/* the leaderboard's boards (board_table): headers sort, rank/range/name pinned, scroll inside */
.mq-board { max-height: 600px; overflow: auto; border-radius: 6px;
            border: 1px solid var(--border-color-primary, #e5e7eb);
            color: var(--body-text-color, #111); }
.mq-board table { border-collapse: separate; border-spacing: 0; font-size: 0.9em;
                  width: max-content; min-width: 100%; margin: 0; }
.mq-board-caption { font-size: 1.05em; margin: 4px 0 !important; }
/* rows of whole pixels (a 1.4 line of 12.6 px text made them 23.64 px): each row's 1 px line
   then falls on a pixel, and none is blurred away in the pinned columns */
.mq-board th, .mq-board td { padding: 3px 8px; white-space: nowrap; text-align: left;
                             font-size: 1em; font-variant: normal; line-height: 18px;
                             border-bottom: 1px solid var(--border-color-primary, #eee);
                             background: var(--background-fill-primary, #fff); }
/* regular weight throughout, the header row shaded: a calm grid of numbers */
.mq-board th { font-weight: 400; }
.mq-board thead th { background: var(--background-fill-secondary, #f3f4f6); }
.mq-board thead th { position: sticky; top: 0; z-index: 2;
                     border-bottom: 2px solid var(--body-text-color-subdued, #9ca3af); }
.mq-board .mq-num { text-align: right; font-variant-numeric: tabular-nums; }
.mq-board button.mq-sort { background: none; border: 0; padding: 0; font: inherit;
                           color: inherit; cursor: pointer; text-align: left; }
.mq-board th[aria-sort=ascending] button.mq-sort::after { content: " \25B2"; }
.mq-board th[aria-sort=descending] button.mq-sort::after { content: " \25BC"; }
.mq-board tr.mq-ceiling { cursor: pointer; }
.mq-board tr.mq-ceiling > * { background: var(--background-fill-secondary, #f3f4f6); }
.mq-board .mq-pin { position: sticky; z-index: 1; box-sizing: border-box; }
.mq-board thead .mq-pin { z-index: 3; }
.mq-board .mq-pin0 { left: 0; }
.mq-board[data-pinned="3"] .mq-pin0 { width: 3.8em; min-width: 3.8em; max-width: 3.8em; }
.mq-board .mq-pin1 { left: 3.8em; width: 6.8em; min-width: 6.8em; max-width: 6.8em; }
.mq-board .mq-pin2 { left: 10.6em; max-width: 24em; overflow: hidden; text-overflow: ellipsis;
                     box-shadow: 1px 0 0 var(--border-color-primary, #ddd); }
/* Compare before its first run: no empty boxes between the button and the page's end */
#mq-compare-overall:not(:has(table)), #mq-compare-slots:not(:has(table)),
#mq-compare-tiers:not(:has(table)) { display: none !important; }
.mq-stack-on-phone:not(:has(table)):has(#mq-compare-slots) { display: none !important; }
#mq-compare-disagreements:not(:has(.mq-table)) { display: none !important; }
/* its answers labelled differently (up to 500 rows) scroll in a box, the header row kept */
.mq-table.mq-answers { max-height: 400px; overflow: auto; }
.mq-answers thead th { position: sticky; top: 0; z-index: 1;
                       background: var(--background-fill-primary, #fff); }
/* Browse's read-only grid of question sets: the page's font, a cut text ends in an
   ellipsis, and a click opens the row without a spreadsheet's edit frame */
#mq-items * { font-family: var(--font) !important; }
#mq-items .cell-wrap { min-width: 0; overflow: hidden; }
#mq-items .cell-wrap span.text {
  display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#mq-items .body-cell.cell-selected, #mq-items .body-cell * {
  box-shadow: none !important; outline: none !important; }
#mq-items .selection-button { display: none !important; }
/* figures: full width of their column on a desktop (at print size on a phone, below) */
.mq-plot img { width: 100%; max-width: 900px; height: auto; }
.mq-caption h3 { margin-bottom: 0; }
/* phone: judge cards above the tables; desktop: tables only */
.mq-phone-only { display: none !important; }
ol.mq-cards { list-style: none; padding: 0; margin: 0; }
li.mq-card { display: grid; grid-template-columns: 3.4em 1fr; gap: 0 6px;
             padding: 5px 0; border-bottom: 1px solid #eee; }
.mq-card-rank { grid-row: span 2; font-weight: 700; text-align: right; white-space: nowrap; }
.mq-card-name { font-weight: 600; overflow-wrap: anywhere; }
.mq-card-kappa small { font-size: 1em; color: #374151; }
.mq-badge.mq-b-physicians { background: #1e3a8a; color: #fff; }
.mq-badge.mq-b-verified { background: #dcfce7; color: #14532d; }
.mq-badge.mq-b-self { background: #fef3c7; color: #78350f; }
.mq-card-verdict { grid-column: 2; color: #1f2937; overflow-wrap: anywhere; }
@media (max-width: 640px) {
  .mq-phone-only { display: block !important; }
  .tab-wrapper .tab-container button { padding-left: 7px !important;
                                       padding-right: 7px !important; font-size: 0.92em; }
  .mq-card-kappa { grid-column: 2; }
  /* boards: only the name stays put (three pinned columns would fill the screen) */
  .mq-board .mq-pin0, .mq-board .mq-pin1 { position: static; }
  .mq-board .mq-pin2 { left: 0; max-width: 9em; }
  table.mq-grid th[scope=row] { max-width: 8.5em; }
  table.mq-grid th, table.mq-grid td { padding: 1px 4px; }
  .mq-grid-wrap { max-height: none; }
  .mq-stack-on-phone { flex-direction: column !important; }
  /* Compare's small tables fit the phone: narrower cells, an interval may wrap at its dash */
  [id^=mq-compare-] .mq-table th, [id^=mq-compare-] .mq-table td {
    padding: 2px 4px; white-space: normal; }
  /* the row labels ("kappa, against the consensus (as on the leaderboard)") may break
     anywhere rather than push the numbers past the screen's edge */
  [id^=mq-compare-] .mq-table tbody th, [id^=mq-compare-] .mq-table td:first-child {
    overflow-wrap: anywhere; }
  /* the answers (five columns) in a smaller type: their ids wrap less */
  #mq-compare-disagreements .mq-table table { font-size: 0.85em; }
  #mq-lead { display: none; }  /* folded: "How to read these tables" stays */
  /* figures at their print size (6 in = 600 px, so 9 pt text is 12.5 px), panned inside
     their own box rather than scaled to 5-8 px text */
  .mq-plot { overflow-x: auto !important; }
  .mq-plot img { width: 600px !important; max-width: none !important; }
  /* Gradio centres the image in a column flexbox: 600 px centred in 324 px hangs 138 px off
     the left edge, where no scrolling reaches; start it at the box's left edge instead */
  .mq-plot .matplotlib { align-items: flex-start !important; }
}
"""

HEAD: Final = """
<meta name="viewport" content="width=device-width, initial-scale=1">
<script>
/* The address follows the page: ?tab=, ?view= and ?item= (the open question set). On the
   Hub, where the Space runs in an iframe, the parent page's address is updated the way
   Spaces document it (postMessage of the query string and hash to huggingface.co). */
(() => {
  let last = null, queued = false;
  const tabName = () => {
    const t = document.querySelector("button[role=tab][aria-selected=true]")
      || document.querySelector(".tab-wrapper button.selected[data-tab-id]");
    return t ? (t.dataset.tabId || t.textContent.trim().toLowerCase()) : "";
  };
  const initial = new URLSearchParams(location.search);
  let armed = false;  // write nothing until the user acts or a deep link has opened
  const sync = () => {
    queued = false;
    const tab = tabName();
    if (!tab) return;
    const params = new URLSearchParams(location.search);
    const shown = document.querySelector("#mq-item [data-mq-item]");
    if (!armed) {
      const want = initial.get("item");
      armed = want ? !!shown && shown.dataset.mqItem === want
        : (initial.get("tab") || "leaderboard") === tab;
      if (!armed) return;
    }
    params.set("tab", tab);
    const view = document.querySelector("#mq-view input:checked");
    if (view && view.value !== "core") params.set("view", view.value);
    else params.delete("view");
    if (tab === "browse" && shown) params.set("item", shown.dataset.mqItem);
    else params.delete("item");
    const compared = document.querySelector("#mq-compare-summary [data-mq-a]");
    for (const key of ["a", "b"]) {
      const value = compared && compared.dataset["mq" + key.toUpperCase()];
      if (tab === "compare" && value) params.set(key, value);
      else params.delete(key);
    }
    const qs = "?" + params.toString();
    for (const a of document.querySelectorAll("a[data-mq-link]")) {
      const full = new URL(a.getAttribute("href"), location.href).href;
      if (a.textContent !== full) a.textContent = full;
    }
    if (qs === last) return;
    last = qs;
    history.replaceState(history.state, "", qs + location.hash);
    if (window.parent !== window) {
      window.parent.postMessage({queryString: qs, hash: location.hash}, "https://huggingface.co");
    }
  };
  /* A newly shown item (a deep link, Compare's "open in Browse", a tap on a Browse row) gets
     its heading focused, and is scrolled into view unless its heading is on screen already.
     The page may still grow above it (what the first event shows, the answers below being
     drawn), so the check is repeated at 250 ms, 1 s and on every change of the page's size
     for 4 s, until the visitor scrolls, taps or types. */
  let revealed = null;
  const onScreen = (el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
  };
  const reveal = () => {
    const item = document.querySelector("#mq-item [data-mq-item]");
    const id = item ? item.dataset.mqItem : null;
    if (!item || id === revealed) { if (!item) revealed = null; return; }
    const head = item.querySelector(".mq-item-id") || item;
    if (!head.getClientRects().length) return;  // its tab is hidden: reveal it when shown
    revealed = id;
    let moved = false;
    const stop = () => { moved = true; };
    for (const type of ["wheel", "touchstart", "keydown", "pointerdown"]) {
      addEventListener(type, stop, {once: true, capture: true, passive: true});
    }
    const go = () => {
      if (moved || revealed !== id || !head.isConnected) return;
      if (!onScreen(head)) head.scrollIntoView({block: "start"});
      // the focus moves to the heading unless the visitor is typing in a field
      if (!document.activeElement?.matches("input, textarea, select, [contenteditable]")) {
        head.focus({preventScroll: true});
      }
    };
    go();
    setTimeout(go, 250);
    setTimeout(go, 1000);
    // and whenever the page grows in the next seconds (what the first events show above it)
    const grown = new ResizeObserver(go);
    grown.observe(document.body);
    setTimeout(() => grown.disconnect(), 4000);
  };
  /* Gradio writes "undefined plot visualising provided data" as every figure's alt text; each
     figure gets its title and caption (the text above it, which says what it plots) instead. */
  const describe = () => {
    for (const img of document.querySelectorAll(".mq-plot img")) {
      let box = img.closest(".mq-plot"), caption = null;
      while (box && !caption) {
        for (let s = box.previousElementSibling; s && !caption; s = s.previousElementSibling) {
          caption = s.matches(".mq-caption") ? s : s.querySelector(".mq-caption");
        }
        box = box.parentElement;
      }
      if (!caption) continue;
      const title = caption.querySelector("h3");
      const words = caption.textContent.replace(/\\s+/g, " ").trim();
      const alt = title ? `Figure: ${title.textContent.trim()}. ${words.slice(
        title.textContent.trim().length).trim()}` : `Figure: ${words}`;
      if (img.getAttribute("alt") !== alt) img.setAttribute("alt", alt);
    }
  };
  const schedule = () => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(() => { reveal(); describe(); sync(); });
    }
  };
  const start = () => {
    new MutationObserver(schedule).observe(document.body,
      {subtree: true, childList: true, attributes: true,
       attributeFilter: ["aria-selected", "alt"]});
    for (const type of ["change", "click", "keydown"]) {
      document.addEventListener(type, (e) => {
        if (e.isTrusted) armed = true;
        schedule();
      }, true);
    }
  };
  /* Links into another tab of this page (a table's "vs physicians", "open in Browse") open
     there in place: the cell's select event does it, so the browser does not follow them. */
  document.addEventListener("click", (e) => {
    const a = e.target instanceof Element && e.target.closest(".mq-inpage a[href^='?tab=']");
    if (a && e.button === 0 && !e.ctrlKey && !e.metaKey && !e.shiftKey) e.preventDefault();
  }, true);
  if (document.body) start(); else addEventListener("DOMContentLoaded", start);
})();
</script>
"""
"""Added to the page's ``<head>``: the viewport for phones and the address sync."""
