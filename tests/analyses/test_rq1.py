"""RQ1 physician reliability against scikit-learn and krippendorff, slot by slot."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.measures.seeds import question_weights
from medqade.analyses.report import Report
from medqade.analyses.rq1 import difficulty_alpha, physician_reliability, slot_statistics
from medqade.release import Release

from .helpers import TOL, alpha, panel_means, weights_of


def _core_labels(release: Release) -> np.ndarray:
    return release.physician_labels[:, release.is_core]


def test_physician_reliability_matches_sklearn_and_krippendorff(release: Release) -> None:
    result = physician_reliability(release)
    labels = _core_labels(release)
    for s, model in enumerate(release.roster.student_ids):
        k, p = panel_means(labels[:, :, s])
        row = result.slots[model]
        assert row.kappa.value == pytest.approx(k, abs=TOL)
        assert row.pa.value == pytest.approx(p, abs=TOL)
        assert row.pabak.value == pytest.approx(2 * p - 1, abs=TOL)
        assert row.alpha.value == pytest.approx(alpha(labels[:, :, s]), abs=TOL)
    assert result.n_items == 200
    assert result.n_raters == 10


def test_physician_reliability_mean_row_is_unweighted_slot_mean(report: Report) -> None:
    rows = report.rq1.slots.values()
    assert report.rq1.mean_kappa == pytest.approx(np.mean([r.kappa.value for r in rows]))
    assert report.rq1.mean_alpha == pytest.approx(np.mean([r.alpha.value for r in rows]))
    assert report.rq1.mean_pa == pytest.approx(np.mean([r.pa.value for r in rows]))
    assert report.rq1.mean_pabak == pytest.approx(2 * report.rq1.mean_pa - 1)


def test_difficulty_alpha_is_interval_alpha_on_scores(release: Release) -> None:
    d = release.physician_difficulty[:, release.is_core]
    expected = alpha(d, level="interval", valid=(0, 1, 2))
    assert difficulty_alpha(d).value == pytest.approx(expected, abs=TOL)


def test_slot_statistics_replicates_equal_loop_on_resampled_items(
    release: Release, core_indices: np.ndarray
) -> None:
    labels = _core_labels(release)
    reps = slot_statistics(labels, weights_of(core_indices, labels.shape[1]))
    for r in (0, 3, 5):
        resampled = labels[:, core_indices[r]]
        for s in range(5):
            k, p = panel_means(resampled[:, :, s])
            assert reps.kappa[r, s] == pytest.approx(k, abs=TOL)
            assert reps.pa[r, s] == pytest.approx(p, abs=TOL)
            assert reps.alpha[r, s] == pytest.approx(alpha(resampled[:, :, s]), abs=TOL)


def test_difficulty_alpha_replicate_equals_loop(release: Release, core_indices: np.ndarray) -> None:
    d = release.physician_difficulty[:, release.is_core].astype(np.int64)
    from medqade import stats

    reps = stats.krippendorff_alpha(d, "interval", 3, weights_of(core_indices, d.shape[1]))
    for r in (1, 4):
        expected = alpha(d[:, core_indices[r]], level="interval", valid=(0, 1, 2))
        assert reps[r] == pytest.approx(expected, abs=TOL)


def test_physician_reliability_pabak_ci_is_linear_map_of_pa_ci(report: Report) -> None:
    for row in report.rq1.slots.values():
        assert row.pabak.low == pytest.approx(2 * row.pa.low - 1)
        assert row.pabak.high == pytest.approx(2 * row.pa.high - 1)
        assert row.kappa.low <= row.kappa.value <= row.kappa.high


def test_physician_reliability_ci_is_percentile_of_replicates(release: Release) -> None:
    w = question_weights(200, 50, seed=3)
    result = physician_reliability(release, w)
    reps = slot_statistics(_core_labels(release), w)
    low, high = np.percentile(reps.kappa[:, 0], [2.5, 97.5])
    first = result.slots[release.roster.student_ids[0]]
    assert (first.kappa.low, first.kappa.high) == pytest.approx((low, high), abs=TOL)


def test_physician_reliability_without_core_raises(release: Release) -> None:
    ext = release.subset(~release.is_core)
    with pytest.raises(ValueError, match="no core items"):
        physician_reliability(ext)
