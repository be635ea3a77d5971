"""The leaderboard's tables as server-rendered HTML: sortable, first columns pinned, rows that act.

The judges, models and per-physician tables used to be ``gr.Dataframe`` grids. A grid is a
virtualised, editable component: drawing the 21-column judges grid cost the page ~330 ms on
the 2-core machine at every tab switch, view switch and page load (issue 27). A board is read,
sorted and clicked, nothing more, so it is sent as one escaped ``<table>`` inside ``gr.HTML``
and the page keeps three behaviours with a few lines of script (:data:`BOARD_JS`):

* **sorting**: every header is a button; a click sorts the rows by that column (numbers by
  value, text by text, empty cells last), a second click reverses, ``aria-sort`` says which;
* **the physician ceiling row** opens the per-physician table (event ``select`` with
  ``{"open": "physicians"}``);
* **a row's *vs physicians* link** opens that comparison on the Compare tab of the same page
  (event ``select`` with ``{"a": id, "b": "physicians"}``); a middle or modified click still
  opens the address in a new browser tab.

Formatting only: every cell is escaped (submitter text never becomes markup); the numbers are
the display tables' (rounded by :mod:`medqade.app.cells`), shown with as many decimals as the
column needs (three for kappa, one for percentages, none for counts) and kept unrounded in
``data-v`` for sorting. The first ``pinned`` columns stay in place when the table scrolls
sideways.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlencode

import pandas as pd

from medqade.app.cells import DIGITS, LINK_COLUMNS, linked_comparison
from medqade.app.panel_view import CEILING_BADGE

MAX_DECIMALS: Final = DIGITS
MAX_EVENT_TEXT: Final = 200
"""Longest text a table event may carry (ids are far shorter); longer is ignored."""
CEILING_ROW: Final = ' class="mq-ceiling" title="Click: the agreement of each physician"'

BOARD_JS: Final = """
const numberOf = (cell) => {
  if (!cell) return null;
  if (cell.dataset.v !== undefined) return Number(cell.dataset.v);
  const m = /^\\s*-?\\d+(\\.\\d+)?/.exec(cell.textContent);
  return m ? Number(m[0]) : null;
};
const sortBy = (button) => {
  const th = button.closest("th");
  const table = th && th.closest("table");
  if (!table || !table.tBodies.length) return;
  const k = [...th.parentNode.children].indexOf(th);
  const down = th.getAttribute("aria-sort") === "ascending";
  for (const other of th.parentNode.children) other.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", down ? "descending" : "ascending");
  const body = table.tBodies[0];
  const rows = [...body.rows].map((row, at) => {
    const cell = row.cells[k];
    const text = cell ? cell.textContent.trim() : "";
    return {row, at, text, num: text === "" ? null : numberOf(cell)};
  });
  const sign = down ? -1 : 1;
  rows.sort((x, y) => {
    if (x.text === "" || y.text === "") return (x.text === "") - (y.text === "") || x.at - y.at;
    const c = x.num !== null && y.num !== null ? x.num - y.num
      : x.text.localeCompare(y.text, undefined, {numeric: true});
    return sign * c || x.at - y.at;
  });
  body.append(...rows.map((r) => r.row));
};
element.addEventListener("click", (e) => {
  const target = e.target instanceof Element ? e.target : null;
  if (!target) return;
  const button = target.closest("button.mq-sort");
  if (button) { sortBy(button); return; }
  const link = target.closest("a[data-mq-a]");
  if (link) {
    if (e.button === 0 && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      e.preventDefault();
      trigger("select", {a: link.dataset.mqA, b: link.dataset.mqB});
    }
    return;
  }
  if (target.closest("tr.mq-ceiling")) trigger("select", {open: "physicians"});
});
"""
"""The boards' page script (``js_on_load`` of each board's ``gr.HTML``): sorting by a header
click, the ceiling row and the *vs physicians* links (see the module's docstring)."""


def decimals(values: pd.Series) -> int:
    """How many decimals the column's numbers need to be shown as given (at most three)."""
    need = 0
    for value in values:
        if isinstance(value, float) and math.isfinite(value):
            for d in range(need, MAX_DECIMALS + 1):
                if round(value, d) == round(value, MAX_DECIMALS):
                    need = d
                    break
    return need


def _number(value: object, digits: int) -> tuple[str, str]:
    """The cell's text and its sort key (empty for a missing number)."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return "", ""
    if isinstance(value, float) and not math.isfinite(value):
        return "", ""
    return f"{value:.{digits}f}", repr(float(value))


def _link(cell: object) -> str:
    """A :func:`~medqade.app.cells.compare_link` cell as an in-page link (empty if not one)."""
    pair = linked_comparison(cell)
    if pair is None:
        return ""
    a, b = (html.escape(x, quote=True) for x in pair)
    href = html.escape("?" + urlencode({"tab": "compare", "a": pair[0], "b": pair[1]}), quote=True)
    return f'<a href="{href}" data-mq-a="{a}" data-mq-b="{b}">vs physicians</a>'


def board_html(
    table: pd.DataFrame,
    caption: str,
    *,
    pinned: int = 0,
    view: str = "",
    titles: Mapping[str, str] | None = None,
) -> str:
    """``table`` as a sortable HTML board under ``caption``; the first ``pinned`` columns stay
    put when it scrolls sideways; ``view`` is kept as ``data-view`` (which view it shows);
    ``titles``: each column's meaning (:mod:`medqade.app.glossary`), its header's tooltip."""
    e = html.escape
    attrs = f' data-pinned="{pinned}"' if pinned else ""
    attrs += f' data-view="{e(view, quote=True)}"' if view else ""
    # the caption sits above the scrolling box, so it stays readable when the table scrolls
    title = f'<p class="mq-board-caption">{e(caption)}</p>'
    if table.empty:
        return f'{title}<div class="mq-board"{attrs}><p class="mq-empty">No row matches.</p></div>'
    label = f' aria-label="{e(caption, quote=True)}"'
    columns = [str(c) for c in table.columns]
    numeric = {
        c: decimals(table[c]) for c in table.columns if pd.api.types.is_numeric_dtype(table[c])
    }
    pin = [f' class="mq-pin mq-pin{k}"' if k < pinned else "" for k in range(len(columns))]
    tips = [
        f' title="{e(titles[c], quote=True)}"' if titles and c in titles else "" for c in columns
    ]
    head = "".join(
        f'<th scope="col"{pin[k]}{tips[k]}><button type="button" class="mq-sort">{e(c)}'
        "</button></th>"
        for k, c in enumerate(columns)
    )
    body = []
    for row in table.itertuples(index=False):
        cells = []
        ceiling = False
        for k, (column, value) in enumerate(zip(table.columns, row, strict=True)):
            tag = "th" if columns[k] == "name" or (k == 0 and "name" not in columns) else "td"
            scope = ' scope="row"' if tag == "th" else ""
            if column in numeric:
                text, key = _number(value, numeric[column])
                css = f' class="mq-num{" mq-pin mq-pin" + str(k) if k < pinned else ""}"'
                data = f' data-v="{key}"' if key else ""
                cells.append(f"<{tag}{scope}{css}{data}>{text}</{tag}>")
                continue
            if column in LINK_COLUMNS:
                cells.append(f"<{tag}{scope}{pin[k]}>{_link(value)}</{tag}>")
                continue
            text = "" if value is None else str(value)
            ceiling = ceiling or (column == "badge" and text == CEILING_BADGE)
            cells.append(f"<{tag}{scope}{pin[k]}>{e(text)}</{tag}>")
        row_attrs = CEILING_ROW if ceiling else ""
        body.append(f"<tr{row_attrs}>{''.join(cells)}</tr>")
    return (
        f'{title}<div class="mq-board"{attrs}><table{label}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def event_text(evt: Any, key: str) -> str | None:
    """The text ``key`` of a board's ``select`` event (sent by the page, so public input), or
    ``None`` when it is absent, not text or longer than :data:`MAX_EVENT_TEXT`."""
    try:
        value = getattr(evt, key)
    except (AttributeError, TypeError):  # no such key, or an event without data
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_EVENT_TEXT:
        return None
    return value


__all__: Sequence[str] = ["BOARD_JS", "board_html", "decimals", "event_text"]
