"""The paper's tables of a report (:mod:`medqade.analyses.paper_tables`): Tables 1-4 and S1-S3
carry the report's unrounded values in their CSV form and the same numbers, formatted, in
Markdown."""

from __future__ import annotations

import math

from medqade.analyses.paper_tables import model_name, paper_tables
from medqade.analyses.report import Report


def test_paper_tables_are_the_reports_first_seven(report: Report) -> None:
    tables = paper_tables(report)
    assert [t.name for t in tables] == [t.name for t in report.tables()[:7]]
    assert [t.title.split(".")[0] for t in tables] == [
        "Table 1", "Table 2", "Table 3", "Table 4", "Table S1", "Table S2", "Table S3",
    ]  # fmt: skip
    for table in tables:
        assert len(table.rows) == len(table.csv_rows) > 0
        assert all(len(r) == len(table.header) for r in table.rows)
        assert all(len(r) == len(table.csv_header) for r in table.csv_rows)


def test_model_name_is_the_rosters_display_name(report: Report) -> None:
    for model in report.roster.student_ids:
        assert model_name(report, model) == report.roster.name(model)
    assert model_name(report, "gemini-3-flash-preview") == "Gemini 3 Flash"


def test_table1_has_the_whole_panel(report: Report) -> None:
    table = next(t for t in paper_tables(report) if t.name == "table1_physician_reliability")
    assert table.header[-2:] == ("Fleiss kappa", "Gwet AC1")
    columns = ("fleiss", "fleiss_low", "fleiss_high", "ac1", "ac1_low", "ac1_high")
    assert table.csv_header[-6:] == columns
    rq1 = report.rq1
    for (model, slot), row, csv_row in zip(
        rq1.slots.items(), table.rows, table.csv_rows, strict=False
    ):
        assert csv_row[0] == model
        values = dict(zip(table.csv_header, csv_row, strict=True))
        assert values["fleiss"] == slot.fleiss.value
        assert (values["fleiss_low"], values["fleiss_high"]) == slot.fleiss.ci
        assert values["ac1"] == slot.ac1.value
        assert (values["ac1_low"], values["ac1_high"]) == slot.ac1.ci
        f = slot.fleiss
        assert row[-2] == f"{f.value:.3f} [{f.low:.3f}, {f.high:.3f}]"
        assert row[-1].startswith(f"{slot.ac1.value:.3f} [")
    mean_md, mean_csv = table.rows[-1], table.csv_rows[-1]
    assert mean_md[0] == "**Mean**" and mean_csv[0] == "mean"
    assert mean_md[-2:] == (f"{rq1.mean_fleiss:.3f}", f"{rq1.mean_ac1:.3f}")
    means = dict(zip(table.csv_header, mean_csv, strict=True))
    assert means["fleiss"] == rq1.mean_fleiss
    assert isinstance(means["fleiss_low"], float) and math.isnan(means["fleiss_low"])
    assert means["ac1"] == rq1.mean_ac1
    icc = rq1.difficulty_icc
    assert "ICC(2,1)" in table.note
    assert f"{icc.value:.3f} [{icc.low:.3f}, {icc.high:.3f}]" in table.note
    assert "Difficulty alpha" in table.note
