"""The whole panel: Fleiss' kappa, Gwet's AC1 and the difficulty ICC against independent oracles.

Oracles: statsmodels' ``fleiss_kappa`` (complete data), a plain loop over units of Gwet's (2014)
formulas for missing ratings, pingouin's ``intraclass_corr`` (ICC2: two-way random, absolute
agreement, single rater), and the published worked examples of
Krippendorff (2011, via irrCAC) and Shrout & Fleiss (1979).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from analyses.helpers import pingouin_icc2, statsmodels_fleiss
from medqade import stats
from medqade.dataset.release import Release
from medqade.measures.panel import difficulty_icc, panel_slots
from medqade.measures.seeds import question_weights
from medqade.measures.slots import substantive

from .conftest import RESAMPLES

pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside pingouin

TOL = 1e-12

# Krippendorff (2011), 4 raters x 12 units, values 1..5 coded 0..4, -1 missing.
M = -1
KRIPPENDORFF_2011 = [
    [0, 1, 2, 2, 1, 0, 3, 0, 1, M, M, M],
    [0, 1, 2, 2, 1, 1, 3, 0, 1, 4, M, 2],
    [M, 2, 2, 2, 1, 2, 3, 1, 1, 4, 0, M],
    [0, 1, 2, 2, 1, 3, 3, 0, 1, 4, 0, M],
]
# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges.
SHROUT_FLEISS_1979 = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]


def _loop_coefficients(ratings: np.ndarray, q: int) -> tuple[float, float]:
    """Fleiss' kappa and Gwet's AC1 of ratings (raters, units), -1 missing, by a loop over
    units: p_a over units with two or more ratings, pi_c over units with at least one."""
    agree, n_pairable, shares, n_rated = 0.0, 0, [0.0] * q, 0
    for u in range(ratings.shape[1]):
        values = [int(v) for v in ratings[:, u] if v >= 0]
        r = len(values)
        if r == 0:
            continue
        n_rated += 1
        counts = [values.count(c) for c in range(q)]
        for c in range(q):
            shares[c] += counts[c] / r
        if r >= 2:
            n_pairable += 1
            agree += sum(n * (n - 1) for n in counts) / (r * (r - 1))
    p_a = agree / n_pairable
    pi = [s / n_rated for s in shares]
    pe_fleiss = sum(p * p for p in pi)
    pe_gwet = sum(p * (1 - p) for p in pi) / (q - 1)
    return (p_a - pe_fleiss) / (1 - pe_fleiss), (p_a - pe_gwet) / (1 - pe_gwet)


@pytest.fixture(scope="module")
def core_labels(full: Release) -> np.ndarray:
    return substantive(full.physician_labels[:, full.is_core])


@pytest.fixture(scope="module")
def core_weights(core_labels: np.ndarray) -> np.ndarray:
    return question_weights(core_labels.shape[1], RESAMPLES, seed=4)


# --- the worked examples -------------------------------------------------------------------------


def test_krippendorff_2011_example_fleiss_and_ac1() -> None:
    data = np.array(KRIPPENDORFF_2011)
    assert round(float(stats.fleiss_kappa(data, 5)), 5) == 0.76117
    assert round(float(stats.gwet_ac1(data, 5)), 5) == 0.77544
    fleiss, ac1 = _loop_coefficients(data, 5)
    assert round(fleiss, 5) == 0.76117 and round(ac1, 5) == 0.77544


def test_shrout_fleiss_1979_example_icc21() -> None:
    scores = np.array(SHROUT_FLEISS_1979)
    est = difficulty_icc(scores.T)  # difficulty_icc takes (raters, items)
    assert est.value == pytest.approx(0.289764, abs=5e-7)
    assert pingouin_icc2(scores) == pytest.approx(0.289764, abs=5e-7)
    assert not est.has_interval


# --- Fleiss' kappa and AC1 per slot ------------------------------------------------------------


def test_panel_slots_equal_statsmodels_on_complete_items(
    full: Release, core_labels: np.ndarray
) -> None:
    slots = full.roster.student_ids
    for s, name in enumerate(slots):
        complete = (core_labels[:, :, s] >= 0).all(axis=0)
        assert 20 < complete.sum() < core_labels.shape[1]  # abstentions exist, so do full units
        got = panel_slots(core_labels[:, complete], slots)[name]
        expected = statsmodels_fleiss(core_labels[:, complete, s])
        assert got.fleiss.value == pytest.approx(expected, abs=TOL)


def test_panel_slots_equal_loop_and_stats_with_missing(
    full: Release, core_labels: np.ndarray
) -> None:
    slots = full.roster.student_ids
    got = panel_slots(full.physician_labels[:, full.is_core], slots)  # raw codes: 2 = missing
    for s, name in enumerate(slots):
        fleiss, ac1 = _loop_coefficients(core_labels[:, :, s], 2)
        assert got[name].fleiss.value == pytest.approx(fleiss, abs=TOL)
        assert got[name].ac1.value == pytest.approx(ac1, abs=TOL)
        assert got[name].fleiss.value == float(stats.fleiss_kappa(core_labels[:, :, s], 2))
        assert got[name].ac1.value == float(stats.gwet_ac1(core_labels[:, :, s], 2))
        assert not got[name].fleiss.has_interval


def test_panel_slots_replicates_equal_loop_on_resampled_items(
    full: Release, core_labels: np.ndarray, core_weights: np.ndarray
) -> None:
    slots = full.roster.student_ids
    got = panel_slots(core_labels, slots, core_weights)
    items = np.arange(core_labels.shape[1])
    for s, name in enumerate(slots):
        f_reps, a_reps = got[name].fleiss.replicates, got[name].ac1.replicates
        assert f_reps is not None and a_reps is not None
        assert f_reps.shape == (RESAMPLES,)
        for r in (0, RESAMPLES // 2, RESAMPLES - 1):
            resampled = core_labels[:, np.repeat(items, core_weights[r]), s]
            fleiss, ac1 = _loop_coefficients(resampled, 2)
            assert f_reps[r] == pytest.approx(fleiss, abs=TOL)
            assert a_reps[r] == pytest.approx(ac1, abs=TOL)
        low, high = np.nanpercentile(f_reps, [2.5, 97.5])
        assert got[name].fleiss.ci == pytest.approx((low, high), abs=TOL)
        low, high = np.nanpercentile(a_reps, [2.5, 97.5])
        assert got[name].ac1.ci == pytest.approx((low, high), abs=TOL)


def test_panel_slot_to_dict() -> None:
    data = np.array([[[0], [1], [1]], [[0], [1], [0]], [[0], [1], [1]]])
    out = panel_slots(data, ("m",))["m"].to_dict()
    fleiss, ac1 = _loop_coefficients(data[:, :, 0], 2)
    assert out["fleiss_kappa"] == pytest.approx(fleiss)
    assert out["gwet_ac1"] == pytest.approx(ac1)
    assert all(math.isnan(v) for v in out["fleiss_kappa_ci"])


# --- the difficulty ICC -------------------------------------------------------------------------


def test_difficulty_icc_equals_pingouin_on_core(full: Release) -> None:
    d = full.physician_difficulty[:, full.is_core]
    assert (d >= 0).all()
    est = difficulty_icc(d)
    assert est.value == pytest.approx(pingouin_icc2(d.T), abs=1e-10)
    assert 0.05 < est.value < 0.6


def test_difficulty_icc_drops_items_with_a_missing_score(full: Release) -> None:
    d = full.physician_difficulty[:, full.is_core].copy()
    d[3, 10] = -1
    d[7, 50:55] = -1
    keep = (d >= 0).all(axis=0)
    assert keep.sum() == d.shape[1] - 6
    assert difficulty_icc(d).value == pytest.approx(pingouin_icc2(d[:, keep].T), abs=1e-10)


def test_difficulty_icc_replicates_come_from_the_same_weights(full: Release) -> None:
    d = full.physician_difficulty[:, full.is_core]
    w = question_weights(d.shape[1], RESAMPLES, seed=2)
    est = difficulty_icc(d, w)
    assert est.replicates is not None and est.replicates.shape == (RESAMPLES,)
    items = np.arange(d.shape[1])
    for r in (0, RESAMPLES - 1):
        resampled = d[:, np.repeat(items, w[r])].T  # an item drawn twice enters twice
        assert est.replicates[r] == pytest.approx(pingouin_icc2(resampled), abs=1e-10)
    for r in range(RESAMPLES):
        scores = d[:, np.repeat(items, w[r])].T
        expected = stats.intraclass_correlations(scores).icc2
        assert est.replicates[r] == pytest.approx(expected, abs=TOL)
    low, high = np.percentile(est.replicates, [2.5, 97.5])
    assert est.ci == pytest.approx((low, high), abs=TOL)
    assert est.low < est.value < est.high


def test_difficulty_icc_undefined_is_nan() -> None:
    one_rater = np.array([[0, 1, 2, 1]])
    assert math.isnan(difficulty_icc(one_rater).value)
    one_complete = np.array([[0, -1, 2], [1, 2, -1]])
    est = difficulty_icc(one_complete, np.ones((5, 3), dtype=np.int64))
    assert math.isnan(est.value) and not est.has_interval
