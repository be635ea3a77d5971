"""A display table as server-rendered HTML: the light component for tables nobody sorts or edits.

``gr.Dataframe`` is a virtualised, sortable grid; rendering one costs the page 100-200 ms on
the 2-core machine, several in a row more (issue 27 measured Compare's four at ~530 ms). A
table that is only read (Compare's macro, per-slot and per-tier differences, and its answers
labelled differently, whose *open in Browse* cells are :class:`Link` s) is sent as a plain
``<table>`` inside ``gr.HTML`` instead: one ``innerHTML`` on the page. Formatting only: every
cell is escaped (submitter text never becomes markup), numbers are shown with three decimals as
the Dataframes show them, a missing number is an empty cell; a header carries its column's
meaning (:mod:`medqade.app.glossary`) as its tooltip.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import pandas as pd

from medqade.app.cells import DIGITS

NUMBER_CLASS: Final = "mq-num"
DATA_NAME: Final = re.compile(r"^[a-z][a-z0-9-]{0,30}$")


@dataclass(frozen=True)
class Link:
    """A cell that links: ``text`` shown, ``href`` its address, ``data`` its ``data-*``
    attributes (what the page's script reads); every part escaped when drawn."""

    text: str
    href: str
    data: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        bad = [name for name, _ in self.data if not DATA_NAME.match(name)]
        if bad:
            raise ValueError(f"not a data attribute name: {bad}")

    def html(self) -> str:
        e = html.escape
        data = "".join(f' data-{name}="{e(value, quote=True)}"' for name, value in self.data)
        return f'<a href="{e(self.href, quote=True)}"{data}>{e(self.text)}</a>'


def _cell(value: object) -> tuple[str, bool]:
    """The cell's text and whether it is a number (right-aligned)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "", False
    if isinstance(value, bool):
        return str(value), False
    if isinstance(value, int):
        return str(value), True
    if isinstance(value, float):
        return f"{value:.{DIGITS}f}", True
    return str(value), False


def html_table(
    table: pd.DataFrame,
    caption: str,
    elem_class: str = "",
    titles: Mapping[str, str] | None = None,
) -> str:
    """``table`` as an escaped HTML table with ``caption`` above it (the Dataframe's label);
    the first column is the row header; ``titles``: each column's meaning, its header's
    tooltip; a :class:`Link` cell is drawn as its link. An empty table says so in one line."""
    e = html.escape
    classes = " ".join(c for c in ("mq-table", elem_class) if c)
    if table.empty:
        return f'<div class="{classes}"><p class="mq-table-caption">{e(caption)}</p></div>'
    tips = titles or {}
    head = "".join(
        f'<th scope="col"{_title(tips.get(str(c)))}>{e(str(c))}</th>' for c in table.columns
    )
    body = []
    for row in table.itertuples(index=False):
        cells = []
        for k, value in enumerate(row):
            tag = "th" if k == 0 else "td"
            scope = ' scope="row"' if k == 0 else ""
            if isinstance(value, Link):
                cells.append(f"<{tag}{scope}>{value.html()}</{tag}>")
                continue
            text, numeric = _cell(value)
            css = f' class="{NUMBER_CLASS}"' if numeric else ""
            cells.append(f"<{tag}{scope}{css}>{e(text)}</{tag}>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="{classes}"><table><caption>{e(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _title(words: str | None) -> str:
    return f' title="{html.escape(words, quote=True)}"' if words else ""
