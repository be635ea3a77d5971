"""Rank intervals from simultaneous paired intervals (max-T), against a brute-force reference."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from medqade.measures.ranking import (
    Ranker,
    RankInterval,
    critical_value,
    rank_intervals,
    ranks,
)


def _brute(est: np.ndarray, reps: np.ndarray, level: float = 0.95) -> tuple[list[int], list[int]]:
    """Max-T over every pair written out: per resample the largest |centred difference| of any
    pair defined in it, its quantile, and each pair's interval d_ij +- c tested against 0."""
    k, r = reps.shape
    stat = np.full(r, -np.inf)
    for i, j in itertools.combinations(range(k), 2):
        centred = np.abs((reps[i] - reps[j]) - (est[i] - est[j]))
        centred = np.where(np.isnan(centred), -np.inf, centred)
        stat = np.maximum(stat, centred)
    crit = float(np.quantile(stat[np.isfinite(stat)], level))
    best, worst = [], []
    for i in range(k):
        better = sum(1 for j in range(k) if j != i and (est[j] - est[i]) - crit > 0)
        lower = sum(1 for j in range(k) if j != i and (est[i] - est[j]) - crit > 0)
        best.append(1 + better)
        worst.append(k - lower)
    return best, worst


def _board(seed: int, n: int = 12, r: int = 300, spread: float = 0.15) -> tuple:
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.5 - spread, 0.5 + spread, size=n)
    shared = rng.normal(0.0, 0.05, size=r)  # paired: a common resample effect
    reps = centres[:, None] + shared[None, :] + rng.normal(0.0, 0.02, size=(n, r))
    est = centres + rng.normal(0.0, 0.005, size=n)
    return est, reps


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rank_intervals_equal_brute_force_max_t(seed: int) -> None:
    est, reps = _board(seed)
    if seed == 3:
        reps[2, :7] = np.nan  # undefined replicates: pairs with row 2 drop those resamples
        reps[5, 3] = np.nan
    best, worst, _ = rank_intervals(est, reps)
    assert (best.tolist(), worst.tolist()) == _brute(est, reps)
    assert len(set(best.tolist())) > 1  # the boards do separate some rows
    assert min(best) == 1 and max(worst) == len(est)
    assert np.all(best <= worst)


def test_critical_value_is_the_quantile_of_the_range() -> None:
    est, reps = _board(4, n=6)
    centred = reps - est[:, None]
    expected = np.quantile(centred.max(axis=0) - centred.min(axis=0), 0.95)
    assert critical_value(est, reps) == pytest.approx(expected, abs=1e-15)
    assert math.isnan(critical_value(est[:1], reps[:1]))


def test_identical_judges_all_share_best_rank_one() -> None:
    """Ten copies of one judge with small independent noise: none is significantly better."""
    rng = np.random.default_rng(11)
    shared = rng.normal(0.0, 0.03, size=1000)
    reps = 0.6 + shared[None, :] + rng.normal(0.0, 0.01, size=(10, 1000))
    est = 0.6 + rng.normal(0.0, 0.005, size=10)
    got = ranks([(i, est[i], reps[i]) for i in range(10)])
    assert [g.best for g in got] == [1] * 10
    assert [g.worst for g in got] == [10] * 10


def test_clearly_better_row_ranks_first_and_worse_rows_lower() -> None:
    rng = np.random.default_rng(12)
    shared = rng.normal(0.0, 0.03, size=1000)
    centres = np.array([0.9, 0.6, 0.6, 0.3])
    reps = centres[:, None] + shared[None, :] + rng.normal(0.0, 0.01, size=(4, 1000))
    got = ranks([(name, centres[i], reps[i]) for i, name in enumerate("abcd")])
    assert got == [RankInterval(1, 1), RankInterval(2, 3), RankInterval(2, 3), RankInterval(4, 4)]
    assert str(got[0]) == "1" and str(got[1]) == "2-3"


def test_copies_of_the_leader_do_not_change_the_critical_value() -> None:
    """Exact copies of a row add no spread to any resample's range: the same c."""
    est, reps = _board(5, n=8)
    lead = int(np.argmax(est))
    more_est = np.concatenate([est, np.repeat(est[lead], 20)])
    more_reps = np.vstack([reps, np.repeat(reps[lead : lead + 1], 20, axis=0)])
    assert critical_value(more_est, more_reps) == critical_value(est, reps)


def test_more_identical_rows_keep_best_rank_one() -> None:
    """The unadjusted pairwise rule ranked many equal rows below 1st on a big board; max-T
    keeps (nearly) all of them at 1: here all 200 of a seeded board."""
    rng = np.random.default_rng(13)
    shared = rng.normal(0.0, 0.03, size=(1, 500))
    noise = rng.normal(0.0, 0.02, size=(200, 500))
    reps = 0.6 + shared + noise
    est = reps.mean(axis=1) + rng.normal(0.0, 0.002, size=200)
    best, _, _ = rank_intervals(est, reps)
    assert (best == 1).all()


def test_rank_is_in_input_order() -> None:
    est, reps = _board(6, n=6)
    rows = [(i, est[i], reps[i]) for i in range(6)]
    assert ranks(rows[::-1]) == ranks(rows)[::-1]


def test_ranker_keeps_the_last_board_and_reads_better() -> None:
    est, reps = _board(7, n=5, spread=0.3)
    ranker = Ranker()
    rows = [(f"r{i}", est[i], reps[i]) for i in range(5)]
    first = ranker.rank(rows)
    assert ranker.rank(rows) == first
    hi, lo = int(np.argmax(est)), int(np.argmin(est))
    assert ranker.better(f"r{hi}", f"r{lo}") is True
    assert ranker.better(f"r{lo}", f"r{hi}") is False
    assert ranker.better("r0", "unknown") is None
    assert ranker.critical == pytest.approx(critical_value(est, reps))


def test_one_row_and_no_rows() -> None:
    assert ranks([("a", 0.5, np.array([0.4, 0.6]))]) == [RankInterval(1, 1)]
    assert ranks([]) == []


def test_rank_rejects_duplicate_keys_mixed_resamples_and_undefined_estimates() -> None:
    est, reps = _board(8, n=3)
    with pytest.raises(ValueError, match="own key"):
        ranks([("a", est[0], reps[0]), ("b", est[1], reps[1]), ("a", est[2], reps[2])])
    with pytest.raises(ValueError, match="same resamples"):
        ranks([("a", est[0], reps[0]), ("b", est[1], reps[1][:-1])])
    with pytest.raises(ValueError, match="point estimate"):
        ranks([("a", math.nan, reps[0]), ("b", est[1], reps[1])])
