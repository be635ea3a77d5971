"""RQ1 physician reliability against scikit-learn and krippendorff, slot by slot."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.analyses.report import Report
from medqade.analyses.rq1 import difficulty_alpha, physician_reliability, slot_statistics
from medqade.dataset.release import Release
from medqade.measures.seeds import question_weights

from .helpers import TOL, alpha, panel_means, pingouin_icc2, statsmodels_fleiss, weights_of


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


# --- the whole panel: Fleiss' kappa, Gwet's AC1 and the difficulty ICC --------------------------


def test_panel_coefficients_match_statsmodels_where_all_ten_rated(release: Release) -> None:
    labels = _core_labels(release)
    complete = np.isin(labels, (0, 1)).all(axis=(0, 2))
    assert 10 < complete.sum() < labels.shape[1]
    mask = release.is_core.copy()
    mask[mask] = complete
    result = physician_reliability(release.subset(mask))
    for s, model in enumerate(release.roster.student_ids):
        expected = statsmodels_fleiss(labels[:, complete, s])
        assert result.slots[model].fleiss.value == pytest.approx(expected, abs=TOL)


def test_panel_coefficients_equal_stats_with_missing(release: Release) -> None:
    from medqade import stats
    from medqade.measures.slots import substantive

    labels = substantive(_core_labels(release))
    result = physician_reliability(release)
    for s, model in enumerate(release.roster.student_ids):
        row = result.slots[model]
        assert row.fleiss.value == pytest.approx(stats.fleiss_kappa(labels[:, :, s], 2), abs=TOL)
        assert row.ac1.value == pytest.approx(stats.gwet_ac1(labels[:, :, s], 2), abs=TOL)
        # pairwise mean kappa and Fleiss' kappa are different statistics of the same panel
        assert row.fleiss.value != row.kappa.value
    assert result.mean_fleiss == pytest.approx(
        np.mean([r.fleiss.value for r in result.slots.values()])
    )
    assert result.mean_ac1 == pytest.approx(np.mean([r.ac1.value for r in result.slots.values()]))


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside pingouin
def test_difficulty_icc_matches_pingouin(release: Release) -> None:
    d = release.physician_difficulty[:, release.is_core]
    keep = (d >= 0).all(axis=0)
    result = physician_reliability(release)
    assert result.difficulty_icc.value == pytest.approx(pingouin_icc2(d[:, keep].T), abs=1e-10)
    assert result.difficulty_icc.value != result.difficulty_alpha.value


def test_panel_cis_use_the_core_weights(release: Release) -> None:
    from medqade import stats
    from medqade.measures.slots import substantive

    w = question_weights(200, 50, seed=3)
    result = physician_reliability(release, w)
    labels = substantive(_core_labels(release))
    for s, model in enumerate(release.roster.student_ids):
        row = result.slots[model]
        f_low, f_high = np.nanpercentile(stats.fleiss_kappa(labels[:, :, s], 2, w), [2.5, 97.5])
        a_low, a_high = np.nanpercentile(stats.gwet_ac1(labels[:, :, s], 2, w), [2.5, 97.5])
        assert row.fleiss.ci == pytest.approx((f_low, f_high), abs=TOL)
        assert row.ac1.ci == pytest.approx((a_low, a_high), abs=TOL)
    d = release.physician_difficulty[:, release.is_core]
    items = np.arange(d.shape[1])
    reps = [stats.intraclass_correlations(d[:, np.repeat(items, row)].T).icc2 for row in w]
    low, high = np.percentile(reps, [2.5, 97.5])
    assert result.difficulty_icc.ci == pytest.approx((low, high), abs=TOL)
    assert result.difficulty_icc.low < result.difficulty_icc.value < result.difficulty_icc.high


def test_physician_reliability_to_dict_has_the_panel(report: Report) -> None:
    data = report.rq1.to_dict()
    for model, row in report.rq1.slots.items():
        out = data["slots"][model]
        assert out["fleiss_kappa"] == row.fleiss.value
        assert out["fleiss_kappa_ci"] == [row.fleiss.low, row.fleiss.high]
        assert out["gwet_ac1"] == row.ac1.value
        assert out["gwet_ac1_ci"] == [row.ac1.low, row.ac1.high]
        assert row.fleiss.low < row.fleiss.value < row.fleiss.high
    assert data["mean"]["fleiss_kappa"] == report.rq1.mean_fleiss
    assert data["mean"]["gwet_ac1"] == report.rq1.mean_ac1
    assert data["difficulty_icc"] == report.rq1.difficulty_icc.value
    assert data["difficulty_icc_ci"] == list(report.rq1.difficulty_icc.ci)
