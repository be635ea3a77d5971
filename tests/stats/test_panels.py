"""Tests of medqade.stats.panels: every pair of a panel and raters against a reference (oracle:
scikit-learn's cohen_kappa_score per pair, and the plain statistic on resampled data)."""

from __future__ import annotations

import tracemalloc
import warnings
from itertools import combinations

import numpy as np
import pytest

import medqade.stats._validation as validation
from medqade.stats import MISSING, PairAgreement, compare_to_reference, pairwise_panel

from .helpers import bootstrap_setup, plain_pa, random_ratings, sklearn_kappa

SEEDS = [0, 1, 2, 3]


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


def test_panel_means_skip_undefined_pairs_and_all_undefined_is_nan() -> None:
    ratings = np.array([[0, 0, 1], [0, 0, MISSING], [1, 0, 1]])
    panel = pairwise_panel(ratings)
    assert np.isnan(panel.kappa[0])  # raters 0 and 1 both said 0 on their two common units
    assert panel.mean_kappa == pytest.approx(np.nanmean(panel.kappa), abs=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        constant = pairwise_panel(np.zeros((3, 4), dtype=int))
        assert np.all(np.isnan(constant.kappa)) and np.isnan(constant.mean_kappa)


def test_pairwise_panel_rejects_zero_raters() -> None:
    with pytest.raises(ValueError, match="`ratings` has zero raters"):
        pairwise_panel(np.zeros((0, 5), dtype=int))


def test_pairwise_panel_rejects_single_rater() -> None:
    with pytest.raises(ValueError, match="at least two raters"):
        pairwise_panel(np.zeros((1, 5), dtype=int))


def test_compare_to_reference_rejects_unequal_units() -> None:
    with pytest.raises(ValueError, match="must cover the same units"):
        compare_to_reference(np.zeros((2, 3), dtype=int), np.zeros(4, dtype=int))
