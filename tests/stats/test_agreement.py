"""Tests of medqade.stats.agreement (oracle: scikit-learn's cohen_kappa_score)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from medqade.stats import (
    MISSING,
    cohen_kappa,
    compare_to_reference,
    confusion_counts,
    pabak,
    percent_agreement,
)

from .helpers import bootstrap_setup, plain_pa, random_ratings, sklearn_kappa, table_to_ratings

SEEDS = [0, 1, 2, 3]


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


def test_confusion_counts_excludes_missing_pairwise() -> None:
    a = np.array([0, 1, 1, MISSING, 2, 2])
    b = np.array([0, 1, 0, 1, MISSING, 2])
    np.testing.assert_array_equal(confusion_counts(a, b, k=3), [[1, 0, 0], [1, 1, 0], [0, 0, 1]])


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


def test_pabak_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"`pa` must lie in \[0, 1\]"):
        pabak(1.5)
