"""Tests of medqade.analyses.cells: the report's cell formats and a table's two forms."""

from __future__ import annotations

import csv
import io
import math

from medqade.analyses.cells import NA, Table, est, est_csv, est_pct, num, pct, points, prop
from medqade.analyses.common import Proportion
from medqade.measures.estimate import Estimate

NAN = math.nan


def test_numbers_and_percentages_round_and_say_na_for_nan() -> None:
    assert num(0.12345) == "0.123"
    assert num(0.12345, 1) == "0.1"
    assert pct(0.12345) == "12.3%"
    assert num(NAN) == pct(NAN) == NA


def test_an_estimate_shows_its_interval_only_when_it_has_one() -> None:
    assert est(Estimate(0.5, 0.25, 0.75)) == "0.500 [0.250, 0.750]"
    assert est(Estimate(0.5, NAN, NAN)) == "0.500"
    assert est_pct(Estimate(0.5, 0.25, 0.75)) == "50.0% [25.0, 75.0]"
    assert points(Estimate(-0.012, -0.02, 0.004)) == "-1.2 [-2.0, +0.4]"
    assert points(Estimate(NAN, NAN, NAN)) == NA
    assert est_csv(Estimate(0.5, 0.25, 0.75)) == (0.5, 0.25, 0.75)


def test_a_proportion_names_its_counts_and_an_empty_one_is_na() -> None:
    assert prop(Proportion(3, 4, 0.75, 0.3, 0.95)) == "75.0% (3/4) [30.0, 95.0]"
    assert prop(Proportion(0, 0, NAN, NAN, NAN)) == NA


def test_a_table_writes_markdown_and_csv_with_missing_cells_empty() -> None:
    table = Table(
        name="t",
        title="T",
        header=("who", "value"),
        rows=(("a", "0.500"), ("b", NA)),
        csv_header=("who", "value"),
        csv_rows=(("a", 0.5), ("b", NAN)),
        note="A note.",
    )
    assert table.to_markdown() == (
        "### T\n\n| who | value |\n|---|---:|\n| a | 0.500 |\n| b | n/a |\n\nA note.\n"
    )
    assert list(csv.reader(io.StringIO(table.to_csv()))) == [
        ["who", "value"],
        ["a", "0.5"],
        ["b", ""],
    ]
