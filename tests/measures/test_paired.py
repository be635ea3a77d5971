"""Paired differences and the verdict rule, against plain numpy (ranks: test_ranking.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from medqade.measures import paired
from medqade.measures.estimate import Estimate
from medqade.measures.paired import (
    ABOVE,
    BELOW,
    INCONCLUSIVE,
    INFERIOR,
    NON_INFERIOR,
    NON_INFERIOR_BELOW,
    difference,
    verdict,
    verdict_of_bounds,
)


def _estimate(rng: np.random.Generator, centre: float, r: int = 400) -> Estimate:
    reps = centre + rng.normal(0.0, 0.05, size=r)
    return Estimate.from_replicates(float(centre), reps)


# --- difference -------------------------------------------------------------------------------


def test_difference_value_and_percentile_ci() -> None:
    rng = np.random.default_rng(1)
    a, b = _estimate(rng, 0.7), _estimate(rng, 0.6)
    assert a.replicates is not None and b.replicates is not None
    d = difference(a, b)
    assert d.value == a.value - b.value
    diffs = a.replicates - b.replicates
    low, high = np.percentile(diffs, [2.5, 97.5])
    assert (d.low, d.high) == pytest.approx((low, high), abs=1e-15)
    assert d.replicates is not None
    np.testing.assert_array_equal(d.replicates, diffs)


def test_difference_drops_undefined_replicates() -> None:
    rng = np.random.default_rng(2)
    ra = rng.normal(0.5, 0.1, 300)
    rb = rng.normal(0.4, 0.1, 300)
    ra[[3, 17, 40]] = np.nan
    rb[[17, 99]] = np.nan
    d = difference(Estimate.from_replicates(0.5, ra), Estimate.from_replicates(0.4, rb))
    diffs = ra - rb
    kept = diffs[~np.isnan(diffs)]
    assert kept.size == 296
    low, high = np.percentile(kept, [2.5, 97.5])
    assert (d.low, d.high) == pytest.approx((low, high), abs=1e-15)
    assert d.n_undefined == 4


def test_difference_with_itself_is_zero() -> None:
    x = _estimate(np.random.default_rng(3), 0.42)
    d = difference(x, x)
    assert d.value == 0.0
    assert (d.low, d.high) == (0.0, 0.0)
    assert verdict(d) == NON_INFERIOR


def test_difference_without_replicates_has_nan_bounds() -> None:
    x = _estimate(np.random.default_rng(4), 0.3)
    d = difference(x, Estimate(0.1, 0.0, 0.2))
    assert d.value == pytest.approx(0.2)
    assert math.isnan(d.low) and math.isnan(d.high)
    assert verdict(d) is None


def test_difference_of_mismatched_resamples_raises() -> None:
    rng = np.random.default_rng(5)
    with pytest.raises(ValueError, match="same resamples"):
        difference(_estimate(rng, 0.5, r=100), _estimate(rng, 0.5, r=101))


# --- verdict ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [
        (0.01, 0.2, ABOVE),
        (1e-12, 0.2, ABOVE),
        (0.0, 0.2, NON_INFERIOR),  # low exactly 0 is not above
        (-0.049, 0.01, NON_INFERIOR),
        (-0.05, 0.01, INCONCLUSIVE),  # low exactly -m is not non-inferior
        (-0.2, -0.0501, INFERIOR),
        (-0.2, -0.05, BELOW),  # high exactly -m is not inferior, but below 0
        (-0.3, 0.1, INCONCLUSIVE),
        (-0.3, 0.0, INCONCLUSIVE),  # high exactly 0 is not below
        (-0.3, -1e-12, BELOW),
        (-0.049, -0.001, NON_INFERIOR_BELOW),
        (-0.049, 0.0, NON_INFERIOR),
    ],
)
def test_verdict_of_bounds_at_the_boundaries(low: float, high: float, expected: str) -> None:
    assert verdict_of_bounds(low, high, 0.05) == expected
    assert verdict(Estimate((low + high) / 2, low, high), 0.05) == expected


def test_verdict_uses_the_margin() -> None:
    assert verdict_of_bounds(-0.08, 0.02, 0.05) == INCONCLUSIVE
    assert verdict_of_bounds(-0.08, 0.02, 0.1) == NON_INFERIOR
    assert verdict_of_bounds(-0.2, -0.08, 0.05) == INFERIOR
    assert verdict_of_bounds(-0.2, -0.08, 0.1) == BELOW
    assert verdict_of_bounds(-0.2, 0.01, 0.1) == INCONCLUSIVE
    assert verdict_of_bounds(-0.01, 0.02, 0.0) == INCONCLUSIVE
    assert verdict_of_bounds(-0.2, -0.01, 0.0) == INFERIOR
    assert paired.DEFAULT_MARGIN == 0.05
    assert verdict(Estimate(0.0, -0.049, 0.01)) == NON_INFERIOR  # default margin


@pytest.mark.parametrize(
    ("low", "high"), [(math.nan, 0.1), (0.1, math.nan), (None, 0.1), (0.1, None)]
)
def test_verdict_of_undefined_bounds_is_none(low: float | None, high: float | None) -> None:
    assert verdict_of_bounds(low, high, 0.05) is None


def test_verdict_of_undefined_difference_is_none() -> None:
    assert verdict(Estimate(math.nan, 0.1, 0.2)) is None
    assert verdict(Estimate(0.1, math.nan, math.nan)) is None


@pytest.mark.parametrize("bad", [-0.01, 1.01, math.nan, math.inf, True, False, "0.05", None])
def test_invalid_margin_raises(bad: object) -> None:
    with pytest.raises(ValueError, match="margin"):
        verdict_of_bounds(-0.01, 0.1, bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="margin"):
        verdict(Estimate(math.nan, math.nan, math.nan), bad)  # type: ignore[arg-type]


def test_margin_bounds_are_accepted() -> None:
    assert paired.check_margin(0) == 0.0
    assert paired.check_margin(1) == 1.0


def test_verdicts_constant_lists_all_six_best_first() -> None:
    assert paired.VERDICTS == (
        ABOVE,
        NON_INFERIOR,
        NON_INFERIOR_BELOW,
        INCONCLUSIVE,
        BELOW,
        INFERIOR,
    )
