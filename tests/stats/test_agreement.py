"""Tests of medqade.stats.agreement (oracle: scikit-learn's cohen_kappa_score)."""

from __future__ import annotations

import tracemalloc
import warnings
from itertools import combinations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

import medqade.stats._validation as validation
from medqade.stats import (
    MISSING,
    PairAgreement,
    cohen_kappa,
    compare_to_reference,
    confusion_counts,
    pabak,
    pairwise_panel,
    percent_agreement,
)

from .helpers import bootstrap_setup, random_ratings, table_to_ratings

SEEDS = [0, 1, 2, 3]


def sklearn_kappa(a: np.ndarray, b: np.ndarray) -> float:
    keep = (a != MISSING) & (b != MISSING)
    if not keep.any():
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(a[keep], b[keep], replace_undefined_by=np.nan))


def plain_pa(a: np.ndarray, b: np.ndarray) -> float:
    keep = (a != MISSING) & (b != MISSING)
    return float(np.mean(a[keep] == b[keep])) if keep.any() else float("nan")


# --------------------------------------------------------------------------- published values


def test_cohen_kappa_published_2x2_table() -> None:
    a, b = table_to_ratings([[20, 5], [10, 15]])
    assert cohen_kappa(a, b) == pytest.approx(0.4, abs=1e-12)
    np.testing.assert_array_equal(confusion_counts(a, b), [[20, 5], [10, 15]])


@pytest.mark.parametrize(
    ("table", "kappa"),
    [([[40, 9], [6, 45]], 0.6995), ([[80, 10], [5, 5]], 0.3182)],
)
def test_cohen_kappa_prevalence_paradox(table: list[list[int]], kappa: float) -> None:
    a, b = table_to_ratings(table)
    assert cohen_kappa(a, b) == pytest.approx(kappa, abs=5e-5)
    assert percent_agreement(a, b) == pytest.approx(0.85, abs=1e-12)
    assert pabak(percent_agreement(a, b)) == pytest.approx(0.70, abs=1e-12)


# --------------------------------------------------------------------------- oracle comparisons


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [2, 3])
def test_cohen_kappa_matches_sklearn_with_missing(seed: int, k: int) -> None:
    ratings = random_ratings(seed, raters=4, k=k)
    for i, j in combinations(range(4), 2):
        assert cohen_kappa(ratings[i], ratings[j], k=k) == pytest.approx(
            sklearn_kappa(ratings[i], ratings[j]), abs=1e-9
        )
        assert percent_agreement(ratings[i], ratings[j], k=k) == pytest.approx(
            plain_pa(ratings[i], ratings[j]), abs=1e-12
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [2, 3])
def test_pairwise_panel_matches_sklearn_for_every_pair(seed: int, k: int) -> None:
    ratings = random_ratings(seed, raters=10, units=200, k=k)
    panel = pairwise_panel(ratings, k=k)
    expected_pairs = list(combinations(range(10), 2))
    assert panel.pairs.tolist() == [list(p) for p in expected_pairs]
    kappas = [sklearn_kappa(ratings[i], ratings[j]) for i, j in expected_pairs]
    pas = [plain_pa(ratings[i], ratings[j]) for i, j in expected_pairs]
    ns = [np.sum((ratings[i] != MISSING) & (ratings[j] != MISSING)) for i, j in expected_pairs]
    np.testing.assert_allclose(panel.kappa, kappas, rtol=0, atol=1e-9)
    np.testing.assert_allclose(panel.pa, pas, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(panel.n, ns)
    assert panel.mean_kappa == pytest.approx(np.mean(kappas), abs=1e-9)
    assert panel.mean_pa == pytest.approx(np.mean(pas), abs=1e-12)
    assert panel.mean_pa.shape == ()


def test_confusion_counts_excludes_missing_pairwise() -> None:
    a = np.array([0, 1, 1, MISSING, 2, 2])
    b = np.array([0, 1, 0, 1, MISSING, 2])
    np.testing.assert_array_equal(confusion_counts(a, b, k=3), [[1, 0, 0], [1, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("seed", SEEDS)
def test_compare_to_reference_matches_sklearn(seed: int) -> None:
    ratings = random_ratings(seed, raters=6)
    reference = random_ratings(seed + 100, raters=1)[0]
    res = compare_to_reference(ratings, reference)
    assert isinstance(res, PairAgreement)
    assert res.kappa.shape == res.pa.shape == res.pabak.shape == res.n.shape == (6,)
    for r in range(6):
        assert res.kappa[r] == pytest.approx(sklearn_kappa(ratings[r], reference), abs=1e-9)
        assert res.pa[r] == pytest.approx(plain_pa(ratings[r], reference), abs=1e-12)
        assert res.pabak[r] == pytest.approx(2 * plain_pa(ratings[r], reference) - 1, abs=1e-12)
    single = compare_to_reference(ratings[2], reference)
    assert single.kappa.shape == ()
    assert single.kappa == pytest.approx(res.kappa[2], abs=1e-15)
    assert single.n == np.sum((ratings[2] != MISSING) & (reference != MISSING))


def test_compare_to_reference_pabak_uses_design_k() -> None:
    res = compare_to_reference([0, 1, 1, 0], [0, 1, 0, 0], k=3)
    assert res.pa == pytest.approx(0.75)
    assert res.pabak == pytest.approx((3 * 0.75 - 1) / 2)


def test_pabak_formula_and_array() -> None:
    assert pabak(0.85) == pytest.approx(0.7)
    assert pabak(0.5, k=3) == pytest.approx(0.25)
    out = pabak(np.array([0.5, np.nan, 1.0]))
    np.testing.assert_allclose(out, [0.0, np.nan, 1.0])


# --------------------------------------------------------------------------- bootstrap weights


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_two_rater_statistics_equal_resampled_data(seed: int) -> None:
    ratings = random_ratings(seed, raters=2, units=60, k=3)
    idx, weights = bootstrap_setup(seed, 60, n_resamples=30)
    a, b = ratings
    kappa = cohen_kappa(a, b, k=3, weights=weights)
    pa = percent_agreement(a, b, 3, weights)
    counts = confusion_counts(a, b, k=3, weights=weights)
    assert kappa.shape == pa.shape == (30,) and counts.shape == (30, 3, 3)
    for r in range(30):
        assert kappa[r] == pytest.approx(cohen_kappa(a[idx[r]], b[idx[r]], k=3), abs=1e-12)
        assert pa[r] == pytest.approx(percent_agreement(a[idx[r]], b[idx[r]], k=3), abs=1e-12)
        np.testing.assert_array_equal(counts[r], confusion_counts(a[idx[r]], b[idx[r]], k=3))


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_panel_equals_resampled_data(seed: int) -> None:
    ratings = random_ratings(seed, raters=10, units=80)
    idx, weights = bootstrap_setup(seed, 80, n_resamples=25)
    panel = pairwise_panel(ratings, weights=weights)
    assert panel.kappa.shape == panel.pa.shape == panel.n.shape == (25, 45)
    assert panel.mean_kappa.shape == panel.mean_pa.shape == (25,)
    for r in range(25):
        plain = pairwise_panel(ratings[:, idx[r]])
        np.testing.assert_allclose(panel.kappa[r], plain.kappa, rtol=0, atol=1e-12)
        np.testing.assert_allclose(panel.pa[r], plain.pa, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(panel.n[r], plain.n)
        assert panel.mean_kappa[r] == pytest.approx(plain.mean_kappa, abs=1e-12)
        assert panel.mean_pa[r] == pytest.approx(plain.mean_pa, abs=1e-12)


def test_weighted_compare_to_reference_equals_resampled_data() -> None:
    ratings = random_ratings(7, raters=3, units=50)
    reference = random_ratings(8, raters=1, units=50)[0]
    idx, weights = bootstrap_setup(7, 50, n_resamples=15)
    res = compare_to_reference(ratings, reference, weights=weights)
    assert res.kappa.shape == (15, 3)
    for r in range(15):
        plain = compare_to_reference(ratings[:, idx[r]], reference[idx[r]])
        np.testing.assert_allclose(res.kappa[r], plain.kappa, rtol=0, atol=1e-12)
        np.testing.assert_allclose(res.pabak[r], plain.pabak, rtol=0, atol=1e-12)


def test_weighted_panel_is_the_same_in_small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    ratings = random_ratings(11, raters=5, units=40)
    _, weights = bootstrap_setup(11, 40, n_resamples=17)
    whole = pairwise_panel(ratings, weights=weights)
    monkeypatch.setattr(validation, "MEMORY_BUDGET_BYTES", 1)  # one replicate per batch
    batched = pairwise_panel(ratings, weights=weights)
    np.testing.assert_array_equal(batched.kappa, whole.kappa)
    np.testing.assert_array_equal(batched.pa, whole.pa)


def test_weighted_panel_memory_bound_1000_resamples_45_pairs() -> None:
    ratings = random_ratings(0, raters=10, units=200)
    weights = np.random.default_rng(0).multinomial(200, np.full(200, 1 / 200), size=1000)
    tracemalloc.start()
    try:
        panel = pairwise_panel(ratings, weights=weights)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert panel.kappa.shape == (1000, 45)
    assert np.all(np.isfinite(panel.mean_kappa))
    assert peak < 64 * 2**20


# --------------------------------------------------------------------------- degenerate cases


def test_cohen_kappa_is_nan_when_chance_agreement_is_one() -> None:
    a = np.array([1, 1, 1, MISSING])
    b = np.array([1, 1, 1, 0])
    assert np.isnan(cohen_kappa(a, b))
    assert percent_agreement(a, b) == 1.0


def test_cohen_kappa_is_nan_for_a_single_pairable_unit() -> None:
    a = np.array([1, MISSING, 0])
    b = np.array([0, 1, MISSING])
    assert np.isnan(cohen_kappa(a, b))  # scikit-learn says 0.0 here
    assert percent_agreement(a, b) == 0.0


def test_no_pairable_unit_gives_nan_pa_and_kappa() -> None:
    a = np.array([1, MISSING])
    b = np.array([MISSING, 0])
    assert np.isnan(cohen_kappa(a, b)) and np.isnan(percent_agreement(a, b))
    res = compare_to_reference(a, b)
    assert np.isnan(res.pa) and np.isnan(res.pabak) and res.n == 0


def test_panel_means_skip_undefined_pairs_and_all_undefined_is_nan() -> None:
    ratings = np.array([[0, 0, 1], [0, 0, MISSING], [1, 0, 1]])
    panel = pairwise_panel(ratings)
    assert np.isnan(panel.kappa[0])  # raters 0 and 1 both said 0 on their two common units
    assert panel.mean_kappa == pytest.approx(np.nanmean(panel.kappa), abs=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        constant = pairwise_panel(np.zeros((3, 4), dtype=int))
        assert np.all(np.isnan(constant.kappa)) and np.isnan(constant.mean_kappa)


def test_weighted_kappa_replicate_on_one_unit_is_nan() -> None:
    a = np.array([0, 1, 0, 1])
    b = np.array([0, 1, 1, 1])
    weights = np.array([[4, 0, 0, 0], [1, 1, 1, 1]])
    kappa = cohen_kappa(a, b, weights=weights)
    assert np.isnan(kappa[0]) and kappa[1] == pytest.approx(cohen_kappa(a, b))


# --------------------------------------------------------------------------- input errors


def test_cohen_kappa_rejects_empty_input() -> None:
    with pytest.raises(ValueError, match="`a` has zero units"):
        cohen_kappa(np.array([], dtype=int), np.array([], dtype=int))


def test_cohen_kappa_rejects_wrong_ndim() -> None:
    with pytest.raises(ValueError, match=r"`a` must have shape \(units,\)"):
        cohen_kappa(np.zeros((2, 2), dtype=int), np.zeros(2, dtype=int))


def test_cohen_kappa_rejects_float_codes() -> None:
    with pytest.raises(ValueError, match="must hold integer category codes"):
        cohen_kappa(np.array([0.0, 1.0]), np.array([0, 1]))


def test_cohen_kappa_rejects_codes_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"`b` must hold codes 0\.\.1 or MISSING \(-1\)"):
        cohen_kappa(np.array([0, 1]), np.array([0, 2]))


def test_cohen_kappa_rejects_bad_k() -> None:
    with pytest.raises(ValueError, match="`k` must be an integer of at least 2"):
        cohen_kappa(np.array([0, 1]), np.array([0, 1]), k=1)


def test_cohen_kappa_rejects_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="must rate the same units"):
        cohen_kappa(np.array([0, 1]), np.array([0, 1, 1]))


def test_weights_rejects_wrong_shape() -> None:
    with pytest.raises(ValueError, match=r"`weights` must have shape \(R, 2\)"):
        cohen_kappa(np.array([0, 1]), np.array([0, 1]), weights=np.ones((3, 4)))


def test_weights_rejects_zero_resamples() -> None:
    with pytest.raises(ValueError, match="`weights` has zero resamples"):
        cohen_kappa(np.array([0, 1]), np.array([0, 1]), weights=np.ones((0, 2)))


def test_weights_rejects_non_numeric() -> None:
    with pytest.raises(ValueError, match="`weights` must be a numeric array"):
        cohen_kappa(np.array([0, 1]), np.array([0, 1]), weights=np.ones((1, 2), dtype=bool))


def test_weights_rejects_negative() -> None:
    with pytest.raises(ValueError, match="finite and non-negative"):
        cohen_kappa(np.array([0, 1]), np.array([0, 1]), weights=np.array([[1, -1]]))


def test_pairwise_panel_rejects_zero_raters() -> None:
    with pytest.raises(ValueError, match="`ratings` has zero raters"):
        pairwise_panel(np.zeros((0, 5), dtype=int))


def test_pairwise_panel_rejects_single_rater() -> None:
    with pytest.raises(ValueError, match="at least two raters"):
        pairwise_panel(np.zeros((1, 5), dtype=int))


def test_compare_to_reference_rejects_unequal_units() -> None:
    with pytest.raises(ValueError, match="must cover the same units"):
        compare_to_reference(np.zeros((2, 3), dtype=int), np.zeros(4, dtype=int))


def test_pabak_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"`pa` must lie in \[0, 1\]"):
        pabak(1.5)
