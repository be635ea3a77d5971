"""Tests of medqade.stats.bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.stats import bootstrap_indices, resample_weights, stratified_bootstrap_indices


def test_bootstrap_indices_is_one_integers_draw() -> None:
    idx = bootstrap_indices(7, 5, np.random.default_rng(42))
    expected = np.random.default_rng(42).integers(0, 7, size=(5, 7))
    np.testing.assert_array_equal(idx, expected)
    assert idx.shape == (5, 7)


def test_bootstrap_indices_is_reproducible() -> None:
    a = bootstrap_indices(50, 10, np.random.default_rng(3))
    b = bootstrap_indices(50, 10, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)


def test_bootstrap_indices_rejects_non_generator() -> None:
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        bootstrap_indices(5, 5, np.random.RandomState(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["n_units", "n_resamples"])
def test_bootstrap_indices_rejects_non_positive_counts(name: str) -> None:
    args = {"n_units": 5, "n_resamples": 5, name: 0}
    with pytest.raises(ValueError, match=f"`{name}` must be a positive integer"):
        bootstrap_indices(rng=np.random.default_rng(0), **args)


def test_resample_weights_counts_draws_per_row() -> None:
    idx = np.random.default_rng(0).integers(0, 30, size=(40, 30))
    weights = resample_weights(idx, 30)
    assert weights.shape == (40, 30)
    for row, w in zip(idx, weights, strict=True):
        np.testing.assert_array_equal(w, np.bincount(row, minlength=30))
    np.testing.assert_array_equal(weights.sum(axis=1), 30)


def test_resample_weights_rejects_wrong_ndim() -> None:
    with pytest.raises(ValueError, match=r"`indices` must have shape \(R, m\)"):
        resample_weights(np.array([0, 1]), 2)


def test_resample_weights_rejects_float_indices() -> None:
    with pytest.raises(ValueError, match="integer unit indices"):
        resample_weights(np.array([[0.0, 1.0]]), 2)


def test_resample_weights_rejects_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"must lie in 0\.\.1"):
        resample_weights(np.array([[0, 2]]), 2)


def test_stratified_bootstrap_indices_stays_within_strata() -> None:
    strata = np.array(["b", "a", "b", "c", "a", "b", "a", "a"])
    idx = stratified_bootstrap_indices(strata, 500, np.random.default_rng(0))
    assert idx.shape == (500, 8)
    np.testing.assert_array_equal(strata[idx], np.broadcast_to(strata, idx.shape))
    weights = resample_weights(idx, 8)
    for label in ("a", "b", "c"):
        members = strata == label
        np.testing.assert_array_equal(weights[:, members].sum(axis=1), members.sum())
    # every member of a stratum gets drawn somewhere
    assert np.all(weights.sum(axis=0) > 0)


def test_stratified_bootstrap_indices_is_reproducible() -> None:
    strata = np.array([1, 0, 1, 1, 0])
    a = stratified_bootstrap_indices(strata, 10, np.random.default_rng(5))
    b = stratified_bootstrap_indices(strata, 10, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)


def test_stratified_bootstrap_indices_rejects_wrong_ndim() -> None:
    with pytest.raises(ValueError, match=r"`strata` must have shape \(units,\)"):
        stratified_bootstrap_indices(np.zeros((2, 2)), 5, np.random.default_rng(0))


def test_stratified_bootstrap_indices_rejects_empty() -> None:
    with pytest.raises(ValueError, match="`strata` has zero units"):
        stratified_bootstrap_indices(np.array([]), 5, np.random.default_rng(0))
