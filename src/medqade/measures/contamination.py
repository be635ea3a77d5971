"""Contamination: does a judge agree with the physicians better on the public items than on
the held-out ones, by more than the physicians themselves do?

A build with held-out labels (:mod:`medqade.dataset.holdout`) publishes the consensus of most
items and keeps the rest private. A judge whose labels were fitted to, or copied from, the
public consensus agrees with it better on the public items than on the held-out ones; an honest
judge does not, up to chance and to what makes the two sets differ (which the physicians show).

Definitions (``G`` = the public or the held-out items; the consensus is the reference):

- the judge's **agreement** on ``G``: Cohen's kappa of its labels against the consensus per
  answer slot, the mean over the five slots; an abstention or a missing label on an answer with
  a resolved consensus counts as a disagreement, unresolved answers are left out. This is the
  kappa of a judge record's ``core`` and ``full`` blocks, restricted to ``G``
  (:func:`medqade.measures.reference_agreement.grouped_agreement` with ``abstain_disagrees``);
- each physician's agreement on ``G``: the same kappa of the physician's own labels against
  the consensus, on the answers the physician rated substantively (abstentions and unrated
  answers left out). The consensus includes the physician's vote, so the level is high; the
  difference between the two sets is what is used, and that bias is on both sides of it;
- the **judge's drop** = agreement on public - agreement on held-out; the **physicians' drop**
  = the mean over physicians of each physician's drop (a physician undefined on a set left
  out, as in :func:`medqade.measures.slots.mean_defined`);
- the **excess** = judge's drop - physicians' drop. Estimand: how much more the judge's
  agreement falls from the published to the withheld items than the physicians' does.

Intervals: every quantity is recomputed on the same question resamples ``w`` (R, items)
(count weights over all items: a resample draws questions, each keeps its set), so the drops
and the excess are paired. The two-sided intervals are 95% percentiles; the flag uses the
**one-sided 95% lower bound** of the excess (its 5th percentile, undefined replicates dropped):
:attr:`Contamination.contamination` is true when that bound is above 0, i.e. the judge's drop
is larger than the physicians' at the one-sided 5% level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.reference_agreement import grouped_agreement
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.slots import AnyWeights, mean_defined

__all__ = [
    "FLAG",
    "LEVEL",
    "Contamination",
    "PhysicianSide",
    "contamination",
    "physician_side",
]

FLAG: Final = "contamination"
"""The flag word of a judge whose excess drop is significant."""
LEVEL: Final = 0.95
"""Confidence of the one-sided lower bound behind the flag (alpha = 0.05, one-sided)."""
PUBLIC: Final = "public"
HELD_OUT: Final = "held_out"


@dataclass(frozen=True, eq=False)
class Contamination:
    """A judge's agreement on public vs held-out items beside the physicians' (module
    docstring); every estimate on the same resamples."""

    judge_public: Estimate
    judge_held_out: Estimate
    judge_drop: Estimate
    physicians_public: Estimate
    physicians_held_out: Estimate
    physicians_drop: Estimate
    excess: Estimate
    excess_lower: float
    """One-sided :data:`LEVEL` lower bound of :attr:`excess` (NaN without replicates)."""
    n_public: int
    n_held_out: int
    level: float = LEVEL

    @property
    def contamination(self) -> bool:
        """The flag: the excess drop's one-sided lower bound is above 0."""
        return not math.isnan(self.excess_lower) and self.excess_lower > 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in (
            "judge_public",
            "judge_held_out",
            "judge_drop",
            "physicians_public",
            "physicians_held_out",
            "physicians_drop",
            "excess",
        ):
            out |= getattr(self, name).to_dict(name)
        return out | {
            "excess_lower": self.excess_lower,
            "level": self.level,
            FLAG: self.contamination,
            "n_public": self.n_public,
            "n_held_out": self.n_held_out,
        }


def _kappas(
    labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    groups: dict[str, npt.NDArray[np.bool_]],
    slot_names: tuple[str, ...],
    weights: AnyWeights | None,
    abstain_disagrees: bool,
) -> tuple[FloatArray, FloatArray | None]:
    """Kappa on (public, held-out): point (2,) and replicates (R, 2) (NaN: undefined)."""
    found = grouped_agreement(labels, reference, groups, slot_names, weights, abstain_disagrees)
    point = np.array([np.nan if a is None else a.kappa.value for a in found.values()])
    if weights is None:
        return point, None
    n_rep = np.asarray(weights).shape[0]
    reps = [
        np.full(n_rep, np.nan)
        if a is None or a.kappa.replicates is None
        else np.asarray(a.kappa.replicates, dtype=np.float64)
        for a in found.values()
    ]
    return point, np.stack(reps, axis=-1)


def _estimate(point: float, reps: FloatArray | None) -> Estimate:
    return Estimate.from_replicates(float(point), reps)


@dataclass(frozen=True, eq=False)
class PhysicianSide:
    """Each physician's kappa on (public, held-out) items: point (physicians, 2) and
    replicates (R, 2, physicians); the same for every judge scored on the same resamples."""

    point: FloatArray
    replicates: FloatArray | None


def physician_side(
    physician_labels: npt.ArrayLike,
    consensus: npt.ArrayLike,
    held_out: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> PhysicianSide:
    """The physicians' side of :func:`contamination`, computed once for many judges."""
    held = np.asarray(held_out, dtype=bool)
    groups = {PUBLIC: ~held, HELD_OUT: held}
    per = [
        _kappas(p, consensus, groups, slot_names, weights, False)
        for p in np.asarray(physician_labels)
    ]
    point = np.stack([pt for pt, _ in per])
    if weights is None:
        return PhysicianSide(point, None)
    return PhysicianSide(point, np.stack([r for _, r in per if r is not None], axis=-1))


def contamination(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    consensus: npt.ArrayLike,
    held_out: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    physicians: PhysicianSide | None = None,
) -> Contamination:
    """The judge's public-vs-held-out agreement beside the physicians' (module docstring).

    ``labels`` (items, slots) the judge's codes; ``physician_labels`` (physicians, items,
    slots); ``consensus`` (items, slots) with the held-out items' labels restored (``-1``:
    unresolved); ``held_out`` (items,) the build's held-out mask; ``weights`` (R, items)
    question count weights (``None``: no intervals, no flag); ``physicians``: the
    :func:`physician_side` of the same arguments, when already computed.
    """
    held = np.asarray(held_out, dtype=bool)
    lab = np.asarray(labels)
    phys = np.asarray(physician_labels)
    if lab.shape != np.shape(consensus) or lab.shape[:1] != held.shape or phys.ndim != 3:
        raise ValueError("labels and consensus must be (items, slots), held_out (items,)")
    if phys.shape[1:] != lab.shape:
        raise ValueError("physician_labels must be (physicians, items, slots) like labels")
    if not held.any() or held.all():
        raise ValueError("contamination needs public and held-out items")
    groups = {PUBLIC: ~held, HELD_OUT: held}
    j_point, j_reps = _kappas(lab, consensus, groups, slot_names, weights, True)
    side = physicians or physician_side(phys, consensus, held, slot_names, weights)
    p_point, p_reps = side.point, side.replicates  # (P, 2), (R, 2, P)

    def mean_of(k: int) -> Estimate:
        reps = None if p_reps is None else mean_defined(p_reps[:, k])
        return _estimate(float(mean_defined(p_point[:, k])), reps)

    judge_drop = _estimate(
        float(j_point[0] - j_point[1]), None if j_reps is None else j_reps[:, 0] - j_reps[:, 1]
    )
    phys_drop = _estimate(
        float(mean_defined(p_point[:, 0] - p_point[:, 1])),
        None if p_reps is None else mean_defined(p_reps[:, 0] - p_reps[:, 1]),
    )
    excess_reps = None
    if judge_drop.replicates is not None and phys_drop.replicates is not None:
        excess_reps = judge_drop.replicates - phys_drop.replicates
    excess = _estimate(judge_drop.value - phys_drop.value, excess_reps)
    lower = math.nan
    if excess_reps is not None:
        lower = float(stats.percentile_ci(excess_reps, level=2 * LEVEL - 1).low)
    return Contamination(
        judge_public=_estimate(j_point[0], None if j_reps is None else j_reps[:, 0]),
        judge_held_out=_estimate(j_point[1], None if j_reps is None else j_reps[:, 1]),
        judge_drop=judge_drop,
        physicians_public=mean_of(0),
        physicians_held_out=mean_of(1),
        physicians_drop=phys_drop,
        excess=excess,
        excess_lower=lower,
        n_public=int((~held).sum()),
        n_held_out=int(held.sum()),
    )
