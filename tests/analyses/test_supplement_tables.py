"""The supplementary tables of a report (:mod:`medqade.analyses.supplement_tables`): S4-S7
each only when the report holds it, and S6's cells the verdicts' unrounded values."""

from __future__ import annotations

import dataclasses

from medqade.analyses.report import Report
from medqade.analyses.supplement_tables import supplement_tables


def test_supplement_tables_are_the_reports_last_and_only_when_present(report: Report) -> None:
    tables = supplement_tables(report)
    assert [t.name for t in tables] == [t.name for t in report.tables()[7:]]
    names = [t.name for t in tables]
    assert "table_s6_verdicts" in names and (report.pool is None) == (
        not any("pool" in n for n in names)
    )
    bare = dataclasses.replace(
        report, panel=None, pool=None, verdicts=None, positions=None, fidelity=None
    )
    assert supplement_tables(bare) == ()


def test_s6_rows_carry_each_verdict(report: Report) -> None:
    table = next(t for t in supplement_tables(report) if t.name == "table_s6_verdicts")
    assert report.verdicts is not None
    found = report.verdicts.evaluators
    assert [r[0] for r in table.csv_rows] == list(found)
    for row, csv_row in zip(table.rows, table.csv_rows, strict=True):
        values = dict(zip(table.csv_header, csv_row, strict=True))
        v = found[csv_row[0]]
        assert values["verdict"] == v.headline.verdict and row[1] == v.headline.verdict
        d = v.headline.difference
        assert d is not None and values["d_kappa"] == d.value
        assert (values["d_kappa_low"], values["d_kappa_high"]) == (d.low, d.high)
        assert row[2] == f"{d.value:.3f} [{d.low:.3f}, {d.high:.3f}]"
        assert values["alt_rho"] == v.alt_test.rho and values["flags"] == ";".join(v.headline.flags)
    assert f"{report.meta['resamples']:,} two-way resamples" in table.note
