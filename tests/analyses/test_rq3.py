"""RQ3 evaluator alignment, the LOO reference and the ensemble search, against plain loops."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from medqade.analyses.report import Report
from medqade.analyses.rq3 import ensemble_candidates, evaluator_alignment, macro_agreement
from medqade.dataset.release import Release

from .helpers import TOL, kappa, majority, pa, weights_of


def _macro(labels: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """Mean over slots of sklearn kappa and PA (labels, reference: items x slots)."""
    ks = [kappa(labels[:, s], reference[:, s]) for s in range(5)]
    ps = [pa(labels[:, s], reference[:, s]) for s in range(5)]
    return float(np.nanmean(ks)), float(np.nanmean(ps))


def _vote(member_labels: list[int]) -> int:
    """The paper's ensemble rule for one answer: tie = Falsch, nobody = missing."""
    r = sum(1 for v in member_labels if v == 1)
    f = sum(1 for v in member_labels if v == 0)
    if r + f == 0:
        return -1
    return 1 if r > f else 0


def test_evaluator_alignment_matches_sklearn(release: Release, report: Report) -> None:
    core = release.is_core
    ref = release.consensus[core]
    for e, ev in enumerate(release.roster.evaluator_ids):
        k, p = _macro(release.evaluator_labels[e, core], ref)
        got = report.rq3.evaluators[ev]
        assert got.kappa.value == pytest.approx(k, abs=TOL)
        assert got.pa.value == pytest.approx(p, abs=TOL)
        assert got.pabak.value == pytest.approx(2 * p - 1, abs=TOL)
        lab = release.evaluator_labels[e, core]
        assert got.n == int((np.isin(lab, (0, 1)) & (ref >= 0)).sum())


def test_leave_one_out_matches_python_loops(release: Release, report: Report) -> None:
    labels = release.physician_labels[:, release.is_core]
    n_phys, n_items, _ = labels.shape
    per_kappa, per_pa = [], []
    for p in range(n_phys):
        ref = np.array(
            [
                [
                    majority([int(labels[q, i, s]) for q in range(n_phys) if q != p])
                    for s in range(5)
                ]
                for i in range(n_items)
            ]
        )
        k, a = _macro(labels[p], ref)
        per_kappa.append(k)
        per_pa.append(a)
    loo = report.rq3.physician_loo
    assert loo.kappa.value == pytest.approx(np.mean(per_kappa), abs=TOL)
    assert loo.pa.value == pytest.approx(np.mean(per_pa), abs=TOL)
    assert loo.kappa.low < loo.kappa.value < loo.kappa.high


def test_ensemble_search_matches_brute_force(release: Release, report: Report) -> None:
    core = release.is_core
    roster = release.roster
    pool = roster.ensemble_pool
    ref = release.consensus[core]
    labels = {e: release.evaluator_labels[roster.evaluator_ids.index(e), core] for e in pool}
    scores = {}
    for size in (1, 3, 5, 7):
        for members in combinations(pool, size):
            voted = np.array(
                [
                    [_vote([int(labels[m][i, s]) for m in members]) for s in range(5)]
                    for i in range(ref.shape[0])
                ]
            )
            scores[members] = _macro(voted, ref)
    assert len(scores) == 64 == len(report.rq3.candidates)
    for cand in report.rq3.candidates:
        k, p = scores[cand.members]
        assert cand.kappa == pytest.approx(k, abs=TOL)
        assert cand.pa == pytest.approx(p, abs=TOL)
    best_kappa = max(scores.values(), key=lambda v: v[0])[0]
    best_pa = max(scores.values(), key=lambda v: v[1])[1]
    ens = report.rq3.ensembles
    assert ens["kappa"].value == pytest.approx(best_kappa, abs=TOL)
    assert ens["pa"].value == pytest.approx(best_pa, abs=TOL)
    assert ens["pabak"].value == pytest.approx(2 * best_pa - 1, abs=TOL)
    single = max((scores[(e,)][0], e) for e in pool)
    assert ens["kappa"].best_single == single[1]
    assert ens["kappa"].diff.value == pytest.approx(best_kappa - single[0], abs=TOL)


def test_ensemble_diff_replicates_are_paired(release: Release, core_indices: np.ndarray) -> None:
    """A replicate of the difference = ensemble minus single on the same resampled items."""
    core = release.is_core
    roster = release.roster
    pool = tuple(roster.ensemble_pool)
    idx = [roster.evaluator_ids.index(e) for e in pool]
    ref = release.consensus[core]
    subsets, voted, _ = ensemble_candidates(release.evaluator_labels[idx][:, core], ref, pool)
    pick = [len(subsets) - 1, 0]  # the full pool and its first member
    w = weights_of(core_indices, ref.shape[0])
    pa_rep, kappa_rep = macro_agreement(voted[pick], ref, w)
    for r in (0, 2, 4):
        rows = core_indices[r]
        k_ens, p_ens = _macro(voted[pick[0]][rows], ref[rows])
        k_one, p_one = _macro(voted[pick[1]][rows], ref[rows])
        assert kappa_rep[r, 0] - kappa_rep[r, 1] == pytest.approx(k_ens - k_one, abs=TOL)
        assert pa_rep[r, 0] - pa_rep[r, 1] == pytest.approx(p_ens - p_one, abs=TOL)


def test_evaluator_alignment_replicates_equal_loop(
    release: Release, core_indices: np.ndarray
) -> None:
    core = release.is_core
    ref = release.consensus[core]
    lab = release.evaluator_labels[:, core]
    pa_rep, kappa_rep = macro_agreement(lab, ref, weights_of(core_indices, ref.shape[0]))
    for r in (1, 5):
        rows = core_indices[r]
        for e in (0, 8):
            k, p = _macro(lab[e][rows], ref[rows])
            assert kappa_rep[r, e] == pytest.approx(k, abs=TOL)
            assert pa_rep[r, e] == pytest.approx(p, abs=TOL)


def test_evaluator_alignment_without_weights_has_nan_intervals(release: Release) -> None:
    result = evaluator_alignment(release)
    first = next(iter(result.evaluators.values()))
    assert np.isnan(first.kappa.low)
    assert np.isnan(result.ensembles["kappa"].diff.low)
