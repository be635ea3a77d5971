"""RQ1: physician reliability on the core items (methods section 6, Table 1).

Per answer slot: mean pairwise Cohen's kappa and mean pairwise percent agreement (PA) over all
rater pairs (45 for ten physicians), PABAK ``2 * PA - 1``, and Krippendorff's alpha (nominal)
over all raters; abstentions are missing. The overall row is the unweighted mean of the five
slot estimates and has no interval. Difficulty reliability is Krippendorff's alpha with squared
distances on the scores 0/1/2 (the interval metric).

The whole panel at once (:mod:`medqade.measures.panel`): per slot Fleiss' kappa and Gwet's AC1
over all raters (missing ratings allowed), and beside difficulty alpha the ICC(2,1) of the
difficulty scores (two-way random, absolute agreement, single rater; items a physician left
unscored dropped).

Intervals are bootstrap percentiles over question resamples given as count weights
``(R, core items)``: every pair, slot and statistic uses the same weights, and every replicate
is one row of a matrix product (no loop over resamples). The PABAK interval is the PA interval
mapped through ``2 * x - 1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.analyses.common import FloatArray
from medqade.dataset.release import Release
from medqade.measures import Estimate, Weights, difficulty_icc, pabak_of, panel_slots, substantive


def _mean(values: list[float]) -> float:
    x = np.asarray(values, dtype=np.float64)
    return float(x[~np.isnan(x)].mean()) if (~np.isnan(x)).any() else float("nan")


@dataclass(frozen=True)
class SlotStatistics:
    """Panel statistics per slot: arrays of shape (slots,), or (R, slots) under weights."""

    kappa: FloatArray
    pa: FloatArray
    alpha: FloatArray


def slot_statistics(labels: npt.ArrayLike, weights: Weights | None = None) -> SlotStatistics:
    """Mean pairwise kappa, mean pairwise PA and nominal alpha of a panel, per slot.

    Parameters
    ----------
    labels : array_like of int, shape (raters, items, slots)
        Label codes (``-1`` missing, 0/1 substantive, 2 abstain = missing).
    weights : ndarray of int, shape (R, items), optional
        Question bootstrap count weights; the results then have a leading R axis.
    """
    x = substantive(labels)
    kappa, pa, alpha = [], [], []
    for s in range(x.shape[2]):
        panel = stats.pairwise_panel(x[:, :, s], k=2, weights=weights)
        kappa.append(panel.mean_kappa)
        pa.append(panel.mean_pa)
        alpha.append(stats.krippendorff_alpha(x[:, :, s], "nominal", k=2, weights=weights))
    return SlotStatistics(
        kappa=np.stack(kappa, axis=-1), pa=np.stack(pa, axis=-1), alpha=np.stack(alpha, axis=-1)
    )


def difficulty_alpha(difficulty: npt.ArrayLike, weights: Weights | None = None) -> Estimate:
    """Krippendorff's alpha, squared distance on 0/1/2, of ``difficulty`` (raters, items)."""
    d = np.asarray(difficulty, dtype=np.int64)
    value = float(stats.krippendorff_alpha(d, "interval", k=3))
    reps = None if weights is None else stats.krippendorff_alpha(d, "interval", 3, weights)
    return Estimate.from_replicates(value, reps)


@dataclass(frozen=True)
class SlotReliability:
    """One row of Table 1. ``undefined``: replicates dropped as undefined (kappa or alpha).

    ``fleiss`` and ``ac1``: Fleiss' kappa and Gwet's AC1 of the whole panel on the slot.
    """

    kappa: Estimate
    pa: Estimate
    alpha: Estimate
    fleiss: Estimate
    ac1: Estimate
    undefined: int = 0

    @property
    def pabak(self) -> Estimate:
        return pabak_of(self.pa)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kappa": self.kappa.value,
            "kappa_ci": list(self.kappa.ci),
            "pa": self.pa.value,
            "pa_ci": list(self.pa.ci),
            "pabak": self.pabak.value,
            "pabak_ci": list(self.pabak.ci),
            "alpha": self.alpha.value,
            "alpha_ci": list(self.alpha.ci),
            "fleiss_kappa": self.fleiss.value,
            "fleiss_kappa_ci": list(self.fleiss.ci),
            "gwet_ac1": self.ac1.value,
            "gwet_ac1_ci": list(self.ac1.ci),
            "undefined_replicates": self.undefined,
        }


@dataclass(frozen=True)
class PhysicianReliability:
    """Table 1: reliability per student slot, the mean row, difficulty alpha and ICC (core)."""

    slots: Mapping[str, SlotReliability]
    difficulty_alpha: Estimate
    difficulty_icc: Estimate
    n_items: int
    n_raters: int

    def _mean_of(self, name: str) -> float:
        return _mean([getattr(r, name).value for r in self.slots.values()])

    @property
    def mean_kappa(self) -> float:
        return self._mean_of("kappa")

    @property
    def mean_pa(self) -> float:
        return self._mean_of("pa")

    @property
    def mean_pabak(self) -> float:
        return self._mean_of("pabak")

    @property
    def mean_alpha(self) -> float:
        return self._mean_of("alpha")

    @property
    def mean_fleiss(self) -> float:
        return self._mean_of("fleiss")

    @property
    def mean_ac1(self) -> float:
        return self._mean_of("ac1")

    def to_dict(self) -> dict[str, Any]:
        return {
            "slots": {m: r.to_dict() for m, r in self.slots.items()},
            "mean": {
                "kappa": self.mean_kappa,
                "pa": self.mean_pa,
                "pabak": self.mean_pabak,
                "alpha": self.mean_alpha,
                "fleiss_kappa": self.mean_fleiss,
                "gwet_ac1": self.mean_ac1,
            },
            "difficulty_alpha": self.difficulty_alpha.value,
            "difficulty_alpha_ci": list(self.difficulty_alpha.ci),
            "difficulty_icc": self.difficulty_icc.value,
            "difficulty_icc_ci": list(self.difficulty_icc.ci),
            "n_items": self.n_items,
            "n_raters": self.n_raters,
        }


def physician_reliability(release: Release, weights: Weights | None = None) -> PhysicianReliability:
    """RQ1 on the core items of ``release``; ``weights`` (R, core items) gives the CIs."""
    core = release.is_core
    labels = release.physician_labels[:, core]
    if labels.shape[1] == 0:
        raise ValueError("the release has no core items; RQ1 needs the fully crossed core")
    point = slot_statistics(labels)
    reps = None if weights is None else slot_statistics(labels, weights)
    models = tuple(release.roster.student_ids[: vocab.N_SLOTS])
    panel = panel_slots(labels, models, weights)
    slots = {}
    for s, model in enumerate(models):
        k_rep = None if reps is None else reps.kappa[:, s]
        a_rep = None if reps is None else reps.alpha[:, s]
        undefined = 0
        if k_rep is not None and a_rep is not None:
            undefined = int((np.isnan(k_rep) | np.isnan(a_rep)).sum())
        slots[model] = SlotReliability(
            kappa=Estimate.from_replicates(float(point.kappa[s]), k_rep),
            pa=Estimate.from_replicates(
                float(point.pa[s]), None if reps is None else reps.pa[:, s]
            ),
            alpha=Estimate.from_replicates(float(point.alpha[s]), a_rep),
            fleiss=panel[model].fleiss,
            ac1=panel[model].ac1,
            undefined=undefined,
        )
    difficulty = release.physician_difficulty[:, core]
    return PhysicianReliability(
        slots=slots,
        difficulty_alpha=difficulty_alpha(difficulty, weights),
        difficulty_icc=difficulty_icc(difficulty, weights),
        n_items=int(core.sum()),
        n_raters=int(labels.shape[0]),
    )
