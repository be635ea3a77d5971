"""Self and family bias terms (methods section 6, Figure 3).

On all items: score ``S = 1`` for Richtig, ``0`` for Falsch; abstentions and missing or
unparseable judgments are dropped. For a target evaluator A and an answer r, the peer mean is
the mean score of the evaluators *outside A's family* that gave r a substantive label. The
bias of A on student model m is the mean, over m's answers that A scored and at least one peer
scored, of ``S(A, r) - peer mean(r)``. Self bias: m is A's own model; family bias: m is a
sibling (same family, not A), one estimate per (A, m) pair, never pooled.

Every estimate is a ratio of item sums ``sum_i d_i / sum_i v_i`` (``d_i`` the difference or 0,
``v_i`` 1 where it is defined), so a bootstrap replicate with question count weights ``w`` is
``w @ d / w @ v``: all estimates and all replicates are one matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.estimate import Estimate, FloatArray, ratio
from medqade.vocab import Roster

__all__ = [
    "FAMILY",
    "SELF",
    "Bias",
    "Target",
    "bias_replicates",
    "bias_targets",
    "bias_terms",
    "biases",
    "ratio",
    "substantive_scores",
]

SELF: Final = "self"
FAMILY: Final = "family"


def substantive_scores(codes: npt.ArrayLike) -> FloatArray:
    """Richtig 1.0, Falsch 0.0, everything else (abstention, missing) NaN."""
    c = np.asarray(codes)
    out = np.full(c.shape, np.nan)
    out[c == vocab.RICHTIG_CODE] = 1.0
    out[c == vocab.FALSCH_CODE] = 0.0
    return out


@dataclass(frozen=True)
class Target:
    """One bias estimate to compute: evaluator (row of the labels) on a student slot."""

    kind: str
    evaluator: str
    student: str
    evaluator_index: int
    slot: int


def bias_targets(roster: Roster) -> tuple[Target, ...]:
    """Self targets (evaluators that are also students), then family (A, sibling m) pairs."""
    out = []
    students = roster.student_ids
    for e, ev in enumerate(roster.evaluator_ids):
        if ev in students:
            out.append(Target(SELF, ev, ev, e, students.index(ev)))
    for e, ev in enumerate(roster.evaluator_ids):
        fam = roster.family(ev)
        for s, st in enumerate(students):
            if st != ev and roster.family(st) == fam:
                out.append(Target(FAMILY, ev, st, e, s))
    return tuple(out)


def bias_terms(
    labels: npt.ArrayLike, families: tuple[str, ...], targets: tuple[Target, ...]
) -> tuple[FloatArray, FloatArray]:
    """Per-item differences and validity for every target.

    Parameters
    ----------
    labels : array_like of int, shape (evaluators, items, slots)
        Evaluator label codes.
    families : tuple of str, length evaluators
        Family of every evaluator (row of `labels`).
    targets : tuple of Target

    Returns
    -------
    d, v : ndarray of float64, shape (items, targets)
        ``d`` = ``S(A, r) - peer mean(r)`` where defined, else 0; ``v`` = 1 where defined.
    """
    scores = substantive_scores(labels)
    fam = np.asarray(families)
    n_items = scores.shape[1]
    d = np.zeros((n_items, len(targets)))
    v = np.zeros((n_items, len(targets)))
    for j, t in enumerate(targets):
        peers = scores[fam != fam[t.evaluator_index], :, t.slot]
        rated = ~np.isnan(peers)
        peer_mean = ratio(np.where(rated, peers, 0.0).sum(axis=0), rated.sum(axis=0))
        diff = scores[t.evaluator_index, :, t.slot] - peer_mean
        ok = ~np.isnan(diff)
        d[:, j] = np.where(ok, diff, 0.0)
        v[:, j] = ok
    return d, v


def bias_replicates(
    d: FloatArray, v: FloatArray, weights: npt.NDArray[np.int64] | FloatArray
) -> FloatArray:
    """Bootstrap replicates (R, targets) of every bias: ``(w @ d) / (w @ v)``."""
    w = np.asarray(weights, dtype=np.float64)
    return ratio(w @ d, w @ v)


@dataclass(frozen=True, eq=False)
class Bias:
    """One bias estimate (a difference of proportions) with its interval and answer count.

    ``significant``: the 95% interval excludes 0 (decided on unrounded bounds).
    """

    kind: str
    evaluator: str
    student: str
    delta: Estimate
    n: int

    @property
    def significant(self) -> bool:
        return self.delta.excludes_zero()

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluator": self.evaluator,
            "student": self.student,
            "delta": self.delta.value,
            "ci": list(self.delta.ci),
            "significant": self.significant,
            "n": self.n,
        }


def biases(
    labels: npt.ArrayLike,
    families: tuple[str, ...],
    targets: tuple[Target, ...],
    weights: npt.NDArray[np.int64] | FloatArray | None,
) -> tuple[Bias, ...]:
    """Every target's :class:`Bias` (point, 95% CI from ``weights`` (R, items), n)."""
    d, v = bias_terms(labels, families, targets)
    point = ratio(d.sum(axis=0), v.sum(axis=0))
    reps = None if weights is None else bias_replicates(d, v, weights)
    return tuple(
        Bias(
            kind=t.kind,
            evaluator=t.evaluator,
            student=t.student,
            delta=Estimate.from_replicates(float(point[j]), None if reps is None else reps[:, j]),
            n=int(v[:, j].sum()),
        )
        for j, t in enumerate(targets)
    )
