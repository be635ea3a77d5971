"""Problems with user files (:mod:`medqade.files.problems`): each names the file, the line or
row, the column, the value and the fix; an ``InputError`` lists them all, up to a cap."""

from __future__ import annotations

import pytest

from medqade.files.problems import MAX_LISTED, InputError, Problem, ProblemLog


def test_a_problem_reads_as_one_line_naming_every_part() -> None:
    full = Problem("a.csv", 3, "unknown label", column="label", value="ja", fix="use Richtig")
    assert str(full) == "a.csv, line 3, column 'label': unknown label (value 'ja'); use Richtig"
    row = Problem("a.parquet", 7, "empty", row_kind="row")
    assert str(row) == "a.parquet, row 7: empty"
    assert str(Problem("a.csv", None, "not UTF-8 text")) == "a.csv: not UTF-8 text"


def test_input_error_lists_every_problem_up_to_the_cap() -> None:
    one = InputError("a.csv", [Problem("a.csv", 2, "bad")])
    assert str(one) == "a.csv: 1 problem found\n  - a.csv, line 2: bad"
    assert isinstance(one, ValueError) and one.what == "a.csv"
    many = [Problem("b.csv", i, "bad") for i in range(2, MAX_LISTED + 12)]
    err = InputError("b.csv", many)
    lines = str(err).splitlines()
    assert lines[0] == f"b.csv: {len(many)} problems found"
    assert len(lines) == 1 + MAX_LISTED + 1 and lines[-1] == "  ... and 10 more problems"
    assert err.problems == many


def test_the_log_raises_for_errors_only() -> None:
    log = ProblemLog()
    log.warn(Problem("c.csv", 4, "odd but usable"))
    log.raise_if_any("c.csv")  # warnings alone never refuse a file
    log.error(Problem("c.csv", 5, "unusable"))
    with pytest.raises(InputError) as caught:
        log.raise_if_any("c.csv")
    assert [p.row for p in caught.value.problems] == [5]
    assert [p.row for p in log.warnings] == [4]
