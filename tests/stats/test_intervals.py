"""Tests of medqade.stats.intervals."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from medqade.stats import ConfidenceInterval, percentile_ci, wilson_interval


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [  # Newcombe (1998), Table I, method 3
        (81, 263, 0.255289, 0.366210),
        (15, 148, 0.062386, 0.160487),
        (0, 20, 0.0, 0.161125),
        (1, 29, 0.006113, 0.171755),
        (10, 10, 0.722467, 1.0),
    ],
)
def test_wilson_interval_newcombe_examples(k: int, n: int, low: float, high: float) -> None:
    got_low, got_high = wilson_interval(k, n)
    assert isinstance(got_low, float)
    assert got_low == pytest.approx(low, abs=1e-6)
    assert got_high == pytest.approx(high, abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wilson_interval_matches_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 500, size=50)
    k = rng.integers(0, n + 1)
    low, high = wilson_interval(k, n)
    ref_low, ref_high = proportion_confint(k, n, alpha=0.05, method="wilson")
    np.testing.assert_allclose(low, ref_low, rtol=0, atol=1e-9)
    np.testing.assert_allclose(high, ref_high, rtol=0, atol=1e-9)


def test_wilson_interval_vectorised_with_zero_trials() -> None:
    low, high = wilson_interval(np.array([[0, 3], [5, 0]]), np.array([[0, 10], [5, 4]]))
    assert low.shape == high.shape == (2, 2)
    assert np.isnan(low[0, 0]) and np.isnan(high[0, 0])
    assert np.all(np.isfinite(low.ravel()[1:])) and np.all(np.isfinite(high.ravel()[1:]))


def test_wilson_interval_zero_trials_scalar_is_nan() -> None:
    low, high = wilson_interval(0, 0)
    assert np.isnan(low) and np.isnan(high)


def test_wilson_interval_other_z() -> None:
    low, high = wilson_interval(81, 263, z=1.0)
    ref_low, ref_high = proportion_confint(81, 263, alpha=0.3173105078629141, method="wilson")
    assert low == pytest.approx(ref_low, abs=1e-9)
    assert high == pytest.approx(ref_high, abs=1e-9)


def test_wilson_interval_rejects_unbroadcastable_shapes() -> None:
    with pytest.raises(ValueError, match="broadcastable shapes"):
        wilson_interval(np.array([1, 2]), np.array([3, 4, 5]))


def test_wilson_interval_rejects_non_finite() -> None:
    with pytest.raises(ValueError, match="must be finite numbers"):
        wilson_interval(float("nan"), 10)


def test_wilson_interval_rejects_k_above_n() -> None:
    with pytest.raises(ValueError, match=r"0 <= k <= n"):
        wilson_interval(11, 10)


def test_wilson_interval_rejects_bad_z() -> None:
    with pytest.raises(ValueError, match="`z` must be a positive finite number"):
        wilson_interval(1, 10, z=0.0)


def test_percentile_ci_default_is_2_5_and_97_5_percentiles() -> None:
    x = np.random.default_rng(0).normal(size=1000)
    ci = percentile_ci(x)
    assert isinstance(ci, ConfidenceInterval)
    assert ci.low == pytest.approx(np.percentile(x, 2.5), abs=1e-15)
    assert ci.high == pytest.approx(np.percentile(x, 97.5), abs=1e-15)
    assert ci.n_undefined == 0


def test_percentile_ci_drops_and_counts_nan() -> None:
    x = np.random.default_rng(1).normal(size=200)
    with_nan = x.copy()
    with_nan[[3, 50, 77]] = np.nan
    ci = percentile_ci(with_nan, level=0.9)
    kept = np.delete(x, [3, 50, 77])
    assert ci.n_undefined == 3
    assert ci.low == pytest.approx(np.percentile(kept, 5), abs=1e-15)
    assert ci.high == pytest.approx(np.percentile(kept, 95), abs=1e-15)


def test_percentile_ci_trailing_axes_and_axis_argument() -> None:
    x = np.random.default_rng(2).normal(size=(300, 4, 5))
    x[0, 1, 2] = np.nan
    ci = percentile_ci(x)
    assert isinstance(ci.low, np.ndarray) and ci.low.shape == (4, 5)
    assert isinstance(ci.n_undefined, np.ndarray)
    assert ci.n_undefined[1, 2] == 1 and ci.n_undefined.sum() == 1
    np.testing.assert_allclose(ci.low[1, 2], np.percentile(x[1:, 1, 2], 2.5), rtol=0, atol=1e-15)
    moved = percentile_ci(np.moveaxis(x, 0, -1), axis=-1)
    np.testing.assert_array_equal(moved.low, ci.low)
    np.testing.assert_array_equal(moved.high, ci.high)


def test_percentile_ci_all_undefined_gives_nan_without_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = percentile_ci(np.full(10, np.nan))
    assert np.isnan(ci.low) and np.isnan(ci.high) and ci.n_undefined == 10


def test_percentile_ci_rejects_scalar() -> None:
    with pytest.raises(ValueError, match="at least one dimension"):
        percentile_ci(1.0)


def test_percentile_ci_rejects_bad_axis() -> None:
    with pytest.raises(ValueError, match="out of range"):
        percentile_ci(np.ones((3, 2)), axis=2)


def test_percentile_ci_rejects_empty() -> None:
    with pytest.raises(ValueError, match="empty along `axis`"):
        percentile_ci(np.ones((0, 2)))


def test_percentile_ci_rejects_bad_level() -> None:
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        percentile_ci(np.ones(5), level=95)
