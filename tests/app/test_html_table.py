"""The server-rendered read-only table (``medqade.app.html_table``)."""

from __future__ import annotations

import math
from html.parser import HTMLParser

import pandas as pd
import pytest

from medqade.app.html_table import Link, html_table


class Cells(HTMLParser):
    """Every header and cell text of a table, row by row (an independent reading of the HTML)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.caption = ""
        self._in: str | None = None
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("th", "td", "caption"):
            self._in = tag
            if tag != "caption":
                self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td", "caption"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "caption":
            self.caption += data
        elif self._in:
            self.rows[-1][-1] += data


def test_html_table_cells_escaped_numbers_three_decimals() -> None:
    table = pd.DataFrame(
        {
            "": ["<b>kappa</b>", "PA"],
            "A": [0.61234, math.nan],
            "n": [12, 3],
            "CI": ["0.500 – 0.700", ""],
        }
    )
    out = html_table(table, "Macro <agreement>")
    parsed = Cells()
    parsed.feed(out)
    assert parsed.caption == "Macro <agreement>"
    assert parsed.rows == [
        ["", "A", "n", "CI"],
        ["<b>kappa</b>", "0.612", "12", "0.500 – 0.700"],
        ["PA", "", "3", ""],
    ]
    assert "script" not in parsed.tags and "b" not in parsed.tags  # markup stays text
    assert out.count('class="mq-num"') == 3


def test_html_table_empty_says_only_its_caption() -> None:
    out = html_table(pd.DataFrame(columns=["a"]), "Kappa per tier")
    assert "<table" not in out and "Kappa per tier" in out


def test_html_table_headers_carry_their_meaning_escaped() -> None:
    table = pd.DataFrame({"": ["kappa"], "A": [0.5], "A - B": ["+0.100"]})
    out = html_table(table, "Macro", titles={"A": 'a "quoted" <tip>', "A - B": "difference"})
    assert '<th scope="col" title="a &quot;quoted&quot; &lt;tip&gt;">A</th>' in out
    assert '<th scope="col" title="difference">A - B</th>' in out
    assert '<th scope="col"></th>' in out  # no entry, no tooltip
    assert "title=" not in html_table(table, "Macro")


def test_html_table_link_cells_are_links_with_escaped_parts() -> None:
    evil = Link('<b>"x"</b>', '?tab=browse&item="><script>', (("mq-item", '"><i>'),))
    table = pd.DataFrame({"answer": ["S-C01/m"], "open": [evil], "plain": ["<a href=x>y</a>"]})
    out = html_table(table, "Answers")
    parsed = Cells()
    parsed.feed(out)
    assert parsed.rows[1] == ["S-C01/m", '<b>"x"</b>', "<a href=x>y</a>"]
    assert parsed.tags.count("a") == 1 and "script" not in parsed.tags and "i" not in parsed.tags
    assert 'href="?tab=browse&amp;item=&quot;&gt;&lt;script&gt;"' in out
    assert 'data-mq-item="&quot;&gt;&lt;i&gt;"' in out


def test_link_refuses_an_unsafe_attribute_name() -> None:
    with pytest.raises(ValueError, match="data attribute"):
        Link("x", "?", (('x" onclick="alert(1)', "y"),))
