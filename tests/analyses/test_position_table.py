"""Table S7 (position bias of the reference evaluators) and its figure: the numbers are those
of medqade.measures.position on the judgments table, recomputed here from the raw rows."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from medqade import vocab
from medqade.analyses import figures
from medqade.analyses.report import Report
from medqade.dataset.release import Release


def test_s7_lists_every_evaluator_with_scipy_chi_square(report: Report, release: Release) -> None:
    table = next(t for t in report.tables() if t.name == "table_s7_position")
    assert [r[0] for r in table.csv_rows] == list(release.roster.evaluator_ids)
    j = release.judgments
    for row in table.csv_rows:
        mine = j[j["evaluator"] == row[0]]
        counts = np.array(
            [
                [
                    ((mine["position"] == k) & (mine["label"] == lab)).sum()
                    for lab in (vocab.RICHTIG, vocab.FALSCH)
                ]
                for k in range(1, 6)
            ]
        )
        chi2 = chi2_contingency(counts, correction=False).statistic
        col = table.csv_header.index("chi2")
        assert row[col] == pytest.approx(chi2)
        share = counts[:, 0] / counts.sum(axis=1)
        assert [row[1 + 3 * k] for k in range(5)] == pytest.approx(list(share))
        p = row[table.csv_header.index("p_value")]
        assert isinstance(p, float) and 0 < p <= 1
    assert "positions" in report.to_dict()


def test_position_figure_draws_one_series_per_evaluator(report: Report) -> None:
    fig = figures.position_bias(report)
    assert len(fig.axes[0].containers) == len(report.positions or {})
    assert figures.figure_bytes(fig, "png")[:4] == b"\x89PNG"
