"""Click-to-visible times of the leaderboard Space in headless Chromium (Playwright).

Usage::

    .venv/bin/python bench/space_browser.py [--data D] [--repeat 7] [--sizes 1440x900,390x844]
        [--bare] [--load-only] [--only "Compare vs physicians,Compare run"]
        [--baseline OTHER_CHECKOUT/src]

Launches the Space in-process on the full synthetic release (the embedded default unless
``--data`` is given; reference rows cached in a fresh results folder before the first
measurement), opens it in headless Chromium (``--chromium``, default the ``chromium`` on PATH)
and times each interaction a user makes: from the input event in the page (``mousedown`` or
``keydown``, captured before Gradio sees it) to the first animation frame that shows the new
content (a condition checked on every frame, so time the main thread spends rendering counts).
*settled* (the last DOM change before 300 ms without any, so a table re-rendered after the new
one was already visible) is printed beside it.

Interactions, at each ``--sizes`` viewport: page load (navigation start to the first judges on
screen: the table's rows at desktop size, the judge cards on a phone), the Leaderboard, Analysis
and Browse tabs (each opened from another tab), the core/full switch, a leaderboard search, a
column toggle (desktop), a Browse filter, a Browse text search, opening an item, a Compare run
and a judges row's *vs physicians* link (that judge against the physicians on the Compare tab; a
different judge each run, each computed by the Space after its start-up work, as for a visitor;
on a phone the table's link below the cards). A Compare interaction is shown when its headline
names the new pair and its answers labelled differently show rows.

Each runs ``--repeat`` times (twice, on and off, for toggles; twice for the two
Compare rows); the table shows p50 and p95 over all runs and the machine's load average
(``/proc/loadavg``) before and after. Target from issue 39: p50 < 300 ms for every interaction,
page load < 800 ms. Compare runs alternate two comparisons, so from the third run on the Space
answers from its kept comparisons (as for a visitor who reruns one); the first two include the
paired bootstrap. ``--resamples 1000`` is the Space's setting. ``--only`` times the named
interactions alone (names as in the printed table, comma-separated; ``page load`` among them
for the page load), e.g. ``--only "Compare vs physicians"`` for the *vs physicians* link.

``--baseline SRC`` times a second Space beside this one, the same release served by the code
in ``SRC`` (another checkout's ``src``, started in a subprocess with ``PYTHONPATH=SRC``), in
alternation: each repeat times the chosen interactions once on each Space (in a fresh page,
which Space goes first alternating), so both see the same load; a table is printed for each.
On a loaded machine this is the way to compare code before and after a change.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
QUIET_MS = 300
TIMEOUT_MS = 15_000

# Installed before any page script: remembers when the last input event started and when the
# DOM last changed.
PROBE = """
window.__mqb = {t0: 0, last: 0};
new MutationObserver(() => { window.__mqb.last = performance.now(); })
  .observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
for (const type of ["mousedown", "keydown"]) {
  window.addEventListener(type, () => { window.__mqb.t0 = performance.now(); }, true);
}
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[k]


class Timer:
    """Times one interaction on ``page``: ``act``, then the first frame where ``visible`` (JS)
    holds; waits for quiet too and keeps that time in :attr:`settled`."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.settled: list[float] = []

    def __call__(self, act: Callable[[], None], visible: str, changed: str = "") -> float:
        """``changed``: a selector whose text must differ from before the input (new content
        where the old is still visible, as a filtered table)."""
        page = self.page
        page.evaluate("window.__mqb.t0 = 0")
        if changed:
            page.evaluate(f"window.__mqb.before = document.querySelector({changed!r})?.textContent")
            visible = (
                f"({visible}) && document.querySelector({changed!r})?.textContent"
                " !== window.__mqb.before"
            )
        act()
        page.wait_for_function(
            f"() => {{ if (!({visible})) return false; window.__mqb.seen = performance.now();"
            " return true; }",
            polling="raf",
            timeout=TIMEOUT_MS,
        )
        page.wait_for_function(
            f"() => performance.now() - window.__mqb.last > {QUIET_MS}",
            polling=50,
            timeout=TIMEOUT_MS,
        )
        t0, seen, last = page.evaluate("[window.__mqb.t0, window.__mqb.seen, window.__mqb.last]")
        if not t0:
            raise RuntimeError("no input event reached the page")
        if os.environ.get("MQB_DEBUG"):
            print(f"  visible after {seen - t0:.0f} ms, last DOM change after {last - t0:.0f} ms")
        self.settled.append(float(max(seen, last) - t0))
        return float(seen - t0)


def js_visible(selector: str, extra: str = "true") -> str:
    """JS: an element matching ``selector`` is rendered (has a box) and ``extra`` holds."""
    return (
        f"(() => {{ const el = document.querySelector({selector!r}); "
        "if (!el) return false; const r = el.getBoundingClientRect(); "
        f"return r.width > 0 && r.height > 0 && ({extra}); }})()"
    )


def rows_in(selector: str, row: str = ".virtual-row") -> str:
    """JS: the table in ``selector`` shows rows (``row``: a Dataframe's, or a board's
    ``tbody tr``)."""
    return f"document.querySelectorAll({(selector + ' ' + row)!r}).length > 0"


def header_absent(selector: str, name: str) -> str:
    return (
        f"![...document.querySelectorAll({(selector + ' thead th')!r})]"
        f".some(th => th.textContent.replace('⋮', '').trim() === {name!r})"
    )


def header_present(selector: str, name: str) -> str:
    return f"!({header_absent(selector, name)})"


def launch(data: str | None, resamples: int) -> tuple[Any, str, Any]:
    from medqade.app.config import SpaceConfig
    from medqade.app.ui import build_app, launch_kwargs
    from medqade.dataset.sources import open_release, resolve_data

    sys_path = resolve_data(data)
    release = open_release(sys_path)
    results = Path(tempfile.mkdtemp(prefix="medqade-bench-browser-"))
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    config = SpaceConfig(
        results_dir=results, rate_limit=0, resamples=resamples, port=port, host="127.0.0.1"
    )
    demo = build_app(release, results, config)
    demo.queue(default_concurrency_limit=4)
    demo.launch(prevent_thread_lock=True, quiet=True, **launch_kwargs(config))
    state = demo.medqade_state  # type: ignore[attr-defined]
    state.ready.wait(300)
    try:
        state.report.result(timeout=300)
    except Exception as exc:  # the Analysis tab then shows the error; still timed
        print(f"analyses failed: {exc}")
    state.compared.wait(300)  # every judge against the physicians, computed after start-up
    return demo, f"http://127.0.0.1:{port}/", release


READY = "bench space ready at "


def serve(data: str | None, resamples: int) -> None:
    """``--serve``: launch the Space as :func:`launch` does, say where, and serve until killed
    (the baseline Space of ``--baseline``, run by another checkout's code)."""
    demo, url, _ = launch(data, resamples)
    print(READY + url, flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        demo.close()


def launch_baseline(src: str, data: str | None, resamples: int) -> tuple[Any, str]:
    """The same Space served by the code in ``src`` in a subprocess: (process, url)."""
    command = [sys.executable, __file__, "--serve", "--resamples", str(resamples)]
    command += ["--data", data] if data else []
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(READY):
            return proc, line[len(READY) :].strip()
    raise SystemExit(f"the baseline Space did not start (exit {proc.wait()})")


def launch_bare() -> tuple[Any, str]:
    """A bare Gradio page (one component, default theme, no CSS or head script): the floor a
    Gradio page load has on this machine."""
    import socket

    import gradio as gr

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    with gr.Blocks(analytics_enabled=False) as demo:
        gr.Markdown("# bare page", elem_id="mq-bare")
    demo.launch(prevent_thread_lock=True, quiet=True, server_name="127.0.0.1", server_port=port)
    return demo, f"http://127.0.0.1:{port}/"


def click_tab(page: Any, name: str) -> None:
    """Click a tab; through Gradio's overflow menu when the tab row hides it."""
    tab = page.get_by_role("tab", name=name)
    if tab.count() and tab.first.is_visible():
        tab.first.click()
        return
    page.get_by_role("button", name="More tabs").click()
    page.locator(".overflow-dropdown button").filter(has_text=name).click()


def judges_condition(phone: bool) -> str:
    """JS: the first judges are on screen (cards on a phone, table rows on a desktop)."""
    if phone:
        return js_visible("#mq-cards li.mq-card")
    return js_visible("#mq-judges", rows_in("#mq-judges", "tbody tr"))


def page_load(
    browser: Any, url: str, size: dict[str, int], repeat: int, visible: str = ""
) -> list[float]:
    """Navigation start to the first frame with the judges (or ``visible``) on screen, in a
    fresh browser context each."""
    out = []
    visible = visible or judges_condition(size["width"] < 640)
    for _ in range(repeat):
        page = browser.new_page(viewport=size)
        try:
            page.goto(url, wait_until="commit")
            page.wait_for_function(
                f"() => {{ if (!({visible})) return false; window.__mqb_seen = performance.now();"
                " return true; }",
                polling="raf",
                timeout=60_000,
            )
            out.append(float(page.evaluate("window.__mqb_seen")))
        finally:
            page.close()
    return out


INTERACTIONS = (
    "page load",
    "Leaderboard tab",
    "Analysis tab",
    "Browse tab",
    "core/full switch",
    "search",
    "column toggle",
    "Browse filter",
    "Browse search",
    "open item",
    "Compare vs physicians",
    "Compare run",
)
"""The interactions timed, by the names the table prints (what ``--only`` picks from)."""


ANSWERS_SHOWN = js_visible(
    "#mq-compare-disagreements",
    "document.querySelectorAll('#mq-compare-disagreements .virtual-row,"
    " #mq-compare-disagreements tbody tr').length > 0",
)
"""JS: Compare's answers labelled differently show rows (a grid's or a table's); part of what
a Compare interaction must show, with its headline."""


def run(
    page: Any,
    url: str,
    repeat: int,
    items: tuple[str, str],
    pair: tuple[str, str],
    phone: bool,
    only: frozenset[str] = frozenset(INTERACTIONS),
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Time each interaction in ``only`` ``repeat`` times (see the module docstring)."""
    from playwright.sync_api import expect

    timer = Timer(page)
    out: dict[str, list[float]] = {}
    settled: dict[str, list[float]] = {}

    def add(name: str, ms: float) -> None:
        out.setdefault(name, []).append(ms)
        settled.setdefault(name, []).append(timer.settled[-1])

    page.goto(url, wait_until="domcontentloaded")
    expect(page.locator("#mq-judges tbody tr").first).to_be_attached(timeout=60_000)
    page.wait_for_function(f"() => performance.now() - window.__mqb.last > {QUIET_MS}")
    judges_visible = judges_condition(phone)
    judges_box = "#mq-cards" if phone else "#mq-judges"
    items_visible = js_visible("#mq-items", rows_in("#mq-items"))
    plot_visible = js_visible(
        "#mq-analysis img",
        "[...document.querySelectorAll('#mq-analysis img')]"
        ".some(i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 0)",
    )
    about_visible = js_visible("#mq-about")

    def tab(name: str) -> Callable[[], None]:
        return lambda: click_tab(page, name)

    tabs = {"Leaderboard tab", "Analysis tab", "Browse tab"} & only
    for _ in range(repeat if tabs else 0):
        timer(tab("About"), about_visible)
        add("Leaderboard tab", timer(tab("Leaderboard"), judges_visible))
        add("Analysis tab", timer(tab("Analysis"), plot_visible))
        add("Browse tab", timer(tab("Browse"), items_visible))
    timer(tab("Leaderboard"), judges_visible)

    full = page.locator("#mq-view label").filter(has_text="full")
    core = page.locator("#mq-view label").filter(has_text="core")

    # the judges board of the new view is on screen (it carries its view)
    def view_is(view: str) -> str:
        return js_visible(f"#mq-judges [data-view={view}]", rows_in("#mq-judges", "tbody tr"))

    for _ in range(repeat if "core/full switch" in only else 0):
        add("core/full switch", timer(lambda: full.click(), view_is("full")))
        add("core/full switch", timer(lambda: core.click(), view_is("core")))

    search = page.locator("#mq-search textarea, #mq-search input").first
    for _ in range(repeat if "search" in only else 0):
        search.fill("gemma")
        add("search", timer(lambda: search.press("Enter"), judges_visible, judges_box))
        search.fill("")
        add("search", timer(lambda: search.press("Enter"), judges_visible, judges_box))

    if not phone and "column toggle" in only:  # the column choice: the desktop table only
        page.locator("#mq-columns-fold").get_by_text("Columns").first.click()
        toggle = page.locator("#mq-columns label").filter(has_text="PABAK").first
        toggle.wait_for(state="visible")
        for _ in range(repeat):
            add(
                "column toggle",
                timer(lambda: toggle.click(), header_absent("#mq-judges", "PABAK")),
            )
            add(
                "column toggle",
                timer(lambda: toggle.click(), header_present("#mq-judges", "PABAK")),
            )

    if {"Browse filter", "Browse search", "open item"} & only:
        timer(tab("Browse"), items_visible)
    split = page.locator("#mq-flags label").filter(has_text="physicians split").first
    for _ in range(repeat if "Browse filter" in only else 0):
        add("Browse filter", timer(lambda: split.click(), items_visible, "#mq-items"))
        add("Browse filter", timer(lambda: split.click(), items_visible, "#mq-items"))

    text = page.locator("#mq-browse-search textarea, #mq-browse-search input").first
    for _ in range(repeat if "Browse search" in only else 0):
        text.fill("niere")
        add("Browse search", timer(lambda: text.press("Enter"), items_visible, "#mq-items"))
        text.fill("")
        add("Browse search", timer(lambda: text.press("Enter"), items_visible, "#mq-items"))

    box = page.locator("#mq-item-id textarea, #mq-item-id input").first
    for k in range(2 * repeat if "open item" in only else 0):
        wanted = items[k % 2]
        box.fill(wanted)
        add(
            "open item",
            timer(
                lambda: box.press("Enter"),
                js_visible(
                    "#mq-item",
                    f"document.querySelector('#mq-item').textContent.includes({wanted!r})",
                ),
            ),
        )

    if "Compare vs physicians" in only:  # a row's link: that judge against the physicians
        tokens = page.eval_on_selector_all(
            "#mq-judges a[data-mq-b=physicians]", "links => links.map(a => a.dataset.mqA)"
        )
        for k in range(2 * repeat):
            token = tokens[k % len(tokens)]
            timer(tab("Leaderboard"), judges_visible)
            link = page.locator(f"#mq-judges a[data-mq-a={token!r}][data-mq-b=physicians]")
            link.scroll_into_view_if_needed()  # a phone shows the table below the cards
            add(
                "Compare vs physicians",
                timer(
                    lambda link=link: link.click(),
                    js_visible(
                        f"#mq-compare-summary [data-mq-a={token!r}][data-mq-b=physicians]",
                        ANSWERS_SHOWN,
                    ),
                ),
            )

    if "Compare run" not in only:
        return out, settled
    # Compare two paper evaluators (opened by a deep link), core and full in turn, so each run
    # shows new numbers; the old headline is marked, the new one is the new content
    a, b = pair
    page.goto(f"{url}?tab=compare&a={a}&b={b}", wait_until="domcontentloaded")
    expect(page.locator("#mq-compare-summary [data-mq-a]")).to_be_visible(timeout=60_000)
    button = page.locator("#mq-compare")
    fresh = (
        "(() => { const h = document.querySelector('#mq-compare-summary [data-mq-a]');"
        " return !!h && !h.dataset.mqbOld && h.getBoundingClientRect().height > 0; })()"
        f" && {ANSWERS_SHOWN}"
    )
    for k in range(2 * repeat):
        page.locator("#mq-compare-view label").filter(has_text=("full", "core")[k % 2]).click()
        page.evaluate(
            "document.querySelectorAll('#mq-compare-summary [data-mq-a]')"
            ".forEach(h => h.dataset.mqbOld = '1')"
        )
        add("Compare run", timer(lambda: button.click(), fresh))
    return out, settled


Timed = tuple[dict[str, list[float]], dict[str, list[float]]]


def one_round(
    browser: Any,
    url: str,
    size: dict[str, int],
    reps: int,
    only: frozenset[str],
    bare: tuple[Any, str] | None,
    items: tuple[str, str],
    pair: tuple[str, str],
    timed: Timed,
) -> None:
    """Time the interactions in ``only`` ``reps`` times on the Space at ``url``; the times
    are added to ``timed`` (first frame, settled), by interaction."""
    results, settled = timed

    def keep(name: str, first: list[float], quiet: list[float]) -> None:
        results.setdefault(name, []).extend(first)
        settled.setdefault(name, []).extend(quiet)

    if bare is not None:  # alternating with the Space's, so both see one load
        loads: list[float] = []
        floor: list[float] = []
        for _ in range(reps):
            loads += page_load(browser, url, size, 1)
            floor += page_load(browser, bare[1], size, 1, js_visible("#mq-bare"))
        keep("page load", loads, loads)
        keep("bare Gradio page load", floor, floor)
    elif "page load" in only:
        loads = page_load(browser, url, size, reps)
        keep("page load", loads, loads)
    if only - {"page load"}:
        page = browser.new_page(viewport=size)
        page.add_init_script(PROBE)
        ran, quiet = run(page, url, reps, items, pair, size["width"] < 640, only)
        page.close()
        for name in ran:
            keep(name, ran[name], quiet[name])


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="build folder (default: synthetic)")
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sizes", default="1440x900,390x844", help="viewports, WxH,WxH")
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    parser.add_argument(
        "--bare", action="store_true", help="also time page load of a bare one-component page"
    )
    parser.add_argument(
        "--load-only", action="store_true", help="time page load only, no interactions"
    )
    parser.add_argument(
        "--only",
        default="",
        help="time only these interactions (comma-separated names as printed, e.g. "
        "'Compare vs physicians,Compare run'; 'page load' for the page load)",
    )
    parser.add_argument(
        "--baseline",
        default="",
        help="another checkout's src: time the Space it serves in alternation with this one",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.data, args.resamples)
        return
    only = frozenset(n.strip() for n in args.only.split(",") if n.strip()) or frozenset(
        INTERACTIONS
    )
    if args.load_only:
        only = frozenset({"page load"})
    unknown = only - set(INTERACTIONS)
    if unknown:
        raise SystemExit(f"unknown interaction(s) {sorted(unknown)}; one of {INTERACTIONS}")
    if not args.chromium:
        raise SystemExit("no chromium executable: pass --chromium PATH")
    sizes = [
        {"width": int(w), "height": int(h)}
        for w, h in (size.split("x") for size in args.sizes.split(","))
    ]

    from playwright.sync_api import sync_playwright

    t = time.perf_counter()
    baseline = launch_baseline(args.baseline, args.data, args.resamples) if args.baseline else None
    demo, url, release = launch(args.data, args.resamples)
    bare = launch_bare() if args.bare else None
    print(f"Space ready in {time.perf_counter() - t:.1f} s at {url} ({release.n_items} items)")
    spaces = [("", url)] + ([(f"baseline ({args.baseline})", baseline[1])] if baseline else [])
    ids = release.item_ids
    items = (str(ids[min(1234, release.n_items - 1)]), str(ids[0]))
    evaluators = release.roster.evaluator_ids
    pair = (str(evaluators[0]), str(evaluators[1]))
    tables = []
    # with a baseline, each repeat is one round on each Space; alone, one round of all repeats
    rounds, reps = (args.repeat, 1) if baseline else (1, args.repeat)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS, headless=True)
            try:
                for size in sizes:
                    before = load_average()
                    timed: dict[str, Timed] = {label: ({}, {}) for label, _ in spaces}
                    for k in range(rounds):
                        for label, at in spaces[:: 1 if k % 2 == 0 else -1]:
                            found = timed[label]
                            one_round(browser, at, size, reps, only, bare, items, pair, found)
                    after = load_average()
                    for label, _ in spaces:
                        tables.append((label, size, *timed[label], before, after))
            finally:
                browser.close()
    finally:
        demo.close()
        if bare is not None:
            bare[0].close()
        if baseline is not None:
            baseline[0].terminate()
            baseline[0].wait(60)
    for label, size, results, settled, before, after in tables:
        if "page load" in results:  # first in the table
            results = {"page load": results.pop("page load"), **results}
        width = max(len(k) for k in results)
        print(
            f"\nfirst frame with the new content at {size['width']}x{size['height']}, headless "
            f"Chromium, ms (load average before {before}, after {after}){' ' if label else ''}"
            f"{label}"
        )
        print(f"{'interaction':<{width}}  {'p50':>6}  {'p95':>6}  {'settled p50':>11}  {'n':>3}")
        for name, values in results.items():
            p50 = statistics.median(values)
            p95 = percentile(values, 0.95)
            quiet = statistics.median(settled[name])
            print(f"{name:<{width}}  {p50:6.0f}  {p95:6.0f}  {quiet:11.0f}  {len(values):3d}")


if __name__ == "__main__":
    main()
