"""Tests of medqade.analyses.pool_table: supplementary table S5 (accuracy on the pool)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from medqade.analyses.pool_table import pool_report, pool_table
from medqade.commands.pool_estimate import estimate
from medqade.vocab import DEFAULT_ROSTER


def test_pool_report_uses_first_roster_judge_and_matches_pool_estimate(
    synthetic_build: Path,
) -> None:
    report = pool_report(synthetic_build, DEFAULT_ROSTER)
    assert report is not None and report.judge == DEFAULT_ROSTER.evaluator_ids[0]
    _labels, direct = estimate(str(synthetic_build), report.judge)
    for model, e in report.estimates.items():
        assert e.ppi.estimate == direct[model].ppi.estimate
        assert e.physician_only.ci == direct[model].physician_only.ci


def test_pool_table_rows_in_percent(synthetic_build: Path) -> None:
    report = pool_report(synthetic_build, DEFAULT_ROSTER)
    assert report is not None
    table = pool_table(report, DEFAULT_ROSTER)
    assert len(table.rows) == 5 and "26598 items" in table.title
    first = report.estimates[DEFAULT_ROSTER.student_ids[0]]
    assert table.rows[0][3].startswith(f"{100 * first.ppi.estimate:.1f} [")
    assert table.csv_rows[0][7] == pytest.approx(first.ppi.estimate)
    assert not math.isnan(float(table.csv_rows[0][-1] or math.nan))


def test_pool_report_none_without_pool(built_sample: Path) -> None:
    assert pool_report(built_sample, DEFAULT_ROSTER) is None
