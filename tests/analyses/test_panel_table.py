"""Supplementary table S4 carries the panel report's unrounded values in its CSV form."""

from __future__ import annotations

import csv
import io
import math

from medqade.analyses.panel_table import NAME, panel_table
from medqade.analyses.report import Report


def test_report_has_table_s4_with_the_panel_values(report: Report) -> None:
    assert report.panel is not None
    table = next(t for t in report.tables() if t.name == NAME)
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert [r["physician"] for r in rows] == list(report.roster.physicians)
    for r, rater in zip(rows, report.panel.raters, strict=True):
        assert math.isclose(float(r["core_kappa"]), rater.core.kappa.value, rel_tol=1e-12)
        assert math.isclose(float(r["kappa_gap"]), rater.gap.value, rel_tol=1e-12)
        assert r["verdict"] == rater.verdict
    assert "panel" in report.to_dict()


def test_panel_table_markdown_marks_the_adjudicator(report: Report) -> None:
    assert report.panel is not None
    text = panel_table(report.panel).to_markdown()
    assert f"| {report.roster.adjudicator} (adjudicator) |" in text
