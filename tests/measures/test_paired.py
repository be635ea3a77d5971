"""Paired differences, the verdict rule and ranks from paired tests, against plain numpy."""

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
    Ranker,
    difference,
    ranks,
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


# --- ranks ------------------------------------------------------------------------------------


def _brute_ranks(reps: np.ndarray) -> list[int]:
    """1 + the number of rows j whose percentile CI of reps_j - reps_i lies above 0."""
    out = []
    for i in range(reps.shape[0]):
        better = 0
        for j in range(reps.shape[0]):
            if j == i:
                continue
            d = reps[j] - reps[i]
            d = d[~np.isnan(d)]
            low = np.percentile(d, 2.5)
            better += int(low > 0)
        out.append(1 + better)
    return out


def _matrix(seed: int, n: int = 12, r: int = 200) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.3, 0.8, size=n)
    shared = rng.normal(0.0, 0.05, size=r)  # paired: a common resample effect
    return centres[:, None] + shared[None, :] + rng.normal(0.0, 0.03, size=(n, r))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rank_equals_brute_force(seed: int) -> None:
    reps = _matrix(seed)
    if seed == 3:
        reps[2, :7] = np.nan
    rows = [(f"row{i}", reps[i]) for i in range(reps.shape[0])]
    got = ranks(rows)
    assert got == _brute_ranks(reps)
    assert len(set(got)) > 1  # the matrices do separate some rows
    assert min(got) == 1


def test_rank_ties_share_a_rank() -> None:
    rng = np.random.default_rng(8)
    base = rng.normal(0.5, 0.05, 300)
    reps = np.stack([base + 0.5, base + 0.001 * rng.normal(size=300), base, base - 0.5])
    got = ranks([(i, reps[i]) for i in range(4)])
    assert got == _brute_ranks(reps)
    assert got[1] == got[2] == 2
    assert got[0] == 1 and got[3] == 4


def test_rank_of_identical_rows_is_one() -> None:
    reps = np.tile(np.linspace(0.1, 0.9, 50), (5, 1))
    assert ranks([(i, reps[i]) for i in range(5)]) == [1, 1, 1, 1, 1]


def test_rank_is_in_input_order() -> None:
    reps = _matrix(4, n=6)
    rows = [(i, reps[i]) for i in range(6)]
    forward = ranks(rows)
    backward = ranks(rows[::-1])
    assert backward == forward[::-1]


def test_ranker_cache_tests_only_new_pairs() -> None:
    reps = _matrix(5, n=9)
    ranker = Ranker()
    n = 8
    first = ranker.rank([(i, reps[i]) for i in range(n)])
    assert len(ranker) == n * (n - 1)
    assert first == _brute_ranks(reps[:n])
    second = ranker.rank([(i, reps[i]) for i in range(n + 1)])
    assert len(ranker) == n * (n - 1) + 2 * n  # the new row against each of the n others
    assert second == _brute_ranks(reps)
    again = ranker.rank([(i, reps[i]) for i in range(n + 1)])
    assert again == second
    assert len(ranker) == n * (n - 1) + 2 * n


def test_ranker_cache_uses_stored_outcomes() -> None:
    """A cached pair is not retested: changing replicates under an old key changes nothing."""
    reps = _matrix(6, n=3)
    ranker = Ranker()
    before = ranker.rank([(i, reps[i]) for i in range(3)])
    assert before != before[::-1]
    flipped = reps[::-1].copy()
    assert ranker.rank([(i, flipped[i]) for i in range(3)]) == before
    assert Ranker().rank([(i, flipped[i]) for i in range(3)]) == _brute_ranks(flipped)


def test_ranker_better_is_the_paired_test() -> None:
    rng = np.random.default_rng(9)
    base = rng.normal(0.5, 0.05, 300)
    ranker = Ranker()
    ranker.rank([("hi", base + 0.2), ("lo", base), ("same", base + 1e-4 * rng.normal(size=300))])
    assert ranker.better("hi", "lo") is True
    assert ranker.better("lo", "hi") is False
    assert ranker.better("lo", "same") is False and ranker.better("same", "lo") is False
    assert ranker.better("hi", "unknown") is None


def test_rank_rejects_duplicate_keys_and_mixed_resamples() -> None:
    reps = _matrix(7, n=3)
    with pytest.raises(ValueError, match="own key"):
        ranks([("a", reps[0]), ("b", reps[1]), ("a", reps[2])])
    with pytest.raises(ValueError, match="same resamples"):
        ranks([("a", reps[0]), ("b", reps[1][:-1])])
