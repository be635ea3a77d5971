"""One value as a display cell: rounding, intervals, counts, percent and percentage points,
flag words and the in-page links."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from medqade.app import cells
from medqade.app.html_table import Link


def test_number_rounds_and_maps_missing_to_nan() -> None:
    assert cells.number(0.123456) == 0.123
    assert math.isnan(cells.number(None)) and math.isnan(cells.number("x"))
    assert math.isnan(cells.number(float("inf"))) and math.isnan(cells.number(True))


def test_ci_text() -> None:
    assert cells.ci_text(0.1, 0.23456) == "0.100 – 0.235"
    assert cells.ci_text(None, 0.2) == "" and cells.ci_text(float("nan"), 1) == ""


def test_compare_link_only_for_safe_tokens() -> None:
    assert cells.compare_link({"source": "paper", "model_id": "gemma3:4b"}) == (
        "[vs physicians](?tab=compare&a=gemma3%3A4b&b=physicians)"
    )
    assert cells.compare_link({"source": "submission", "id": "ab12" * 16}).startswith("[vs")
    assert cells.compare_link({"source": "physicians", "id": "x"}) == ""
    # a hostile id never becomes Markdown
    assert cells.compare_link({"source": "submission", "id": "](javascript:alert(1))"}) == ""
    frame = pd.DataFrame({"compare": ["x"], "kappa": [0.5], "name": ["n"]})
    assert cells.datatypes(frame) == ["markdown", "number", "str"]


def test_flags_as_words_and_abstention_as_percent() -> None:
    assert cells.flag_words("synthetic_data;partial_coverage") == "synthetic data, partial coverage"
    assert cells.flag_words("some_new_flag") == "some new flag"
    assert cells.flag_words(None) == ""
    assert cells.percent(0.0018) == 0.2
    assert math.isnan(cells.percent(None))  # undefined stays empty, never 0


def test_rank_range_text() -> None:
    assert cells.rank_range(1, 1) == "1"
    assert cells.rank_range(2, 7) == "2–7"
    assert cells.rank_range(None, None) == ""
    assert cells.rank_range(pd.NA, pd.NA) == ""


def test_table_links_are_read_back_by_the_select_handlers() -> None:
    """Issue 27: the cells the leaderboard (Markdown) and Compare (a :class:`Link` with the
    item in ``data-mq-item``) link from carry what their select handlers open in place; any
    other value opens nothing."""
    from medqade.app import compare_views

    link = cells.compare_link({"source": "paper", "model_id": "gemma3:4b"})
    assert cells.linked_comparison(link) == ("gemma3:4b", "physicians")
    assert cells.linked_comparison("vs physicians") is None
    assert cells.linked_comparison(0.5) is None
    cell = compare_views.browse_link("S-C01")
    assert cell == Link("S-C01", "?tab=browse&item=S-C01", (("mq-item", "S-C01"),))
    # Compare's click sends the link's data-mq-item; only a safe token opens anything
    assert compare_views.linked_item("S-C01") == "S-C01"
    assert compare_views.linked_item("S-C01/gemma3:4b") is None
    assert compare_views.linked_item("../etc/passwd") is None
    assert compare_views.linked_item(None) is None
    assert compare_views.linked_item(["S-C01"]) is None
    assert compare_views.browse_link("<b>x</b>") == "<b>x</b>"  # text, escaped when drawn


def test_counts_pairs_and_text_cells() -> None:
    assert cells.count(3) == 3.0 and cells.count("7") == 7.0
    assert math.isnan(cells.count(None)) and math.isnan(cells.count(True))
    assert math.isnan(cells.count("x")) and math.isnan(cells.count(float("inf")))
    assert cells.pair([0.1, 0.2]) == (0.1, 0.2) and cells.pair((1, 2)) == (1, 2)
    assert cells.pair("ab") == (None, None) and cells.pair([1, 2, 3]) == (None, None)
    assert cells.pair(None) == (None, None)
    assert cells.as_text(None) == "" and cells.as_text(float("nan")) == ""
    assert cells.as_text(pd.NA) == "" and cells.as_text(np.float64(0.5)) == "0.5"
    assert cells.as_text("Org") == "Org"


def test_points_and_their_interval_in_percentage_points() -> None:
    assert cells.points(0.034) == 3.4 and cells.points(-0.0123) == -1.2
    assert math.isnan(cells.points(None))
    # the ends are rounded once, at the shown digit (0.01249 -> 1.2, not 1.25 -> 1.3)
    assert cells.points_ci(-0.0123, 0.01249) == "-1.2 – 1.2"
    assert cells.points_ci(None, 0.1) == ""
    assert cells.percent(0.5, 0) == 50.0


def test_alt_test_words_and_plain_text() -> None:
    assert [cells.alt_text(x) for x in (True, False, None, 1)] == ["pass", "fail", "", ""]
    assert cells.plain(None) == ""
    assert cells.plain('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
