"""The studentized max-T critical value and the pair standard errors, against loops over pairs
written out independently of the blocked, Gram-matrix, float32-first implementation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from medqade.measures import max_t

from .conftest import loop_critical, loop_se, paired_board

pair_standard_errors = max_t.pair_standard_errors
critical_value = max_t.critical_value


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_critical_value_equals_a_loop_over_pairs(seed: int) -> None:
    est, reps = paired_board(seed, n=9, r=250)
    reps[3, :5] = np.nan
    assert critical_value(est, reps) == pytest.approx(loop_critical(est, reps), abs=1e-12, rel=0)
    level = 0.8
    assert critical_value(est, reps, level) == pytest.approx(
        loop_critical(est, reps, level), abs=1e-12, rel=0
    )
    se = pair_standard_errors(reps)
    assert max_t.critical(est, reps, se, 0.95) == critical_value(est, reps)


def test_critical_value_is_undefined_without_a_family_or_resamples() -> None:
    est = np.array([0.5, 0.5])
    same = np.tile(np.linspace(0.4, 0.6, 20), (2, 1))  # a row and its exact copy: se 0
    assert math.isnan(critical_value(est, same))
    assert math.isnan(critical_value(np.array([0.5]), same[:1]))  # one row, no pair
    assert math.isnan(critical_value(est, np.zeros((2, 0))))  # no resample


def test_in_family_needs_a_standard_error_above_zero_se() -> None:
    se = np.array([math.nan, 0.0, max_t.ZERO_SE, 2 * max_t.ZERO_SE, 0.1])
    assert max_t.in_family(se).tolist() == [False, False, False, True, True]


def test_checked_refuses_shapes_that_do_not_match() -> None:
    est, reps = max_t.checked([0.1, 0.2], [[0.1, 0.2, 0.3], [0.2, 0.2, 0.1]])
    assert est.dtype == np.float64 and reps.shape == (2, 3)
    with pytest.raises(ValueError, match=r"need estimates \(K,\) and replicates \(K, R\)"):
        max_t.checked([0.1, 0.2, 0.3], [[0.1, 0.2], [0.2, 0.2]])
    with pytest.raises(ValueError, match="need estimates"):
        max_t.checked([0.1], [0.1, 0.2])


def test_pair_standard_errors_equal_numpy_per_pair() -> None:
    _, reps = paired_board(9, n=8)
    reps[1, 10:40] = np.nan
    reps[4] = reps[3] + 1e-9 * np.sin(np.arange(reps.shape[1]))  # nearly identical rows
    se = pair_standard_errors(reps)
    for i, j in itertools.permutations(range(8), 2):
        assert se[i, j] == pytest.approx(loop_se(reps, i, j), rel=1e-9, abs=1e-18)
    assert np.isnan(np.diag(se)).all()
    assert 0 < se[3, 4] < 1e-8


def test_copies_of_the_leader_do_not_change_the_critical_value() -> None:
    """An exact copy's pair with its original has se 0 (left out), and its pairs with the
    other rows repeat the original's: the same T(b) in every resample, the same c."""
    est, reps = paired_board(5, n=8)
    lead = int(np.argmax(est))
    more_est = np.concatenate([est, np.repeat(est[lead], 20)])
    more_reps = np.vstack([reps, np.repeat(reps[lead : lead + 1], 20, axis=0)])
    assert critical_value(more_est, more_reps) == pytest.approx(
        critical_value(est, reps), abs=1e-13
    )
