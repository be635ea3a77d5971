"""RQ4 self and family bias against plain Python loops over answers."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.analyses.report import Report
from medqade.analyses.rq4 import bias_replicates, bias_targets, bias_terms, evaluator_bias
from medqade.dataset.release import Release

from .helpers import TOL, weights_of


def _score(code: int) -> float | None:
    return 1.0 if code == 1 else 0.0 if code == 0 else None


def _bias_loop(
    release: Release, evaluator: str, student: str, rows: list[int]
) -> tuple[float, int]:
    roster = release.roster
    a = roster.evaluator_ids.index(evaluator)
    s = roster.student_ids.index(student)
    peers = [
        e
        for e, ev in enumerate(roster.evaluator_ids)
        if roster.family(ev) != roster.family(evaluator)
    ]
    diffs = []
    for i in rows:
        own = _score(int(release.evaluator_labels[a, i, s]))
        if own is None:
            continue
        peer = [_score(int(release.evaluator_labels[p, i, s])) for p in peers]
        given = [x for x in peer if x is not None]
        if not given:
            continue
        diffs.append(own - sum(given) / len(given))
    return sum(diffs) / len(diffs), len(diffs)


def test_bias_targets_are_the_papers_pairs(release: Release) -> None:
    targets = bias_targets(release.roster)
    selfs = [(t.evaluator, t.student) for t in targets if t.kind == "self"]
    family = {(t.evaluator, t.student) for t in targets if t.kind == "family"}
    assert [e for e, s in selfs if e == s] == list(release.roster.student_ids)
    assert family == {
        ("gemini-3-flash-preview", "gemini-2.5-flash"),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash"),
        ("gemma3:27b", "gemma3:4b"),
        ("gemma3:4b", "gemma3:27b"),
        ("gpt-5.4-nano", "gpt-5-nano"),
        ("gpt-5.4-mini", "gpt-5-nano"),
    }


def test_evaluator_bias_matches_loops(release: Release, report: Report) -> None:
    rows = list(range(release.n_items))
    for ev, b in report.rq4.self_bias.items():
        delta, n = _bias_loop(release, ev, ev, rows)
        assert b.delta.value == pytest.approx(delta, abs=TOL)
        assert b.n == n
    assert len(report.rq4.family) == 6
    for b in report.rq4.family:
        delta, n = _bias_loop(release, b.evaluator, b.student, rows)
        assert b.delta.value == pytest.approx(delta, abs=TOL)
        assert b.n == n
        assert b.delta.low <= b.delta.value <= b.delta.high


def test_bias_replicates_equal_loop_on_resampled_items(release: Release) -> None:
    roster = release.roster
    targets = bias_targets(roster)
    families = tuple(roster.family(e) for e in roster.evaluator_ids)
    d, v = bias_terms(release.evaluator_labels, families, targets)
    idx = np.random.default_rng(8).integers(0, release.n_items, size=(3, release.n_items))
    reps = bias_replicates(d, v, weights_of(idx, release.n_items))
    for r in range(3):
        for j in (0, 4, len(targets) - 1):
            t = targets[j]
            delta, _ = _bias_loop(release, t.evaluator, t.student, idx[r].tolist())
            assert reps[r, j] == pytest.approx(delta, abs=TOL)


def test_evaluator_bias_without_weights_has_nan_intervals(release: Release) -> None:
    result = evaluator_bias(release)
    assert all(np.isnan(b.delta.low) for b in result.family)
    assert result.n_items == 3800
