"""Tests of medqade.stats.fleiss (oracles: statsmodels on complete data, a per-unit loop of
irrCAC's definitions with missing data)."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from medqade.stats import MISSING, fleiss_kappa, fleiss_kappa_from_counts, gwet_ac1

from .helpers import bootstrap_setup, random_ratings

M = MISSING

KRIPPENDORFF_2011 = (
    np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
            [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],
        ]
    )
    - 1
)

# Fleiss (1971): 30 patients (rows) x 6 raters, diagnoses 1..5 (R's irr::diagnoses)
DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
    ]
)  # fmt: skip

# Wikipedia's Fleiss' kappa example: 10 subjects x 5 categories, 14 raters each
WIKIPEDIA_COUNTS = np.array(
    [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]
)  # fmt: skip


def irrcac_loop(ratings: np.ndarray, q: int, chance: str) -> float:
    """irrCAC's fleiss.kappa.raw / gwet.ac1.raw, unit by unit, units without rating dropped."""
    agreements, shares = [], []
    for unit in ratings.T:
        values = unit[unit != MISSING]
        if values.size == 0:
            continue
        r_c = np.array([np.sum(values == c) for c in range(q)], dtype=float)
        shares.append(r_c / values.size)
        if values.size >= 2:
            agreements.append(np.sum(r_c * (r_c - 1)) / (values.size * (values.size - 1)))
    p_a = np.mean(agreements)
    pi = np.mean(shares, axis=0)
    p_e = np.sum(pi**2) if chance == "fleiss" else np.sum(pi * (1 - pi)) / (q - 1)
    return float((p_a - p_e) / (1 - p_e))


def test_fleiss_kappa_fleiss_1971_diagnoses() -> None:
    assert fleiss_kappa(DIAGNOSES.T - 1, k=5) == pytest.approx(0.4302445, abs=1e-7)


def test_fleiss_kappa_from_counts_wikipedia_example() -> None:
    assert fleiss_kappa_from_counts(WIKIPEDIA_COUNTS) == pytest.approx(0.2099307, abs=1e-7)


def test_fleiss_kappa_krippendorff_2011_with_missing_as_irrcac() -> None:
    assert fleiss_kappa(KRIPPENDORFF_2011, k=5) == pytest.approx(0.76117, abs=5e-6)


def test_gwet_ac1_krippendorff_2011_with_missing_as_irrcac() -> None:
    assert gwet_ac1(KRIPPENDORFF_2011, k=5) == pytest.approx(0.77544, abs=5e-6)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_fleiss_kappa_matches_statsmodels_on_complete_data(seed: int, k: int) -> None:
    ratings = random_ratings(seed, raters=10, units=200, k=k, accuracy=0.5, missing=0.0)
    expected = sm_fleiss_kappa(aggregate_raters(ratings.T)[0])
    assert fleiss_kappa(ratings, k=k) == pytest.approx(expected, abs=1e-12)
    table = np.stack([np.sum(ratings == c, axis=0) for c in range(k)], axis=1)
    assert fleiss_kappa_from_counts(table) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [2, 3])
def test_fleiss_and_gwet_match_irrcac_definitions_with_missing(seed: int, k: int) -> None:
    ratings = random_ratings(seed, raters=10, units=200, k=k, missing=0.5)
    ratings[:, :3] = MISSING  # units without any rating are dropped
    ratings[1:, 3] = MISSING  # a unit with a single rating counts in pi only
    assert fleiss_kappa(ratings, k=k) == pytest.approx(irrcac_loop(ratings, k, "fleiss"), abs=1e-9)
    assert gwet_ac1(ratings, k=k) == pytest.approx(irrcac_loop(ratings, k, "gwet"), abs=1e-9)
    table = np.stack([np.sum(ratings == c, axis=0) for c in range(k)], axis=1)
    assert fleiss_kappa_from_counts(table) == pytest.approx(fleiss_kappa(ratings, k=k), abs=1e-12)


def test_gwet_ac1_two_raters_closed_form() -> None:
    # Gwet (2008), two raters: p_e = sum_c pi_c (1 - pi_c) / (q - 1), pi_c = mean marginal
    a = np.array([0, 0, 0, 1, 1, 0, 0, 0, 1, 0])
    b = np.array([0, 0, 1, 1, 0, 0, 0, 0, 1, 0])
    p_a = np.mean(a == b)
    pi_1 = (a.mean() + b.mean()) / 2
    p_e = 2 * pi_1 * (1 - pi_1)
    assert gwet_ac1(np.stack([a, b]), k=2) == pytest.approx((p_a - p_e) / (1 - p_e), abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_fleiss_and_gwet_equal_resampled_data(seed: int) -> None:
    ratings = random_ratings(seed, raters=5, units=60, k=3, missing=0.4)
    ratings[:, 0] = MISSING
    idx, weights = bootstrap_setup(seed, 60, n_resamples=25)
    fleiss = fleiss_kappa(ratings, 3, weights)
    gwet = gwet_ac1(ratings, 3, weights)
    table = np.stack([np.sum(ratings == c, axis=0) for c in range(3)], axis=1)
    from_counts = fleiss_kappa_from_counts(table, weights)
    for r in range(25):
        assert fleiss[r] == pytest.approx(fleiss_kappa(ratings[:, idx[r]], 3), abs=1e-12)
        assert gwet[r] == pytest.approx(gwet_ac1(ratings[:, idx[r]], 3), abs=1e-12)
        assert from_counts[r] == pytest.approx(fleiss[r], abs=1e-12)


def test_fleiss_kappa_single_category_is_nan_and_ac1_is_one() -> None:
    ratings = np.array([[1, 1, M], [1, 1, 1]])
    assert np.isnan(fleiss_kappa(ratings, k=2))
    assert gwet_ac1(ratings, k=2) == pytest.approx(1.0)


def test_fleiss_kappa_without_unit_rated_twice_is_nan() -> None:
    ratings = np.array([[0, M, 1], [M, 1, M]])
    assert np.isnan(fleiss_kappa(ratings, k=2)) and np.isnan(gwet_ac1(ratings, k=2))
    assert np.isnan(fleiss_kappa(np.full((2, 3), M), k=2))


def test_fleiss_kappa_rejects_zero_raters() -> None:
    with pytest.raises(ValueError, match="`ratings` has zero raters"):
        fleiss_kappa(np.zeros((0, 3), dtype=int), k=2)


def test_gwet_ac1_rejects_single_category() -> None:
    with pytest.raises(ValueError, match="`k` must be an integer of at least 2"):
        gwet_ac1(np.zeros((2, 3), dtype=int), k=1)


def test_fleiss_kappa_from_counts_rejects_wrong_ndim() -> None:
    with pytest.raises(ValueError, match=r"`counts` must have shape \(units, k\)"):
        fleiss_kappa_from_counts(np.array([1, 2, 3]))


def test_fleiss_kappa_from_counts_rejects_zero_units() -> None:
    with pytest.raises(ValueError, match="`counts` has zero units"):
        fleiss_kappa_from_counts(np.zeros((0, 3)))


def test_fleiss_kappa_from_counts_rejects_zero_categories() -> None:
    with pytest.raises(ValueError, match="`counts` has zero categories"):
        fleiss_kappa_from_counts(np.zeros((3, 0)))


def test_fleiss_kappa_from_counts_rejects_non_numeric() -> None:
    with pytest.raises(ValueError, match="`counts` must be a numeric array"):
        fleiss_kappa_from_counts(np.array([["a", "b"]]))


def test_fleiss_kappa_from_counts_rejects_fractional_counts() -> None:
    with pytest.raises(ValueError, match="non-negative whole numbers"):
        fleiss_kappa_from_counts(np.array([[1.5, 2.0]]))
