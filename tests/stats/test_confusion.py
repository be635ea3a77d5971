"""Tests of medqade.stats.confusion: the cells, counts and statistics of many pairs at once,
against counts by hand, counting in a loop, resampled data and scikit-learn's kappa."""

from __future__ import annotations

import numpy as np
import pytest

import medqade.stats._validation as validation
from medqade.stats import MISSING
from medqade.stats.confusion import cell_counts, pa_kappa_n, pair_cells, pair_statistics

from .helpers import bootstrap_setup, plain_pa, random_ratings, sklearn_kappa


def test_pair_cells_by_hand() -> None:
    first = np.array([[0, 1, 2, MISSING, 1]])
    second = np.array([[0, 2, 1, 0, MISSING]])
    assert pair_cells(first, second, 3).tolist() == [[0, 5, 7, -1, -1]]


def test_cell_counts_equal_a_loop_over_units() -> None:
    ratings = random_ratings(3, raters=4, units=60, k=3)
    cells = pair_cells(ratings[:3], ratings[1:], 3)
    counts = cell_counts(cells, 3, None)
    assert counts.shape == (3, 3, 3)
    for p in range(3):
        expected = np.zeros((3, 3))
        for c, d in zip(ratings[p], ratings[p + 1], strict=True):
            if c != MISSING and d != MISSING:
                expected[c, d] += 1
        np.testing.assert_array_equal(counts[p], expected)


def test_weighted_cell_counts_equal_counts_of_resampled_data() -> None:
    ratings = random_ratings(4, raters=3, units=50)
    idx, weights = bootstrap_setup(4, 50, n_resamples=6)
    cells = pair_cells(ratings[:2], ratings[1:], 2)
    weighted = cell_counts(cells, 2, weights.astype(np.float64))
    assert weighted.shape == (6, 2, 2, 2)
    for r in range(6):
        plain = cell_counts(cells[:, idx[r]], 2, None)
        np.testing.assert_array_equal(weighted[r], plain)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pa_kappa_n_equal_sklearn(seed: int) -> None:
    ratings = random_ratings(seed, raters=5, units=80, k=3)
    cells = pair_cells(ratings[:4], ratings[1:], 3)
    pa, kappa, n = pa_kappa_n(cell_counts(cells, 3, None))
    for p in range(4):
        a, b = ratings[p], ratings[p + 1]
        assert pa[p] == pytest.approx(plain_pa(a, b), abs=1e-12)
        assert kappa[p] == pytest.approx(sklearn_kappa(a, b), abs=1e-12)
        assert n[p] == int(((a != MISSING) & (b != MISSING)).sum())


def test_pa_kappa_n_undefined_cases() -> None:
    counts = np.array([[[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], [[3, 0], [0, 0]]])
    pa, kappa, n = pa_kappa_n(counts)
    assert n.tolist() == [0, 1, 3]
    assert np.isnan(pa[0]) and pa[1:].tolist() == [1.0, 1.0]
    assert np.isnan(kappa).all()  # no unit, one unit, chance agreement 1


def test_pair_statistics_are_the_same_in_small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    ratings = random_ratings(5, raters=4, units=40)
    _, weights = bootstrap_setup(5, 40, n_resamples=9)
    cells = pair_cells(ratings[:3], ratings[1:], 2)
    w = weights.astype(np.float64)
    whole = pair_statistics(cells, 2, w)
    monkeypatch.setattr(validation, "MEMORY_BUDGET_BYTES", 1)  # one replicate per batch
    batched = pair_statistics(cells, 2, w)
    for x, y in zip(whole, batched, strict=True):
        np.testing.assert_array_equal(x, y)
    point = pair_statistics(cells, 2, None)
    for x, y in zip(point, pa_kappa_n(cell_counts(cells, 2, None)), strict=True):
        np.testing.assert_array_equal(x, y)
    assert whole[0].shape == (9, 3)
