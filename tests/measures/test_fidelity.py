"""Ranking fidelity of a judge, against scipy's Kendall tau and an explicit loop over the
resampled questions (each resample materialised as the list of drawn questions)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from medqade.measures.fidelity import (
    RankingFidelity,
    best_share,
    kendall_tau_b,
    ranking_fidelity,
)
from medqade.measures.seeds import question_weights

SLOTS = ("a", "b", "c", "d", "e")


def _data(seed: int, n_items: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Judge codes with abstentions and missing labels, a consensus with unresolved answers,
    students of different accuracy."""
    rng = np.random.default_rng(seed)
    quality = np.array([0.8, 0.7, 0.6, 0.5, 0.4])
    ref = (rng.random((n_items, 5)) < quality).astype(np.int64)
    ref[rng.random((n_items, 5)) < 0.1] = -1
    flip = rng.random((n_items, 5)) < 0.25
    lab = np.where(flip, 1 - np.maximum(ref, 0), np.maximum(ref, 0))
    lab[rng.random((n_items, 5)) < 0.05] = 2
    lab[rng.random((n_items, 5)) < 0.03] = -1
    return lab, ref


def _accuracies(lab: np.ndarray, ref: np.ndarray, items: list[int]) -> tuple[list, list]:
    """Per student, over the listed questions (with repeats): judge and consensus Richtig
    shares of the answers with a resolved consensus, a plain Python loop."""
    judge, phys = [], []
    for s in range(lab.shape[1]):
        n = j = p = 0
        for i in items:
            if ref[i, s] in (0, 1):
                n += 1
                j += lab[i, s] == 1
                p += ref[i, s] == 1
        judge.append(j / n if n else math.nan)
        phys.append(p / n if n else math.nan)
    return judge, phys


def _loop_best(judge: list, phys: list) -> float:
    if any(math.isnan(v) for v in judge + phys):
        return math.nan
    top_j = {s for s, v in enumerate(judge) if v == max(judge)}
    top_p = {s for s, v in enumerate(phys) if v == max(phys)}
    return len(top_j & top_p) / len(top_j)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_point_values_and_tau_equal_a_loop_and_scipy(seed: int) -> None:
    lab, ref = _data(seed)
    got = ranking_fidelity(lab, ref, SLOTS)
    judge, phys = _accuracies(lab, ref, list(range(lab.shape[0])))
    for s, row in enumerate(got.students):
        assert row.judge.value == pytest.approx(judge[s], abs=1e-15)
        assert row.physicians.value == pytest.approx(phys[s], abs=1e-15)
        assert row.difference.value == pytest.approx(judge[s] - phys[s], abs=1e-15)
        assert math.isnan(row.difference.low)  # no weights: no interval
    assert got.tau.value == pytest.approx(kendalltau(judge, phys).statistic, abs=1e-12)
    errors = [abs(j - p) for j, p in zip(judge, phys, strict=True)]
    assert got.largest_error.value == pytest.approx(max(errors), abs=1e-15)
    assert got.largest_error_student == SLOTS[int(np.argmax(errors))]
    assert got.picks_best.value == _loop_best(judge, phys)
    assert math.isnan(got.probability_best)


def test_tau_b_with_ties_and_per_replicate_equals_scipy() -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(0, 3, size=(50, 5)).astype(float)  # many ties on both sides
    y = rng.integers(0, 3, size=(50, 5)).astype(float)
    got = kendall_tau_b(x, y)
    for b in range(50):
        want = kendalltau(x[b], y[b]).statistic
        assert (math.isnan(got[b]) and math.isnan(want)) or got[b] == pytest.approx(want, 1e-12)
    assert not np.isnan(got).all()
    assert math.isnan(float(kendall_tau_b([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])))  # constant side
    assert math.isnan(float(kendall_tau_b([1.0, np.nan, 2.0], [1.0, 2.0, 3.0])))
    assert float(kendall_tau_b([3.0, 2.0, 1.0], [1.0, 2.0, 3.0])) == -1.0


def test_best_share_counts_ties_on_both_sides() -> None:
    assert float(best_share([0.9, 0.5, 0.1], [0.9, 0.6, 0.2])) == 1.0
    assert float(best_share([0.5, 0.9, 0.1], [0.9, 0.6, 0.2])) == 0.0
    assert float(best_share([0.9, 0.9, 0.1], [0.9, 0.6, 0.2])) == 0.5  # judge ties: 1 of 2
    assert float(best_share([0.9, 0.5, 0.1], [0.9, 0.9, 0.2])) == 1.0  # physicians tie
    assert math.isnan(float(best_share([np.nan, 0.5, 0.1], [0.9, 0.9, 0.2])))


@pytest.mark.parametrize("seed", [0, 5])
def test_intervals_equal_an_explicit_loop_over_resampled_questions(seed: int) -> None:
    lab, ref = _data(seed, n_items=30)
    weights = question_weights(30, 200, seed=seed)
    got = ranking_fidelity(lab, ref, SLOTS, weights)
    diffs, maxima, taus, bests = [], [], [], []
    for counts in weights:
        items = [i for i in range(30) for _ in range(counts[i])]
        judge, phys = _accuracies(lab, ref, items)
        diffs.append([j - p for j, p in zip(judge, phys, strict=True)])
        maxima.append(max(abs(d) for d in diffs[-1]))
        taus.append(kendalltau(judge, phys).statistic)
        bests.append(_loop_best(judge, phys))

    def bounds(values: list) -> tuple[float, float]:
        x = np.array(values, dtype=float)
        x = x[~np.isnan(x)]
        return float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))

    d = np.array(diffs)
    for s, row in enumerate(got.students):
        assert row.difference.ci == pytest.approx(bounds(list(d[:, s])), abs=1e-12)
        assert np.allclose(row.difference.replicates, d[:, s], atol=1e-15, rtol=0)
    assert got.largest_error.ci == pytest.approx(bounds(maxima), abs=1e-12)
    assert got.tau.ci == pytest.approx(bounds(taus), abs=1e-12)
    assert got.tau.n_undefined == int(np.isnan(np.array(taus, dtype=float)).sum())
    assert got.probability_best == pytest.approx(float(np.nanmean(bests)), abs=1e-12)
    assert got.tau.low < got.tau.value <= got.tau.high or got.tau.value == got.tau.high
    assert 0.0 < got.probability_best <= 1.0


def test_an_abstaining_judge_gives_no_credit_and_the_counts_say_so() -> None:
    ref = np.array([[1, 1, 0], [1, 0, 0], [-1, 1, 1], [0, 1, 1]])
    lab = np.array([[2, 1, 0], [-1, 0, 0], [1, 1, 1], [0, 1, 1]])
    got = ranking_fidelity(lab, ref, ("x", "y", "z"))
    x, y, z = got.students
    # x: resolved on questions 1, 2, 4; the consensus says Richtig on two, the judge on none
    # (an abstention and a missing label are not Richtig; its Richtig on question 3 is on an
    # unresolved answer and does not count)
    assert (x.n, x.n_unlabelled) == (3, 2)
    assert (x.judge.value, x.physicians.value) == (0.0, pytest.approx(2 / 3))
    assert y.difference.value == 0.0 and z.difference.value == 0.0
    assert got.largest_error.value == pytest.approx(2 / 3) and got.largest_error_student == "x"
    assert [s.physicians.value for s in got.students] == [pytest.approx(2 / 3), 0.75, 0.5]
    assert got.physicians_best == ("y",) and got.judge_best == ("y",)
    assert got.picks_best.value == 1.0


def test_a_judge_equal_to_the_consensus_is_perfectly_faithful() -> None:
    _, ref = _data(3)
    weights = question_weights(ref.shape[0], 50, seed=1)
    got = ranking_fidelity(np.where(ref == -1, 2, ref), ref, SLOTS, weights)
    assert isinstance(got, RankingFidelity)
    assert got.tau.value == 1.0 and got.largest_error.value == 0.0
    assert got.picks_best.value == 1.0 and got.probability_best == 1.0
    assert got.judge_best == got.physicians_best
    assert got.largest_error.ci == (0.0, 0.0)
    js = got.to_json()
    assert js["kendall_tau_b"] == 1.0 and len(js["students"]) == 5
    with pytest.raises(AttributeError):
        got.tau = got.largest_error  # type: ignore[misc]


def test_docs_worked_example() -> None:
    """The numbers of the worked example in docs/statistics.md (ranking fidelity)."""
    ref = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 0, 0]])
    lab = np.array([[1, 1, 1], [1, 1, 0], [2, 1, 0], [0, 1, 0]])
    got = ranking_fidelity(lab, ref, ("A", "B", "C"))
    assert [s.physicians.value for s in got.students] == [0.75, 0.5, 0.25]
    assert [s.judge.value for s in got.students] == [0.5, 1.0, 0.25]
    assert [s.difference.value for s in got.students] == [-0.25, 0.5, 0.0]
    assert got.largest_error.value == 0.5 and got.largest_error_student == "B"
    assert got.tau.value == pytest.approx(1 / 3, abs=1e-12)
    assert got.tau.value == pytest.approx(kendalltau([0.5, 1.0, 0.25], [0.75, 0.5, 0.25])[0])
    assert got.judge_best == ("B",) and got.physicians_best == ("A",)
    assert got.picks_best.value == 0.0


def test_shapes_are_checked() -> None:
    with pytest.raises(ValueError, match="one name per slot"):
        ranking_fidelity(np.zeros((3, 5)), np.zeros((3, 5)), ("a", "b"))
    with pytest.raises(ValueError):
        ranking_fidelity(np.zeros((3, 5)), np.zeros((4, 5)), SLOTS)
