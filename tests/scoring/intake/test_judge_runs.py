"""A judge's repeated runs: rows split by their ``run`` column, files joined as runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from medqade.dataset.release import Release
from medqade.files.problems import ProblemLog
from medqade.scoring import parse_submission
from medqade.scoring.intake.judge_runs import MAX_RUN, RUN_COLUMN, as_run, split_runs, with_runs
from medqade.scoring.intake.upload_cells import LINE, RawTable

from ..helpers import answers_csv, judge_rows


def _table(runs: list[object]) -> RawTable:
    frame = pd.DataFrame(
        {LINE: range(2, 2 + len(runs)), "label": ["Richtig"] * len(runs), RUN_COLUMN: runs},
        dtype=object,
    )
    return RawTable("f.csv", "csv", frame)


def test_split_runs_groups_rows_by_run_in_ascending_order() -> None:
    log = ProblemLog()
    parts = split_runs(_table(["2", "1", "2", "10", "1.0"]), log)
    assert not log.errors
    assert [run for run, _ in parts] == ["1", "2", "10"]
    lines = {run: part.frame[LINE].tolist() for run, part in parts}
    assert lines == {"1": [3, 6], "2": [2, 4], "10": [5]}


def test_split_runs_without_the_column_is_one_run() -> None:
    table = _table(["1"])
    table = RawTable(table.name, table.format, table.frame.drop(columns=[RUN_COLUMN]))
    log = ProblemLog()
    ((run, part),) = split_runs(table, log)
    assert run == "1" and part is table and not log.errors


@pytest.mark.parametrize("bad", ["zwei", "1.5", "-1", str(MAX_RUN + 1), "1e300"])
def test_split_runs_names_a_bad_run(bad: str) -> None:
    log = ProblemLog()
    parts = split_runs(_table(["1", bad]), log)
    (problem,) = log.errors
    assert problem.row == 3 and problem.column == RUN_COLUMN and problem.value == bad
    assert f"at most {MAX_RUN:,}" in str(problem.fix)
    assert len(parts) == 1  # the whole table, so the other checks still run


def test_with_runs_appends_the_other_files_and_keeps_the_first_labels(full: Release) -> None:
    a, b = (
        parse_submission(judge_rows(full, e).to_csv(index=False).encode(), f"{k}.csv", full)
        for k, e in enumerate(("gemini-2.5-flash", "gemma3:4b"))
    )
    joined = with_runs(a, (b,))
    assert [r.run for r in joined.runs] == ["1", "2"]
    assert joined.labels is a.labels
    assert a.labels is not None and b.labels is not None
    assert np.array_equal(joined.runs[1].labels, b.labels)
    assert with_runs(a, ()).runs == ()  # one run: no runs listed
    one = as_run(a, "7")
    assert one.run == "7" and one.present is a.present
    assert np.array_equal(one.positions, np.zeros(a.present.shape, np.int8))


def test_with_runs_only_for_judges(sample: Release) -> None:
    answers = parse_submission(answers_csv(sample, ["x"] * 6).encode(), "a.csv", sample)
    with pytest.raises(ValueError, match="only be combined for judge submissions"):
        with_runs(answers, ())
