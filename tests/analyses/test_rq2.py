"""RQ2 student accuracy against plain counting, statsmodels' Wilson and a resampling loop."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from medqade import stats
from medqade.analyses.common import Proportion, json_ready, physician_tiers
from medqade.analyses.report import Report
from medqade.analyses.rq2 import (
    BLOCK,
    difference_replicates,
    stratum_difference,
    student_accuracy,
)
from medqade.dataset.release import Release

from .helpers import TOL


def _tiers_by_loop(release: Release) -> list[int]:
    tiers = []
    for i in range(release.n_items):
        scores = [int(v) for v in release.physician_difficulty[:, i] if v >= 0]
        if not scores:
            tiers.append(0)
            continue
        m = sum(scores) / len(scores)
        tiers.append(1 if m <= 0.5 else 2 if m <= 1.0 else 3 if m <= 1.5 else 4)
    return tiers


def _count(release: Release, slot: int, rows: list[int]) -> tuple[int, int]:
    correct = n = 0
    for i in rows:
        c = int(release.consensus[i, slot])
        if c >= 0:
            n += 1
            correct += c == 1
    return correct, n


def _check(prop: Proportion, correct: int, n: int) -> None:
    low, high = proportion_confint(correct, n, alpha=0.05, method="wilson")
    assert (prop.correct, prop.n) == (correct, n)
    assert prop.acc == pytest.approx(correct / n, abs=TOL)
    assert prop.low == pytest.approx(low, abs=TOL)
    assert prop.high == pytest.approx(high, abs=TOL)


def test_physician_tiers_match_loop_and_release(release: Release) -> None:
    tiers = physician_tiers(release.physician_difficulty)
    assert tiers.tolist() == _tiers_by_loop(release)
    assert np.array_equal(tiers, release.tier)
    assert np.bincount(tiers, minlength=5)[1:].tolist() == [1802, 1266, 572, 160]


def test_student_accuracy_counts_and_wilson(release: Release, report: Report) -> None:
    rq2 = report.rq2
    tiers = _tiers_by_loop(release)
    everything = list(range(release.n_items))
    exact = [i for i in everything if release.lexical[i]]
    no_exact = [i for i in everything if not release.lexical[i]]
    for s, model in enumerate(release.roster.student_ids):
        _check(rq2.overall[model], *_count(release, s, everything))
        _check(rq2.exact[model], *_count(release, s, exact))
        _check(rq2.no_exact[model], *_count(release, s, no_exact))
        for t in (1, 2, 3, 4):
            rows = [i for i in everything if tiers[i] == t]
            _check(rq2.by_tier[model][t], *_count(release, s, rows))
        ce, ne = _count(release, s, exact)
        cn, nn = _count(release, s, no_exact)
        assert rq2.lexical_diff[model].diff.value == pytest.approx(ce / ne - cn / nn, abs=TOL)
        c1, n1 = _count(release, s, [i for i in everything if tiers[i] == 1])
        c4, n4 = _count(release, s, [i for i in everything if tiers[i] == 4])
        assert rq2.tier_diff[model].diff.value == pytest.approx(c1 / n1 - c4 / n4, abs=TOL)


def test_difference_replicates_equal_loop_on_resampled_rows(release: Release) -> None:
    correct = release.consensus == 1
    resolved = release.consensus >= 0
    first = release.lexical
    idx = stats.stratified_bootstrap_indices(first, 5, np.random.default_rng(5))
    reps = difference_replicates(correct, resolved, first, idx)
    for r in range(5):
        rows = idx[r]
        # independent subgroups: every stratum keeps its size and draws only its own rows
        assert first[rows].sum() == first.sum()
        assert np.array_equal(first[rows], first)
        for s in range(5):
            acc = []
            for stratum in (True, False):
                k = n = 0
                for i in rows:
                    if first[i] == stratum and resolved[i, s]:
                        n += 1
                        k += bool(correct[i, s])
                acc.append(k / n)
            assert reps[r, s] == pytest.approx(acc[0] - acc[1], abs=TOL)


def test_stratum_difference_blocks_are_deterministic() -> None:
    rng = np.random.default_rng(0)
    resolved = rng.random((300, 3)) < 0.95
    correct = resolved & (rng.random((300, 3)) < 0.5)
    first = rng.random(300) < 0.3
    a = stratum_difference(correct, resolved, first, 700, np.random.default_rng(1))
    b = stratum_difference(correct, resolved, first, 700, np.random.default_rng(1))
    assert np.array_equal(a[1], b[1])
    assert a[1].shape == (700, 3)


def test_student_accuracy_same_seed_same_intervals(release: Release) -> None:
    a = student_accuracy(release, 100, seed=3)
    b = student_accuracy(release, 100, seed=3)
    c = student_accuracy(release, 100, seed=4)
    assert json_ready(a.to_dict()) == json_ready(b.to_dict())
    assert json_ready(a.to_dict()) != json_ready(c.to_dict())


def test_stratum_difference_draws_as_stratified_bootstrap_indices() -> None:
    """Block by block, the replicates are those of stats.stratified_bootstrap_indices' draws."""
    rng = np.random.default_rng(3)
    resolved = rng.random((257, 2)) < 0.9
    correct = resolved & (rng.random((257, 2)) < 0.4)
    first = rng.random(257) < 0.4  # interleaved strata
    _, reps = stratum_difference(correct, resolved, first, 600, np.random.default_rng(2))
    gen = np.random.default_rng(2)
    expected = []
    for start in range(0, 600, BLOCK):
        idx = stats.stratified_bootstrap_indices(first, min(BLOCK, 600 - start), gen)
        expected.append(difference_replicates(correct, resolved, first, idx))
    assert np.array_equal(reps, np.vstack(expected))
