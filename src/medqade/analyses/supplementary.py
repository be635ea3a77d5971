"""Data behind the two supplementary figures: the physician kappa heatmap and risk-coverage.

Physician x physician kappa (core): for every pair, Cohen's kappa per answer slot on the items
both rated substantively, then the unweighted mean over the five slots (the RQ1 definition,
pair by pair; slots are not pooled, so that slot prevalence does not leak into the chance term).
The diagonal is NaN.

Risk-coverage (all items): for evaluator A and each answer slot with a resolved consensus and a
substantive label from A, the *disagreement* of A is the share of the other evaluators'
substantive labels on that answer that differ from A's label (1 when no other evaluator gave
one). Deferring the answers where A disagrees most with the others, coverage ``c(u)`` is the
share of A's answers with disagreement ``<= u`` and accuracy ``acc(u)`` is the share of those
where A's label equals the consensus; the curve has one point per distinct ``u`` (ties move
together, so no arbitrary order enters), ending at coverage 1 with A's plain accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from medqade import stats, vocab
from medqade.analyses.common import FloatArray, ratio
from medqade.dataset.release import Release
from medqade.measures import substantive


@dataclass(frozen=True)
class KappaMatrix:
    """Mean-over-slots pairwise kappa of the physicians on the core items."""

    raters: tuple[str, ...]
    matrix: FloatArray

    def to_dict(self) -> dict[str, Any]:
        return {"raters": list(self.raters), "matrix": self.matrix.tolist(), "pooling": "mean"}


def physician_kappa_matrix(release: Release) -> KappaMatrix:
    """Physician x physician kappa on the core items, mean over the slots."""
    x = substantive(release.physician_labels[:, release.is_core])
    n = x.shape[0]
    per_slot = []
    for s in range(x.shape[2]):
        panel = stats.pairwise_panel(x[:, :, s], k=2)
        per_slot.append(panel.kappa)
        pairs = panel.pairs
    kappa = np.stack(per_slot)  # (slots, pairs)
    valid = ~np.isnan(kappa)
    mean = ratio(np.where(valid, kappa, 0.0).sum(axis=0), valid.sum(axis=0))
    matrix = np.full((n, n), np.nan)
    matrix[pairs[:, 0], pairs[:, 1]] = mean
    matrix[pairs[:, 1], pairs[:, 0]] = mean
    return KappaMatrix(release.roster.physicians, matrix)


@dataclass(frozen=True)
class Curve:
    """Risk-coverage points of one evaluator (see the module docstring)."""

    threshold: tuple[float, ...]
    coverage: tuple[float, ...]
    accuracy: tuple[float, ...]
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "threshold": list(self.threshold),
            "coverage": list(self.coverage),
            "accuracy": list(self.accuracy),
            "n": self.n,
        }


def _curve(disagreement: FloatArray, correct: FloatArray) -> Curve:
    if disagreement.size == 0:
        return Curve((), (), (), 0)
    order = np.argsort(disagreement, kind="stable")
    u = disagreement[order]
    hits = np.cumsum(correct[order])
    last = np.flatnonzero(np.r_[u[1:] != u[:-1], True])  # last position of each distinct u
    kept = last + 1
    return Curve(
        threshold=tuple(float(x) for x in u[last]),
        coverage=tuple(float(x) for x in kept / u.size),
        accuracy=tuple(float(x) for x in hits[last] / kept),
        n=int(u.size),
    )


def risk_coverage(release: Release) -> dict[str, Curve]:
    """One risk-coverage curve per evaluator on all items (roster ids as keys)."""
    labels = substantive(release.evaluator_labels)  # (E, items, slots), -1 missing
    richtig = (labels == vocab.RICHTIG_CODE).sum(axis=0)
    falsch = (labels == vocab.FALSCH_CODE).sum(axis=0)
    consensus = release.consensus
    out: dict[str, Curve] = {}
    for e, ev in enumerate(release.roster.evaluator_ids):
        own = labels[e]
        ok = (own >= 0) & (consensus >= 0)
        # other evaluators' substantive labels on each answer, and how many of them differ
        others = richtig + falsch - (own >= 0)
        differ = np.where(own == vocab.RICHTIG_CODE, falsch, richtig)
        dis = np.where(others > 0, ratio(differ, others), 1.0)
        out[ev] = _curve(dis[ok], (own == consensus)[ok].astype(np.float64))
    return out


@dataclass(frozen=True)
class Supplementary:
    """Both supplementary figures' data."""

    physician_kappa: KappaMatrix
    risk_coverage: Mapping[str, Curve]

    def to_dict(self) -> dict[str, Any]:
        return {
            "physician_kappa": self.physician_kappa.to_dict(),
            "risk_coverage": {e: c.to_dict() for e, c in self.risk_coverage.items()},
        }


def supplementary(release: Release) -> Supplementary:
    return Supplementary(physician_kappa_matrix(release), risk_coverage(release))
