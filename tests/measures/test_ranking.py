"""Rank intervals from studentized simultaneous paired intervals (max-T), against a loop over
pairs written out independently of the blocked, Gram-matrix implementation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from medqade import vocab
from medqade.measures import macro_agreement, question_weights
from medqade.measures.max_t import critical_value
from medqade.measures.ranking import (
    Ranker,
    RankInterval,
    Resolution,
    rank_board,
    rank_intervals,
    ranks,
)

from .conftest import loop_critical, loop_se, paired_board


def _loop_ranks(est: np.ndarray, reps: np.ndarray) -> tuple[list[int], list[int], float]:
    crit = loop_critical(est, reps)
    k = len(est)
    best, worst = [], []
    for i in range(k):
        better = lower = 0
        for j in range(k):
            se = loop_se(reps, i, j) if j != i else math.nan
            if not se > 1e-12:
                continue
            better += (est[j] - est[i]) / se > crit
            lower += (est[i] - est[j]) / se > crit
        best.append(1 + better)
        worst.append(k - lower)
    return best, worst, crit


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_critical_value_and_ranks_equal_a_loop_over_pairs(seed: int) -> None:
    """Also where float32 cannot be trusted (seed 5: a pair of nearly identical rows, whose
    tiny standard error magnifies rounding): computed in float64 then."""
    est, reps = paired_board(seed)
    if seed == 5:
        rng = np.random.default_rng(5)
        reps[9] = reps[8] + 1e-7 * rng.normal(size=reps.shape[1])
        est[9] = est[8] + float(np.mean(reps[9] - reps[8]))
    if seed in (3, 4):
        reps[2, :7] = np.nan  # undefined replicates: pairs with row 2 drop those resamples
        reps[5, 3] = np.nan
        reps[7] = reps[6]  # an exact copy: its pair has se 0 and is left out of the family
        est[7] = est[6]
    best, worst, crit = _loop_ranks(est, reps)
    assert critical_value(est, reps) == pytest.approx(crit, abs=1e-12, rel=0)
    got_best, got_worst, got_crit = rank_intervals(est, reps)
    assert got_crit == pytest.approx(crit, abs=1e-12, rel=0)
    assert (got_best.tolist(), got_worst.tolist()) == (best, worst)
    assert len(set(best)) > 1  # the boards do separate some rows
    assert min(best) == 1 and max(worst) == len(est)
    assert np.all(got_best <= got_worst)


def test_resolution_is_c_times_the_smallest_and_median_pair_se() -> None:
    est, reps = paired_board(10, n=7)
    board = rank_board(list("abcdefg"), est, reps)
    pair_se = [loop_se(reps, i, j) for i, j in itertools.combinations(range(7), 2)]
    crit = loop_critical(est, reps)
    res = board.resolution
    assert isinstance(res, Resolution)
    assert res.critical == pytest.approx(crit, abs=1e-12)
    assert res.smallest_resolvable == pytest.approx(crit * min(pair_se), rel=1e-12)
    assert res.median_resolvable == pytest.approx(crit * float(np.median(pair_se)), rel=1e-12)
    assert (res.rows, res.pairs) == (7, 21)
    assert res.scaled(2.0).median_resolvable == pytest.approx(2 * res.median_resolvable)
    with pytest.raises(AttributeError):
        res.critical = 1.0  # type: ignore[misc]


def test_a_high_variance_row_changes_no_other_rows_interval() -> None:
    """The unstudentized critical value was set by the widest row; studentized, a row with
    ten times the spread of the others leaves every other row's rank interval as it was."""
    est, reps = paired_board(11, n=10, spread=0.2)
    rng = np.random.default_rng(21)
    noisy = 0.5 + 0.3 * rng.normal(size=reps.shape[1])
    best0, worst0, c0 = rank_intervals(est, reps)
    best1, worst1, c1 = rank_intervals(np.append(est, 0.5), np.vstack([reps, noisy]))
    assert abs(c1 - c0) < 0.25  # one more row, ten more pairs: c barely moves
    assert best1[:-1].tolist() == best0.tolist()
    assert (worst1[:-1] - 1).tolist() == worst0.tolist()  # one more row below nobody
    assert (best1[-1], worst1[-1]) == (1, 11)


def test_identical_judges_all_share_best_rank_one() -> None:
    """Ten copies of one judge with small independent noise: none is significantly better."""
    rng = np.random.default_rng(11)
    shared = rng.normal(0.0, 0.03, size=1000)
    reps = 0.6 + shared[None, :] + rng.normal(0.0, 0.01, size=(10, 1000))
    est = 0.6 + rng.normal(0.0, 0.0005, size=10)
    got = ranks([(i, est[i], reps[i]) for i in range(10)])
    assert [g.best for g in got] == [1] * 10
    assert [g.worst for g in got] == [10] * 10


def test_equal_judges_share_rank_one_at_k_100() -> None:
    """Family-wise: 100 judges of the same quality (each agrees with a seeded reference on
    85% of the answers, independently), macro kappa on the same question resamples, are all
    ranked 1-100; the unadjusted pairwise rule ranked a third of such rows below 1st."""
    rng = np.random.default_rng(2026)
    items, slots, k = 200, 5, 100
    reference = np.where(rng.random((items, slots)) < 0.6, vocab.RICHTIG_CODE, 0)
    agree = rng.random((k, items, slots)) < 0.85
    labels = np.where(agree, reference[None], 1 - reference[None]).astype(np.int64)
    weights = question_weights(items, 400, 7, 1)
    _, est = macro_agreement(labels, reference)
    _, reps = macro_agreement(labels, reference, weights)
    best, worst, crit = rank_intervals(np.asarray(est), np.asarray(reps).T)
    assert (best == 1).all() and (worst == k).all()
    assert 3.0 < crit < 5.0  # the largest of 4,950 roughly normal statistics


def test_clearly_better_row_ranks_first_and_worse_rows_lower() -> None:
    rng = np.random.default_rng(12)
    shared = rng.normal(0.0, 0.03, size=1000)
    centres = np.array([0.9, 0.6, 0.6, 0.3])
    reps = centres[:, None] + shared[None, :] + rng.normal(0.0, 0.01, size=(4, 1000))
    got = ranks([(name, centres[i], reps[i]) for i, name in enumerate("abcd")])
    assert got == [RankInterval(1, 1), RankInterval(2, 3), RankInterval(2, 3), RankInterval(4, 4)]
    assert str(got[0]) == "1" and str(got[1]) == "2-3"


def test_rank_is_in_input_order() -> None:
    est, reps = paired_board(6, n=6)
    rows = [(i, est[i], reps[i]) for i in range(6)]
    assert ranks(rows[::-1]) == ranks(rows)[::-1]


def test_ranker_keeps_the_boards_and_reads_pairs() -> None:
    est, reps = paired_board(7, n=5, spread=0.3)
    ranker = Ranker()
    rows = [(f"r{i}", est[i], reps[i]) for i in range(5)]
    first = ranker.rank_board(rows)
    ranker.rank(rows[:3])
    assert ranker.rank_board(rows) is first  # kept, not ranked again
    hi, lo = int(np.argmax(est)), int(np.argmin(est))
    assert ranker.better(f"r{hi}", f"r{lo}") is True
    assert ranker.better(f"r{lo}", f"r{hi}") is False
    assert ranker.better("r0", "unknown") is None
    assert ranker.critical == pytest.approx(loop_critical(est, reps), abs=1e-12)
    test = first.pair(f"r{hi}", f"r{lo}")
    assert test is not None and test.separated and test.in_family
    se = loop_se(reps, hi, lo)
    assert test.se == pytest.approx(se, rel=1e-12)
    half = test.critical * se
    assert (test.low, test.high) == pytest.approx((test.d - half, test.d + half))
    assert first.pair("r0", "r0") is None


def test_one_row_and_no_rows() -> None:
    assert ranks([("a", 0.5, np.array([0.4, 0.6]))]) == [RankInterval(1, 1)]
    assert ranks([]) == []
    board = Ranker().rank_board([("a", 0.5, np.array([0.4, 0.6]))])
    assert math.isnan(board.resolution.critical) and board.resolution.pairs == 0


def test_rank_rejects_duplicate_keys_mixed_resamples_and_undefined_estimates() -> None:
    est, reps = paired_board(8, n=3)
    with pytest.raises(ValueError, match="own key"):
        ranks([("a", est[0], reps[0]), ("b", est[1], reps[1]), ("a", est[2], reps[2])])
    with pytest.raises(ValueError, match="same resamples"):
        ranks([("a", est[0], reps[0]), ("b", est[1], reps[1][:-1])])
    with pytest.raises(ValueError, match="point estimate"):
        ranks([("a", math.nan, reps[0]), ("b", est[1], reps[1])])
