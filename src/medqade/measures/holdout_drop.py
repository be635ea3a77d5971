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
and the excess are paired; the intervals are 95% percentiles, and :attr:`Contamination.excess_lower`
(the 5th percentile of the excess, undefined replicates dropped) is reported beside them.

The flag is a **stratified permutation test** of the excess, not the bootstrap bound: the
held-out items were drawn at random within strata (split x difficulty tier,
:func:`medqade.dataset.holdout.choose`), so for a judge whose labels do not depend on which
items were withheld every re-draw of the held-out set with the same number of items per stratum
was as likely as the real one. :func:`permuted_splits` draws ``B`` such re-draws (seeded), the
excess is recomputed on each, and the one-sided p value is ``(1 + #{excess on a re-draw >=
observed excess}) / (1 + B)`` (re-draws where the excess is undefined left out).
:attr:`Contamination.contamination` is true when ``p <= ALPHA`` (0.05). The test is exact at
its level for an honest judge whatever the items, the physicians or the judge look like (the
bootstrap bound it replaces had about the right spread, but its level rested on the bootstrap's
approximation; ``bench/contamination.py`` and docs/holdout.md give the measured rates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.reference_agreement import grouped_agreement
from medqade.measures.seeds import BOOTSTRAP_SEED, STREAM_CONTAMINATION, generator
from medqade.measures.slots import AnyWeights, mean_defined

__all__ = [
    "ALPHA",
    "FLAG",
    "LEVEL",
    "SPLITS",
    "Contamination",
    "PhysicianSide",
    "combined_p",
    "contamination",
    "holdout_strata",
    "permuted_splits",
    "physician_side",
]

FLAG: Final = "contamination"
"""The flag word of a judge whose excess drop is significant."""
LEVEL: Final = 0.95
"""Confidence of the intervals' one-sided lower bound :attr:`Contamination.excess_lower`."""
ALPHA: Final = 0.05
"""Level of the permutation test behind the flag (one-sided)."""
SPLITS: Final = 1000
"""Re-draws of the held-out set in the permutation test."""
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
    p_value: float = math.nan
    """One-sided permutation p value of :attr:`excess` (NaN without re-draws)."""
    n_splits: int = 0
    """Re-draws of the held-out set behind :attr:`p_value` (those where the excess is defined)."""
    level: float = LEVEL

    @property
    def contamination(self) -> bool:
        """The flag: the permutation p value of the excess is at most :data:`ALPHA`."""
        return not math.isnan(self.p_value) and self.p_value <= ALPHA

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
            "p_value": self.p_value,
            "n_splits": self.n_splits,
            "alpha": ALPHA,
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
    permuted: FloatArray | None = None
    """The physicians' drop on each re-draw of the held-out set (B,) (NaN: undefined)."""


def combined_p(p_values: tuple[float, ...]) -> float:
    """The p value of several checks of one judge (a record's core and all items): the
    smallest, times their number, at most 1 (Bonferroni); NaN values are left out (NaN when
    none is defined). Flagging at :data:`ALPHA` on it keeps an honest judge's chance of a flag
    at most :data:`ALPHA` over all the checks together."""
    found = [p for p in p_values if not math.isnan(p)]
    return min(1.0, len(found) * min(found)) if found else math.nan


def holdout_strata(is_core: npt.ArrayLike, tier: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Each item's stratum of the hold-out draw: split x difficulty tier (0: no tier)."""
    return np.asarray(is_core, dtype=np.int64) * 16 + np.asarray(tier, dtype=np.int64)


def permuted_splits(
    held_out: npt.ArrayLike,
    strata: npt.ArrayLike,
    n_splits: int = SPLITS,
    seed: int = BOOTSTRAP_SEED,
) -> npt.NDArray[np.bool_]:
    """``n_splits`` re-draws (B, items) of the held-out mask: within each stratum the held-out
    flags are shuffled independently per re-draw, so every re-draw holds out as many items of
    each stratum as ``held_out`` does (stream
    :data:`~medqade.measures.seeds.STREAM_CONTAMINATION`)."""
    held = np.asarray(held_out, dtype=bool)
    keys = np.asarray(strata)
    if keys.shape != held.shape:
        raise ValueError("strata must be (items,) like held_out")
    rng = generator(seed, STREAM_CONTAMINATION)
    out = np.zeros((n_splits, held.size), dtype=bool)
    for key in np.unique(keys):
        pos = np.flatnonzero(keys == key)
        out[:, pos] = rng.permuted(np.tile(held[pos], (n_splits, 1)), axis=1)
    return out


def _split_kappas(
    labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    splits: npt.NDArray[np.bool_],
    slot_names: tuple[str, ...],
    abstain_disagrees: bool,
) -> FloatArray:
    """Kappa on the public and held-out items of every re-draw (B, 2) (NaN: undefined): each
    set is the whole release under 0/1 weights."""
    every = {"all": np.ones(splits.shape[1], dtype=bool)}
    out = []
    for weights in (~splits, splits):
        found = grouped_agreement(
            labels, reference, every, slot_names, weights.astype(np.int64), abstain_disagrees
        )["all"]
        reps = None if found is None else found.kappa.replicates
        out.append(np.full(len(splits), np.nan) if reps is None else np.asarray(reps, float))
    return np.stack(out, axis=-1)


def physician_side(
    physician_labels: npt.ArrayLike,
    consensus: npt.ArrayLike,
    held_out: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    splits: npt.NDArray[np.bool_] | None = None,
) -> PhysicianSide:
    """The physicians' side of :func:`contamination`, computed once for many judges."""
    held = np.asarray(held_out, dtype=bool)
    groups = {PUBLIC: ~held, HELD_OUT: held}
    phys = np.asarray(physician_labels)
    per = [_kappas(p, consensus, groups, slot_names, weights, False) for p in phys]
    point = np.stack([pt for pt, _ in per])
    permuted = None
    if splits is not None:
        drops = [_split_kappas(p, consensus, splits, slot_names, False) for p in phys]
        permuted = mean_defined(np.stack([d[:, 0] - d[:, 1] for d in drops], axis=-1))
    if weights is None:
        return PhysicianSide(point, None, permuted)
    reps = np.stack([r for _, r in per if r is not None], axis=-1)
    return PhysicianSide(point, reps, permuted)


def contamination(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    consensus: npt.ArrayLike,
    held_out: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    physicians: PhysicianSide | None = None,
    splits: npt.NDArray[np.bool_] | None = None,
) -> Contamination:
    """The judge's public-vs-held-out agreement beside the physicians' (module docstring).

    ``labels`` (items, slots) the judge's codes; ``physician_labels`` (physicians, items,
    slots); ``consensus`` (items, slots) with the held-out items' labels restored (``-1``:
    unresolved); ``held_out`` (items,) the build's held-out mask; ``weights`` (R, items)
    question count weights (``None``: no intervals); ``splits`` (B, items) the re-draws of
    the held-out set of the permutation test (:func:`permuted_splits`; ``None``: no p value, no
    flag); ``physicians``: the :func:`physician_side` of the same arguments, when already
    computed.
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
    if splits is not None and np.shape(splits)[1:] != held.shape:
        raise ValueError("splits must be (re-draws, items) like held_out")
    side = physicians or physician_side(phys, consensus, held, slot_names, weights, splits)
    if splits is not None and side.permuted is None:
        raise ValueError("physicians were computed without the splits")
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
    p_value, n_splits = math.nan, 0
    if splits is not None and side.permuted is not None and not math.isnan(excess.value):
        j_perm = _split_kappas(lab, consensus, np.asarray(splits, bool), slot_names, True)
        null = j_perm[:, 0] - j_perm[:, 1] - side.permuted
        null = null[~np.isnan(null)]
        n_splits = len(null)
        # ties count against the flag (a tolerance for rounding of equal sums)
        p_value = (1 + int((null >= excess.value - 1e-12).sum())) / (1 + n_splits)
    return Contamination(
        p_value=p_value,
        n_splits=n_splits,
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
