"""The leaderboard's boards as HTML: shape, escaping, number formats, sort keys, row actions."""

from __future__ import annotations

import math
from html.parser import HTMLParser
from typing import Any

import pandas as pd
import pytest

from medqade.app import cells
from medqade.app.board_table import CEILING_ROW, board_html, decimals, event_text
from medqade.app.panel_view import CEILING_BADGE

HOSTILE = '<script>window.__x=1</script><img src=x onerror="alert(1)">'


class Cells(HTMLParser):
    """Every cell of a board: (tag, attributes, text), row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, dict[str, str | None], str]]] = []
        self.row_attrs: list[dict[str, str | None]] = []
        self.tags: list[str] = []
        self._cell: tuple[str, dict[str, str | None]] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])
            self.row_attrs.append(dict(attrs))
        elif tag in ("th", "td"):
            self._cell, self._text = (tag, dict(attrs)), []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append((*self._cell, "".join(self._text)))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text.append(data)


def parse(text: str) -> Cells:
    cells = Cells()
    cells.feed(text)
    cells.close()
    return cells


def judges() -> pd.DataFrame:
    rows: list[dict[str, Any]] = [
        {
            "rank": math.nan,
            "rank range": "",
            "name": "Physicians (leave-one-out) — ceiling",
            "source": "physicians",
            "badge": CEILING_BADGE,
            "kappa": 0.742,
            "abstention (%)": 0.2,
            "n": 200.0,
            "compare": "",
        },
        {
            "rank": 1.0,
            "rank range": "1–3",
            "name": "Gemini 3 Flash",
            "source": "paper",
            "badge": "verified",
            "kappa": 0.71,
            "abstention (%)": 1.5,
            "n": 200.0,
            "compare": cells.compare_link(
                {"source": "paper", "model_id": "gemini-3-flash", "id": "x"}
            ),
        },
        {
            "rank": 2.0,
            "rank range": "2–3",
            "name": HOSTILE + " physician ceiling",
            "source": "submission",
            "badge": "self-reported",
            "kappa": math.nan,
            "abstention (%)": math.nan,
            "n": 150.0,
            "compare": f"[vs physicians]({HOSTILE})",
        },
    ]
    return pd.DataFrame(rows)


def test_board_has_one_row_and_cell_per_table_row_and_column() -> None:
    table = judges()
    cells = parse(board_html(table, "Judges", pinned=3, view="core"))
    header, *body = cells.rows
    assert [text for _, _, text in header] == list(table.columns)
    assert len(body) == len(table)
    assert all(len(row) == table.shape[1] for row in body)
    # every header is a sort button; the name cell heads its row
    assert cells.tags.count("button") == table.shape[1]
    assert all(tag == "th" for tag, _, _ in (row[2] for row in body))


def test_submitter_text_is_escaped_and_never_markup() -> None:
    out = board_html(judges(), "Judges <b>")
    assert "<script" not in out and "<img" not in out and "<b>" not in out
    assert 'aria-label="Judges &lt;b&gt;"' in out
    cells = parse(out)
    assert any(text.startswith(HOSTILE) for row in cells.rows for _, _, text in row)
    assert "script" not in cells.tags and "img" not in cells.tags


def test_numbers_have_the_decimals_their_column_needs_and_an_unrounded_sort_key() -> None:
    _, ceiling, gemini, hostile = parse(board_html(judges(), "Judges")).rows
    kappa, abstention, n = 5, 6, 7
    assert ceiling[kappa][2] == "0.742" and gemini[kappa][2] == "0.710"
    assert gemini[kappa][1]["data-v"] == repr(0.71)
    assert gemini[abstention][2] == "1.5" and ceiling[abstention][2] == "0.2"
    assert gemini[n][2] == "200" and hostile[n][2] == "150"
    assert gemini[0][2] == "1"
    # a missing number is an empty cell without a sort key (sorted last by the page)
    assert hostile[kappa][2] == "" and "data-v" not in hostile[kappa][1]
    assert ceiling[0][2] == "" and "data-v" not in ceiling[0][1]
    assert all("mq-num" in str(row[kappa][1]["class"]) for row in (ceiling, gemini, hostile))


@pytest.mark.parametrize(
    ("values", "expected"),
    [([0.5, 0.25], 2), ([0.742, 0.7], 3), ([200.0, 3.0], 0), ([0.2, math.nan], 1), ([], 0)],
)
def test_decimals(values: list[float], expected: int) -> None:
    assert decimals(pd.Series(values, dtype=float)) == expected


def test_only_the_ceiling_badge_marks_the_row_that_opens_the_physicians() -> None:
    out = board_html(judges(), "Judges")
    cells = parse(out)
    marked = [a.get("class") == "mq-ceiling" for a in cells.row_attrs[1:]]
    assert marked == [True, False, False]  # a name saying "physician ceiling" does not
    assert out.count(CEILING_ROW) == 1


def test_compare_cells_become_in_page_links_and_anything_else_is_dropped() -> None:
    _, ceiling, gemini, hostile = parse(board_html(judges(), "Judges")).rows
    out = board_html(judges(), "Judges")
    assert 'href="?tab=compare&amp;a=gemini-3-flash&amp;b=physicians"' in out
    assert 'data-mq-a="gemini-3-flash" data-mq-b="physicians"' in out
    assert gemini[-1][2] == "vs physicians"
    assert ceiling[-1][2] == "" and hostile[-1][2] == ""
    assert out.count("data-mq-a=") == 1


def test_pinned_columns_and_view_are_marked() -> None:
    out = board_html(judges(), "Judges", pinned=2, view="full")
    assert '<div class="mq-board" data-pinned="2" data-view="full">' in out
    for row in parse(out).rows:
        classes = [str(attrs.get("class") or "") for _, attrs, _ in row]
        assert [("mq-pin" + str(k)) in c for k, c in enumerate(classes)] == [
            k < 2 for k in range(len(row))
        ]
    assert "data-pinned" not in board_html(judges(), "Judges")


def test_an_empty_board_says_so_under_its_caption() -> None:
    out = board_html(judges().iloc[:0], "Judges")
    assert '<p class="mq-board-caption">Judges</p>' in out and "No row matches." in out
    assert "<tbody>" not in out


class Event:
    def __init__(self, data: Any) -> None:
        self._data = data

    def __getattr__(self, name: str) -> Any:  # as gr.EventData
        if name in self._data:
            return self._data[name]
        raise AttributeError(name)


def test_event_text_takes_only_short_text() -> None:
    assert event_text(Event({"a": "gemini-3-flash"}), "a") == "gemini-3-flash"
    assert event_text(Event({"a": "x" * 201}), "a") is None
    assert event_text(Event({"a": ["x"]}), "a") is None
    assert event_text(Event({"a": ""}), "a") is None
    assert event_text(Event({}), "a") is None
    assert event_text(Event(None), "a") is None  # an event sent without data
