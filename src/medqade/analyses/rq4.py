"""RQ4: self and family bias of the evaluators (methods section 6, Figure 3).

The bias terms are :mod:`medqade.measures.bias`; this module applies them to the release's
nine evaluators and shapes Figure 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from medqade.dataset.release import Release
from medqade.measures import (
    FAMILY,
    SELF,
    Bias,
    Target,
    Weights,
    bias_replicates,
    bias_targets,
    bias_terms,
    biases,
)

__all__ = [
    "FAMILY",
    "SELF",
    "Bias",
    "EvaluatorBias",
    "Target",
    "bias_replicates",
    "bias_targets",
    "bias_terms",
    "evaluator_bias",
]


@dataclass(frozen=True)
class EvaluatorBias:
    """Figure 3: self bias per evaluator that is also a student, family bias per pair."""

    self_bias: Mapping[str, Bias]
    family: tuple[Bias, ...]
    n_items: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "self": {
                e: {"delta": b.delta.value, "ci": list(b.delta.ci), "n": b.n}
                for e, b in self.self_bias.items()
            },
            "family": [b.to_dict() for b in self.family],
            "n_items": self.n_items,
        }


def evaluator_bias(release: Release, weights: Weights | None = None) -> EvaluatorBias:
    """RQ4 on all items of ``release``; ``weights`` (R, items) gives the CIs."""
    roster = release.roster
    targets = bias_targets(roster)
    families = tuple(roster.family(e) for e in roster.evaluator_ids)
    found = biases(release.evaluator_labels, families, targets, weights)
    return EvaluatorBias(
        self_bias={b.evaluator: b for b in found if b.kind == SELF},
        family=tuple(b for b in found if b.kind == FAMILY),
        n_items=release.n_items,
    )
