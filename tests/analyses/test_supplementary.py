"""The heatmap and risk-coverage data against scikit-learn and a sorting loop."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.analyses.report import Report
from medqade.dataset.release import Release

from .helpers import TOL, kappa


def test_physician_kappa_matrix_is_mean_over_slots(release: Release, report: Report) -> None:
    km = report.supplementary.physician_kappa
    labels = release.physician_labels[:, release.is_core]
    assert km.raters == release.roster.physicians
    for i, j in ((0, 1), (2, 9), (4, 7)):
        expected = np.nanmean([kappa(labels[i, :, s], labels[j, :, s]) for s in range(5)])
        assert km.matrix[i, j] == pytest.approx(expected, abs=TOL)
        assert km.matrix[j, i] == km.matrix[i, j]
    assert np.isnan(np.diag(km.matrix)).all()


def test_risk_coverage_matches_loop(release: Release, report: Report) -> None:
    labels = release.evaluator_labels
    consensus = release.consensus
    n_eval = labels.shape[0]
    for e in (0, 7):
        points = []
        for i in range(release.n_items):
            for s in range(5):
                own = int(labels[e, i, s])
                if own not in (0, 1) or consensus[i, s] < 0:
                    continue
                others = [int(labels[o, i, s]) for o in range(n_eval) if o != e]
                given = [x for x in others if x in (0, 1)]
                dis = sum(x != own for x in given) / len(given) if given else 1.0
                points.append((dis, own == consensus[i, s]))
        curve = report.supplementary.risk_coverage[release.roster.evaluator_ids[e]]
        assert curve.n == len(points)
        for u, cov, acc in zip(curve.threshold, curve.coverage, curve.accuracy, strict=True):
            kept = [ok for d, ok in points if d <= u]
            assert cov == pytest.approx(len(kept) / len(points), abs=TOL)
            assert acc == pytest.approx(sum(kept) / len(kept), abs=TOL)
        assert curve.coverage[-1] == 1.0
        assert list(curve.threshold) == sorted(set(d for d, _ in points))
