"""Tests of medqade.measures.pool_ranking: ranking fidelity on the whole pool.

The points equal Table S5's estimates and scipy's tau on them; a bootstrap replicate equals the
S5 estimator run on the resampled labelled items (an explicit loop through
``pool_estimates``); the resamples stay within the lexical strata and follow the seed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from scipy.stats import kendalltau

from medqade import stats
from medqade.measures.pool import estimate_pool, pool_estimates
from medqade.measures.pool_ranking import pool_fidelity, pool_resamples
from medqade.measures.seeds import STREAM_POOL

STUDENTS = ("a", "b", "c", "d", "e")
ACCURACY = (0.75, 0.6, 0.55, 0.4, 0.2)
"""Each student's true share of Richtig (the exact-match stratum adds 0.15)."""


@dataclass(frozen=True)
class Pool:
    """A :class:`medqade.measures.pool.PoolSample` built in memory."""

    students: tuple[str, ...]
    judge_pool: np.ndarray
    lexical_pool: np.ndarray
    labelled: np.ndarray
    consensus: np.ndarray


def _pool(seed: int = 0, n_pool: int = 2000) -> Pool:
    """2,000 pool items (300 exact-match), 150 + 250 labelled; a judge that agrees with the
    truth 85% of the time, leans to Richtig and sometimes abstains; 3% unresolved."""
    rng = np.random.default_rng(seed)
    lexical = np.arange(n_pool) < 300
    p = np.asarray(ACCURACY)[None, :] + np.where(lexical, 0.15, 0.0)[:, None]
    truth = (rng.random((n_pool, 5)) < p).astype(np.int8)
    judge = np.where(rng.random((n_pool, 5)) < 0.85, truth, 1).astype(np.int8)
    judge[rng.random((n_pool, 5)) < 0.02] = 2  # abstains
    truth[rng.random((n_pool, 5)) < 0.03] = -1  # unresolved
    labelled = np.zeros(n_pool, dtype=bool)
    labelled[rng.choice(300, 150, replace=False)] = True
    labelled[300 + rng.choice(n_pool - 300, 250, replace=False)] = True
    return Pool(STUDENTS, judge, lexical, labelled, truth[labelled])


def _indices(pool: Pool, resamples: int = 50, seed: int = 3) -> np.ndarray:
    return pool_resamples(pool.lexical_pool[pool.labelled], resamples, seed)


def test_points_are_table_s5_estimates_and_scipy_tau() -> None:
    pool = _pool()
    found = pool_fidelity(pool, _indices(pool))
    s5 = estimate_pool(pool)
    judge = [s5[s].judge_only.estimate for s in STUDENTS]
    phys = [s5[s].ppi.estimate for s in STUDENTS]
    assert [r.judge for r in found.students] == judge
    assert [r.physicians.value for r in found.students] == phys
    assert [r.difference.value for r in found.students] == pytest.approx(
        np.subtract(judge, phys).tolist(), abs=1e-15
    )
    assert found.tau.value == pytest.approx(kendalltau(judge, phys).statistic, abs=1e-12)
    errors = np.abs(np.subtract(judge, phys))
    assert found.largest_error.value == pytest.approx(errors.max(), abs=1e-15)
    assert found.largest_error_student == STUDENTS[int(np.argmax(errors))]
    assert found.judge_best == (STUDENTS[int(np.argmax(judge))],)
    assert found.physicians_best == (STUDENTS[int(np.argmax(phys))],)
    assert found.picks_best.value == float(found.judge_best == found.physicians_best)
    assert (found.n_pool, found.n_labelled) == (2000, 400)


@pytest.mark.parametrize("b", [0, 17, 49])
def test_a_replicate_is_s5_on_the_resampled_items(b: int) -> None:
    pool = _pool(1)
    idx = _indices(pool)
    found = pool_fidelity(pool, idx)
    lab = pool.labelled
    drawn = idx[b]
    again = pool_estimates(
        STUDENTS,
        pool.consensus[drawn],
        pool.judge_pool[lab][drawn],
        pool.lexical_pool[lab][drawn],
        pool.judge_pool,
        pool.lexical_pool,
    )
    phys = np.array([again[s].ppi.estimate for s in STUDENTS])
    judge = np.array([r.judge for r in found.students])
    for s, row in enumerate(found.students):
        assert row.physicians.replicates is not None and row.difference.replicates is not None
        assert row.physicians.replicates[b] == pytest.approx(phys[s], abs=1e-12)
        assert row.difference.replicates[b] == pytest.approx(judge[s] - phys[s], abs=1e-12)
    assert found.tau.replicates is not None and found.largest_error.replicates is not None
    assert found.tau.replicates[b] == pytest.approx(kendalltau(judge, phys).statistic, abs=1e-12)
    assert found.largest_error.replicates[b] == pytest.approx(np.abs(judge - phys).max())
    j_best = {STUDENTS[int(np.argmax(judge))]}
    p_best = {STUDENTS[s] for s in np.flatnonzero(phys == phys.max())}
    assert found.picks_best.replicates is not None
    assert found.picks_best.replicates[b] == len(j_best & p_best) / len(j_best)


def test_intervals_cover_the_points_and_are_percentiles() -> None:
    pool = _pool(2)
    found = pool_fidelity(pool, _indices(pool, 200))
    for e in (found.tau, found.largest_error, found.picks_best):
        assert e.low <= e.value <= e.high
    for row in found.students:
        assert row.physicians.low < row.physicians.value < row.physicians.high
        assert row.difference.low < row.difference.value < row.difference.high
        reps = row.difference.replicates
        assert reps is not None
        assert [row.difference.low, row.difference.high] == pytest.approx(
            np.percentile(reps, [2.5, 97.5]).tolist(), abs=1e-15
        )
    assert found.probability_best == pytest.approx(np.mean(found.picks_best.replicates))


def test_the_judge_side_is_fixed_and_the_errors_are_paired() -> None:
    pool = _pool(3)
    found = pool_fidelity(pool, _indices(pool))
    for row in found.students:
        assert row.physicians.replicates is not None and row.difference.replicates is not None
        assert np.allclose(row.difference.replicates + row.physicians.replicates, row.judge)


def test_same_seed_same_numbers_another_seed_others() -> None:
    pool = _pool(4)
    one = pool_fidelity(pool, _indices(pool, 30, seed=11)).to_json()
    two = pool_fidelity(pool, _indices(pool, 30, seed=11)).to_json()
    other = pool_fidelity(pool, _indices(pool, 30, seed=12)).to_json()
    assert one == two
    assert one["kendall_tau_b"] == other["kendall_tau_b"]  # the points do not depend on it
    assert one["students"][0]["difference_ci"] != other["students"][0]["difference_ci"]


def test_resamples_stay_in_their_stratum_on_the_pool_stream() -> None:
    lexical = np.array([True, False, False, True, False, True, False])
    idx = pool_resamples(lexical, 40, seed=5)
    assert idx.shape == (40, 7)
    assert (lexical[idx] == lexical[None, :]).all()
    expected = stats.stratified_bootstrap_indices(
        lexical, 40, np.random.default_rng([5, STREAM_POOL])
    )
    assert np.array_equal(idx, expected)


def test_without_resamples_no_interval() -> None:
    found = pool_fidelity(_pool(5), None)
    assert np.isnan(found.tau.low) and np.isnan(found.students[0].difference.high)
    assert np.isnan(found.probability_best)
    assert found.to_json()["students"][0].keys() == {
        "student",
        "judge",
        "physicians",
        "physicians_ci",
        "difference",
        "difference_ci",
    }


def test_rejects_resamples_of_the_wrong_shape() -> None:
    pool = _pool(6)
    with pytest.raises(ValueError, match="shape"):
        pool_fidelity(pool, np.zeros((3, 10), dtype=np.int64))
    crossing = _indices(pool, 2)
    crossing[:, 0] = np.flatnonzero(~pool.lexical_pool[pool.labelled])[0]
    with pytest.raises(ValueError, match="outside its lexical stratum"):
        pool_fidelity(pool, crossing)
