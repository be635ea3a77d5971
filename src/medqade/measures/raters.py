"""Every physician on their own: agreement with the others, abstention, re-rating, outliers.

Per physician ``p`` (all on the same question resamples, decided on unrounded values):

- ``core``: kappa, PA and PABAK of ``p`` against the strict-majority consensus of the other
  physicians on the core items (per slot, then the unweighted mean over the five slots): the
  term the ceiling (:func:`~medqade.measures.physician_reference.leave_one_out`) averages;
- ``partner`` / ``adjudicator`` (extension, primary raters only): the same statistics against
  the other primary rater of each item, and against the adjudicator on the adjudicated items;
- ``abstention``: abstentions / non-missing answer ratings per difficulty tier (all items);
- ``fleiss_with`` / ``fleiss_without``: the panel's Fleiss' kappa on the core (mean over
  slots) with all physicians and with ``p`` left out, and ``fleiss_change`` = without - with;
- ``intra``: Cohen's kappa and PA of ``p``'s first rating against ``p``'s ``rerating`` of the
  same answer (both substantive), per slot and then the unweighted mean over the re-rated slots
  (like the inter-rater kappa), resampling the re-rated questions;
- the **outlier rule**: ``gap`` = core kappa of ``p`` minus the mean core kappa of the other
  physicians, with replicates on the same resamples. ``p`` is an :data:`OUTLIER` when the
  upper bound of the Bonferroni-adjusted percentile interval of ``gap`` (level
  ``1 - 0.05 / P`` for a panel of ``P`` physicians) is below 0, :data:`ABOVE_PANEL` when the
  lower bound is above 0, else :data:`CONSISTENT`; no verdict when ``gap`` is undefined. The
  far tails need many resamples (0.25% per tail for ten physicians: 2.5 replicates of 1,000),
  so the rule runs on its own :data:`OUTLIER_RESAMPLES` core resamples and reports the
  Monte-Carlo standard error of each adjusted bound (:func:`quantile_mc_se`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.measures.estimate import Estimate, FloatArray, pabak_of
from medqade.measures.paired import difference
from medqade.measures.slots import (
    Agreement,
    AnyWeights,
    mean_defined,
    slot_mean,
    substantive,
)

OUTLIER: Final = "outlier"
ABOVE_PANEL: Final = "above the panel"
CONSISTENT: Final = "consistent"
OUTLIER_VERDICTS: Final = (OUTLIER, CONSISTENT, ABOVE_PANEL)
FAMILY_ALPHA: Final = 0.05
"""Error rate of the outlier rule over the whole panel (Bonferroni over the physicians)."""
OUTLIER_RESAMPLES: Final = 20_000
"""Core resamples behind the outlier rule: 50 replicates beyond each 99.5% bound."""


@dataclass(frozen=True, eq=False)
class IntraRater:
    """First rating against the re-rating of the same answers by the same physician."""

    kappa: Estimate
    pa: Estimate
    n: int
    n_items: int

    @property
    def pabak(self) -> Estimate:
        return pabak_of(self.pa)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.kappa.to_dict("kappa"),
            **self.pa.to_dict("pa"),
            **self.pabak.to_dict("pabak"),
            "n": self.n,
            "n_items": self.n_items,
        }


@dataclass(frozen=True, eq=False)
class Rater:
    """One physician's quality figures (module docstring)."""

    physician: str
    adjudicator: bool
    core: Agreement
    partner: Agreement | None
    versus_adjudicator: Agreement | None
    abstention: dict[int, tuple[int, int]]
    fleiss_with: Estimate
    fleiss_without: Estimate
    intra: IntraRater | None
    gap: Estimate
    gap_bounds: tuple[float, float]
    verdict: str | None
    gap_bounds_mc_se: tuple[float, float] = (math.nan, math.nan)
    """Monte-Carlo standard error of each adjusted bound (:func:`quantile_mc_se`)."""

    @property
    def fleiss_change(self) -> Estimate:
        return difference(self.fleiss_without, self.fleiss_with)

    def abstention_rate(self, tier: int) -> float:
        k, n = self.abstention.get(tier, (0, 0))
        return k / n if n else math.nan

    def to_dict(self) -> dict[str, Any]:
        def agr(a: Agreement | None) -> dict[str, Any] | None:
            if a is None:
                return None
            d = a.to_dict()
            d.pop("slots", None)
            return d

        return {
            "physician": self.physician,
            "adjudicator": self.adjudicator,
            "core_loo": agr(self.core),
            "extension_partner": agr(self.partner),
            "extension_adjudicator": agr(self.versus_adjudicator),
            "abstention_by_tier": {
                str(t): {"abstained": k, "rated": n, "rate": (k / n if n else None)}
                for t, (k, n) in sorted(self.abstention.items())
            },
            **self.fleiss_with.to_dict("fleiss_kappa_with"),
            **self.fleiss_without.to_dict("fleiss_kappa_without"),
            **self.fleiss_change.to_dict("fleiss_kappa_change"),
            "intra_rater": None if self.intra is None else self.intra.to_dict(),
            **self.gap.to_dict("kappa_gap"),
            "kappa_gap_adjusted_ci": list(self.gap_bounds),
            "kappa_gap_adjusted_ci_mc_se": list(self.gap_bounds_mc_se),
            "outlier_verdict": self.verdict,
        }


def outlier_verdict(low: float, high: float) -> str | None:
    """The verdict of the outlier rule from the adjusted bounds of the gap."""
    if math.isnan(low) or math.isnan(high):
        return None
    if high < 0:
        return OUTLIER
    if low > 0:
        return ABOVE_PANEL
    return CONSISTENT


def adjusted_level(n_physicians: int) -> float:
    return 1.0 - FAMILY_ALPHA / max(n_physicians, 1)


def panel_fleiss(
    labels: npt.ArrayLike, weights: AnyWeights | None = None
) -> tuple[float, FloatArray | None]:
    """Fleiss' kappa of ``labels`` (raters, items, slots) per slot, mean over the slots; with
    ``weights`` also the replicates (R,) of that mean."""
    x = substantive(labels)
    point = np.array([stats.fleiss_kappa(x[:, :, s], 2) for s in range(x.shape[2])])
    if weights is None:
        return float(slot_mean(point, point)), None
    reps = np.stack([stats.fleiss_kappa(x[:, :, s], 2, weights) for s in range(x.shape[2])], -1)
    return float(slot_mean(point, point)), slot_mean(reps, point)


def quantile_mc_se(replicates: npt.ArrayLike, q: float, z: float = 1.959963984540054) -> float:
    """Monte-Carlo standard error of the ``q`` percentile-bound of ``replicates`` (NaN dropped).

    Order-statistic (binomial) method: the count of replicates below the true bootstrap
    quantile is Binomial(B, q), so the order statistics ``B q -+ z sqrt(B q (1 - q))`` bracket
    it with about 95% probability; half their distance over ``z`` is the standard error. NaN
    when the bracket leaves the replicates (too few of them for this tail).
    """
    x = np.sort(np.asarray(replicates, dtype=np.float64))
    x = x[~np.isnan(x)]
    b = x.size
    if b == 0:
        return math.nan
    half = z * math.sqrt(b * q * (1.0 - q))
    lo, hi = math.floor(b * q - half), math.ceil(b * q + half)
    if lo < 0 or hi > b - 1:
        return math.nan
    return float((x[hi] - x[lo]) / (2.0 * z))


def kappa_gap(core: list[Agreement], p: int, level: float) -> tuple[Estimate, tuple[float, float]]:
    """Kappa of ``p`` minus the mean kappa of the others, and its adjusted bounds."""
    others = [c.kappa for q, c in enumerate(core) if q != p]
    values = np.array([o.value for o in others])
    mean_other = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
    reps_p = core[p].kappa.replicates
    if reps_p is None or any(o.replicates is None for o in others):
        return Estimate(core[p].kappa.value - mean_other, math.nan, math.nan), (math.nan, math.nan)
    stacked = np.stack([o.replicates for o in others if o.replicates is not None])
    mean_reps = mean_defined(stacked.T)  # over the other physicians
    gap = difference(core[p].kappa, Estimate.from_replicates(mean_other, mean_reps))
    if gap.replicates is None:
        return gap, (math.nan, math.nan)
    ci = stats.percentile_ci(gap.replicates, level=level)
    return gap, (float(ci.low), float(ci.high))


def partner_references(labels: npt.ArrayLike, primary: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """For every physician, the label of the other primary rater of each item (physicians,
    items, slots): defined where the item has exactly two primary raters, one of them ``p``."""
    x = np.asarray(labels, dtype=np.int64)
    rated = (x >= 0).any(axis=2)  # (physicians, items)
    prim = np.zeros(x.shape[0], dtype=bool)
    prim[list(primary)] = True
    pair = rated & prim[:, None]
    two = pair.sum(axis=0) == 2
    out = np.full(x.shape, stats.MISSING, dtype=np.int64)
    for p in primary:
        mine = two & pair[p]
        for q in primary:
            if q == p:
                continue
            both = mine & pair[q]
            out[p][both] = x[q][both]
    return out


def intra_rater(
    first: npt.ArrayLike,
    again: npt.ArrayLike,
    items: npt.ArrayLike,
    slots: npt.ArrayLike,
    weights: AnyWeights | None,
) -> IntraRater:
    """Kappa and PA of ``first`` against ``again`` (answers,) per slot, then the unweighted
    mean over the slots present in ``slots`` (the answers' slot indices), like the inter-rater
    kappa (:func:`~medqade.measures.slots.slot_mean`: replicates over the same slots). The
    answers' question indices ``items`` (0..Q-1) tie them to the question weights (R, Q)."""
    a = substantive(first)
    b = substantive(again)
    ok = (a >= 0) & (b >= 0)
    idx = np.asarray(items, dtype=np.int64)
    slot = np.asarray(slots, dtype=np.int64)
    per = [slot == s for s in np.unique(slot)]
    k_slots = np.array([stats.cohen_kappa(a[m], b[m], 2) for m in per], dtype=np.float64)
    p_slots = np.array([stats.percent_agreement(a[m], b[m], 2) for m in per], dtype=np.float64)
    kappa = float(slot_mean(k_slots, k_slots))
    pa = float(slot_mean(p_slots, p_slots))
    k_reps = p_reps = None
    if weights is not None:
        w = np.asarray(weights)
        k_reps = slot_mean(
            np.stack([stats.cohen_kappa(a[m], b[m], 2, weights=w[:, idx[m]]) for m in per], -1),
            k_slots,
        )
        p_reps = slot_mean(
            np.stack(
                [stats.percent_agreement(a[m], b[m], 2, weights=w[:, idx[m]]) for m in per], -1
            ),
            p_slots,
        )
    return IntraRater(
        kappa=Estimate.from_replicates(kappa, k_reps),
        pa=Estimate.from_replicates(pa, p_reps),
        n=int(ok.sum()),
        n_items=len(np.unique(idx[ok])) if ok.any() else 0,
    )


__all__ = [
    "ABOVE_PANEL",
    "CONSISTENT",
    "OUTLIER",
    "OUTLIER_RESAMPLES",
    "OUTLIER_VERDICTS",
    "IntraRater",
    "Rater",
    "adjusted_level",
    "intra_rater",
    "kappa_gap",
    "outlier_verdict",
    "panel_fleiss",
    "partner_references",
    "quantile_mc_se",
    "tier_abstention",
]


def tier_abstention(
    labels: npt.ArrayLike, tiers: npt.ArrayLike
) -> list[dict[int, tuple[int, int]]]:
    """Per physician, ``{tier: (abstentions, non-missing ratings)}`` over all items."""
    x = np.asarray(labels)
    t = np.asarray(tiers)
    out = []
    for p in range(x.shape[0]):
        row = {}
        for tier in vocab.TIERS:
            sel = x[p][t == tier]
            row[tier] = (int((sel == vocab.ABSTAIN_CODE).sum()), int((sel >= 0).sum()))
        out.append(row)
    return out
