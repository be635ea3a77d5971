"""RQ5: abstention (``Keine Angabe``) by difficulty tier (methods section 6, Table 4).

Tiers come from physician difficulty only (:func:`~medqade.analyses.common.physician_tiers`).

Physicians: per physician and tier, abstentions / non-missing answer-slot ratings (all items
that physician rated, both rounds); the table reports the median over the physicians who rated
anything in that tier (a physician with no rating in a tier has no rate there, NaN).

Evaluators: abstentions / *all* answer slots, globally and per tier (the paper's denominators,
9,010 / 6,330 / 2,860 / 800 slots). A missing or unparseable judgment is not an abstention: it
stays in the denominator and is counted separately (``missing``), so the rate is the share of
answers the evaluator explicitly declined to judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from medqade import vocab
from medqade.analyses.common import FloatArray, physician_tiers, ratio
from medqade.dataset.release import Release


@dataclass(frozen=True)
class EvaluatorAbstention:
    """Abstention of one evaluator: global and per tier (tiers 1-4)."""

    global_rate: float
    by_tier: tuple[float, ...]
    abstentions: int
    missing: int
    slots: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "global": self.global_rate,
            "by_tier": list(self.by_tier),
            "abstentions": self.abstentions,
            "missing": self.missing,
            "slots": self.slots,
        }


@dataclass(frozen=True)
class Abstention:
    """Table 4."""

    physician_rates: Mapping[str, tuple[float, ...]]
    physician_median: tuple[float, ...]
    evaluators: Mapping[str, EvaluatorAbstention]
    tier_slots: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "physicians": {
                "median_by_tier": list(self.physician_median),
                "by_physician": {p: list(r) for p, r in self.physician_rates.items()},
            },
            "evaluators": {e: a.to_dict() for e, a in self.evaluators.items()},
            "tier_slots": list(self.tier_slots),
        }


def _median(x: FloatArray) -> float:
    ok = x[~np.isnan(x)]
    return float(np.median(ok)) if ok.size else float("nan")


def abstention(release: Release) -> Abstention:
    """RQ5 on all items of ``release``."""
    tier = physician_tiers(release.physician_difficulty)
    in_tier = np.stack([tier == t for t in vocab.TIERS])  # (tiers, items)
    phys = release.physician_labels
    # (physicians, tiers): counts over the items of the tier and all five slots
    rated = np.einsum("pis,ti->pt", (phys >= 0).astype(np.int64), in_tier.astype(np.int64))
    abst = np.einsum(
        "pis,ti->pt", (phys == vocab.ABSTAIN_CODE).astype(np.int64), in_tier.astype(np.int64)
    )
    rates = ratio(abst, rated)
    ev = release.evaluator_labels
    ev_abst = (ev == vocab.ABSTAIN_CODE).sum(axis=2)  # (evaluators, items)
    ev_missing = (ev == vocab.MISSING_CODE).sum(axis=2)
    tier_slots = in_tier.sum(axis=1) * ev.shape[2]
    by_tier = ratio(ev_abst @ in_tier.T, tier_slots)  # (evaluators, tiers)
    total_slots = ev.shape[1] * ev.shape[2]
    return Abstention(
        physician_rates={
            p: tuple(float(x) for x in rates[i]) for i, p in enumerate(release.roster.physicians)
        },
        physician_median=tuple(_median(rates[:, t]) for t in range(len(vocab.TIERS))),
        evaluators={
            e: EvaluatorAbstention(
                global_rate=float(ratio(ev_abst[i].sum(), total_slots)),
                by_tier=tuple(float(x) for x in by_tier[i]),
                abstentions=int(ev_abst[i].sum()),
                missing=int(ev_missing[i].sum()),
                slots=int(total_slots),
            )
            for i, e in enumerate(release.roster.evaluator_ids)
        },
        tier_slots=tuple(int(x) for x in tier_slots),
    )
