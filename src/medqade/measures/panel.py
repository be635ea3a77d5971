"""The whole physician panel at once: Fleiss' kappa, Gwet's AC1 and the difficulty ICC.

Beside the mean pairwise kappa of Table 1, the multi-rater coefficients over all ten
physicians per answer slot (abstentions missing, two categories; Fleiss 1971 generalised to
missing ratings as in Gwet 2014 and irrCAC, see :mod:`medqade.stats.fleiss`), and for the
difficulty scores 0/1/2 the intraclass correlation ICC(2,1) (two-way random effects, absolute
agreement, single rater: Shrout & Fleiss 1979; McGraw & Wong's ICC(A,1)) beside
Krippendorff's alpha. All intervals come from the same question resamples as the rest of
Table 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.estimate import Estimate
from medqade.measures.slots import AnyWeights, substantive


@dataclass(frozen=True, eq=False)
class PanelSlot:
    """Fleiss' kappa and Gwet's AC1 of the panel on one slot."""

    fleiss: Estimate
    ac1: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {**self.fleiss.to_dict("fleiss_kappa"), **self.ac1.to_dict("gwet_ac1")}


def panel_slots(
    labels: npt.ArrayLike, slot_names: tuple[str, ...], weights: AnyWeights | None = None
) -> dict[str, PanelSlot]:
    """Per slot Fleiss' kappa and Gwet's AC1 of ``labels`` (raters, items, slots)."""
    x = substantive(labels)
    out = {}
    for s, name in enumerate(slot_names):
        panel = x[:, :, s]
        f_reps = None if weights is None else stats.fleiss_kappa(panel, 2, weights)
        a_reps = None if weights is None else stats.gwet_ac1(panel, 2, weights)
        out[name] = PanelSlot(
            fleiss=Estimate.from_replicates(float(stats.fleiss_kappa(panel, 2)), f_reps),
            ac1=Estimate.from_replicates(float(stats.gwet_ac1(panel, 2)), a_reps),
        )
    return out


def difficulty_icc(difficulty: npt.ArrayLike, weights: AnyWeights | None = None) -> Estimate:
    """ICC(2,1) of difficulty scores (raters, items), items with a missing score dropped.

    ``weights`` (R, items) are question count weights; each replicate is the ICC of the
    resampled items (an item drawn twice enters twice), i.e. the same resamples as alpha.
    Undefined (fewer than two complete items or raters): NaN.
    """
    d = np.asarray(difficulty, dtype=np.float64)
    complete = (d >= 0).all(axis=0)
    scores = d[:, complete].T  # (targets, raters)
    if scores.shape[0] < 2 or scores.shape[1] < 2:
        return Estimate.from_replicates(float("nan"), None)
    value = stats.intraclass_correlations(scores).icc2
    if weights is None:
        return Estimate.from_replicates(value, None)
    counts = np.asarray(weights)[:, complete].astype(np.int64)
    items = np.arange(scores.shape[0])
    reps = np.array(
        [stats.intraclass_correlations(scores[np.repeat(items, row)]).icc2 for row in counts]
    )
    return Estimate.from_replicates(value, reps)
