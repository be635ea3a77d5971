"""RQ3: evaluator alignment with the physician consensus on the core items (Table 3).

Each evaluator and the leave-one-out physician reference go through
:mod:`medqade.measures.reference_agreement` (per-slot PA, kappa and PABAK against the reference,
unweighted mean over slots, question bootstrap CIs with all five slots of a question together).

The ensemble search (exploratory, in-sample) votes every subset of size 1, 3, 5 and 7 of the
roster's ensemble pool with :func:`~medqade.measures.reference_agreement.ensemble_vote` (majority
after removing abstentions, all abstain = missing, tie = Falsch) and scores each against the
consensus like a single evaluator. The best subset is chosen separately for kappa, PA and PABAK
(ties: the first subset in search order, i.e. smaller subsets first, then pool order). Its
difference to the best *single* pool member for the same metric gets a paired bootstrap
interval: both are computed on the same resample weights and the replicate differences are
taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade.analyses.common import FloatArray
from medqade.dataset.release import Release
from medqade.measures import (
    Agreement,
    Estimate,
    Weights,
    agreement,
    ensemble_vote,
    macro_agreement,
    quiet_leave_one_out,
)

ENSEMBLE_SIZES: Final = (1, 3, 5, 7)
METRICS: Final = ("kappa", "pa", "pabak")


@dataclass(frozen=True)
class Candidate:
    """One voted subset of the pool and its in-sample macro agreement."""

    members: tuple[str, ...]
    kappa: float
    pa: float

    @property
    def pabak(self) -> float:
        return 2 * self.pa - 1

    def value(self, metric: str) -> float:
        return float(getattr(self, metric))


@dataclass(frozen=True)
class BestEnsemble:
    """The best subset for one metric, and its paired difference to the best single member."""

    metric: str
    members: tuple[str, ...]
    value: float
    best_single: str
    best_single_value: float
    diff: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {
            "members": list(self.members),
            "value": self.value,
            "best_single": self.best_single,
            "best_single_value": self.best_single_value,
            "diff_vs_best_single": self.diff.value,
            "diff_ci": list(self.diff.ci),
        }


def ensemble_candidates(
    pool_labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    pool: tuple[str, ...],
    sizes: tuple[int, ...] = ENSEMBLE_SIZES,
) -> tuple[tuple[tuple[int, ...], ...], npt.NDArray[np.int8], tuple[Candidate, ...]]:
    """Vote and score every subset of the given sizes.

    ``pool_labels`` has shape (pool, items, slots). Returns the member index tuples, the voted
    labels (candidates, items, slots) and the scored candidates, all in search order.
    """
    x = np.asarray(pool_labels)
    subsets = tuple(c for k in sizes if k <= len(pool) for c in combinations(range(len(pool)), k))
    if not subsets:
        return (), np.empty((0, *x.shape[1:]), dtype=np.int8), ()
    voted = np.stack([ensemble_vote(x[list(c)]) for c in subsets])
    pa, kappa = macro_agreement(voted, reference)
    cands = tuple(
        Candidate(tuple(pool[i] for i in c), float(kappa[j]), float(pa[j]))
        for j, c in enumerate(subsets)
    )
    return subsets, voted, cands


def _best(cands: tuple[Candidate, ...], metric: str, only: list[int] | None = None) -> int:
    order = range(len(cands)) if only is None else only
    best, best_value = -1, -np.inf
    for j in order:
        v = cands[j].value(metric)
        if not np.isnan(v) and v > best_value:
            best, best_value = j, v
    return best


def best_ensembles(
    subsets: tuple[tuple[int, ...], ...],
    voted: npt.NDArray[np.int8],
    cands: tuple[Candidate, ...],
    reference: npt.ArrayLike,
    weights: Weights | None,
) -> dict[str, BestEnsemble]:
    """Best subset per metric with the paired bootstrap CI of its gain over the best single."""
    singles = [j for j, c in enumerate(subsets) if len(c) == 1]
    picks = {m: (_best(cands, m), _best(cands, m, singles)) for m in METRICS}
    picks = {m: (j, s) for m, (j, s) in picks.items() if j >= 0 and s >= 0}
    needed = sorted({i for pair in picks.values() for i in pair})
    reps: dict[str, FloatArray] = {}
    if weights is not None and needed:
        # one pass over the resamples for every candidate involved, the same weights for all
        pa, kappa = macro_agreement(voted[needed], reference, weights)
        reps = {"kappa": kappa, "pa": pa, "pabak": 2 * pa - 1}
    col = {c: i for i, c in enumerate(needed)}
    out: dict[str, BestEnsemble] = {}
    for metric, (j, s) in picks.items():
        diff_reps = None
        if reps:
            diff_reps = reps[metric][:, col[j]] - reps[metric][:, col[s]]
        value, single = cands[j].value(metric), cands[s].value(metric)
        out[metric] = BestEnsemble(
            metric=metric,
            members=cands[j].members,
            value=value,
            best_single=cands[s].members[0],
            best_single_value=single,
            diff=Estimate.from_replicates(value - single, diff_reps),
        )
    return out


@dataclass(frozen=True)
class EvaluatorAlignment:
    """Table 3 plus the ensemble search."""

    physician_loo: Agreement
    evaluators: Mapping[str, Agreement]
    ensembles: Mapping[str, BestEnsemble]
    candidates: tuple[Candidate, ...]
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "physician_loo": self.physician_loo.to_dict(),
            "evaluators": {e: a.to_dict() for e, a in self.evaluators.items()},
            "ensembles": {m: b.to_dict() for m, b in self.ensembles.items()},
            "n_candidates": len(self.candidates),
            "n_items": self.n_items,
        }


def evaluator_alignment(release: Release, weights: Weights | None = None) -> EvaluatorAlignment:
    """RQ3 on the core items of ``release``; ``weights`` (R, core items) gives the CIs."""
    core = release.is_core
    if not core.any():
        raise ValueError("the release has no core items; RQ3 needs the ten-physician consensus")
    roster = release.roster
    slots = roster.student_ids
    reference = release.consensus[core]
    labels = release.evaluator_labels[:, core]
    evaluators = {
        e: agreement(labels[i], reference, slots, weights)
        for i, e in enumerate(roster.evaluator_ids)
    }
    loo = quiet_leave_one_out(release.physician_labels[:, core], slots, weights)
    pool = tuple(roster.ensemble_pool)
    pool_idx = [roster.evaluator_ids.index(e) for e in pool]
    subsets, voted, cands = ensemble_candidates(labels[pool_idx], reference, pool)
    return EvaluatorAlignment(
        physician_loo=loo,
        evaluators=evaluators,
        ensembles=best_ensembles(subsets, voted, cands, reference, weights),
        candidates=cands,
        n_items=int(core.sum()),
    )
