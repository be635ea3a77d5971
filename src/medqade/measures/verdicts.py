"""One verdict per judge against the physicians, decided by one stated rule.

Computed once here for every user (``medqade score``, ``leaderboard``, ``compare``, the Space,
``reproduce`` S6, the Hub entry), so every surface shows the same word.

**Two designs, each like for like** (:mod:`medqade.measures.in_place`), each a :class:`Design`
with the two-way interval (questions and physicians) of ``d`` = judge minus physicians:

* core: the judge in each of the ten physicians' places against the majority of the other
  nine (:func:`core_design`);
* extension: the judge in each primary physician's place against the other primary physician
  of the items that physician rated (:func:`extension_design`).

**The headline** (:func:`headline`, :class:`Headline`), one word from
:data:`medqade.measures.paired.VERDICTS`, always decided on **kappa** (PA and PABAK switch a
board's ranking, never the verdict):

1. judge labels on both designs: ``d`` = the mean of the core's and the extension's ``d``
   (equal weights), its replicates the mean of theirs (same question and physician resamples);
2. unless the judge's core ``d`` exceeds its extension ``d`` significantly (the 95% two-way
   interval of ``d_core - d_ext`` lies above 0; the physicians' own core-vs-extension
   difference is subtracted inside each ``d``): then the flag :data:`CORE_ABOVE_EXTENSION` is
   raised, the judge is not ranked, and ``d`` is the extension's alone, so public core ids
   cannot buy a verdict the extension does not support;
3. labels on only one design (or ``d`` defined on one only, e.g. a tiny release): that
   design's ``d``;
4. on a release scored with held-out labels, a judge flagged ``contamination``
   (:mod:`medqade.measures.holdout_drop`: its agreement falls from the published to the
   withheld items significantly more than the physicians') gets **no verdict** and is not
   ranked (:func:`withhold_verdict`): its public labels may carry the published consensus, so
   no ``d`` that uses them says how good it is, and its held-out agreement alone is too few
   items for the like-for-like designs.

The word then follows the interval of that ``d`` and the margin
(:func:`medqade.measures.paired.verdict_of_bounds`). The per-design differences and the
alt-test are evidence under the headline, never verdicts of their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import paired
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.holdout_drop import FLAG as CONTAMINATION
from medqade.measures.in_place import (
    InPlace,
    PanelWeights,
    judge_in_place,
    primaries_in_place,
    primary_roles,
)
from medqade.measures.physician_reference import PerRater
from medqade.measures.slots import METRICS, AnyWeights

CORE_METHOD: Final = "like-for-like: the judge in each physician's place"
EXTENSION_METHOD: Final = "like-for-like: the judge in each primary physician's place, extension"
ABSTENTION_RULE: Final = "judge: counts as disagreement on the answers the physician rated"
INFERENCE: Final = (
    "two-way bootstrap over questions and physicians (same resamples for every judge)"
)
GIVEN_PANEL: Final = "questions resampled, these physicians fixed (secondary)"
VERDICT_METRIC: Final = "kappa"
"""The metric every verdict is decided on, whatever metric ranks a board."""

POOLED: Final = "pooled"
CORE: Final = "core"
EXTENSION: Final = "extension"
DECIDED_ON: Final = (POOLED, CORE, EXTENSION)
CORE_ABOVE_EXTENSION: Final = "core_above_extension"
"""Flag: the judge's core ``d`` exceeds its extension ``d`` beyond the resampling error."""
RULE: Final = (
    "kappa d = mean of the core and extension like-for-like differences; the extension alone "
    "when the core's d is significantly above the extension's (flag core_above_extension); "
    "one design's d when the judge labelled only that one"
)


@dataclass(frozen=True, eq=False)
class Design:
    """One design's like-for-like difference judge minus physicians: per metric with the
    two-way interval, kappa also given this panel (questions only)."""

    place: InPlace
    differences: dict[str, Estimate]
    given_panel: Estimate
    method: str = CORE_METHOD
    n_items: int | None = None

    @property
    def kappa(self) -> Estimate:
        return self.differences[VERDICT_METRIC]

    def panel_error(self, metric: str) -> float:
        return self.place.panel_error(metric)

    def to_dict(self) -> dict[str, Any]:
        """The record's ``physician_difference`` / ``extension_difference`` block."""
        block: dict[str, Any] = {
            "method": self.method,
            "primary": VERDICT_METRIC,
            "inference": INFERENCE,
            "abstention": ABSTENTION_RULE,
        }
        for m, d in self.differences.items():
            block |= d.to_dict(m)
        block["given_panel"] = {"method": GIVEN_PANEL, **self.given_panel.to_dict("kappa")}
        block["judge_in_place"] = {m: self.place.judge.metric(m).value for m in METRICS}
        block["physicians"] = {m: self.place.physicians.metric(m).value for m in METRICS}
        block["panel_error"] = {m: self.place.panel_error(m) for m in METRICS}
        block["n_physicians"] = self.place.n_physicians
        if self.n_items is not None:
            block["n_items"] = self.n_items
        return block


def design(
    place: InPlace,
    panel: PanelWeights | None,
    method: str = CORE_METHOD,
    n_items: int | None = None,
) -> Design:
    """A :class:`Design` of ``place`` with physician weights ``panel`` (R, P) (``None``: no
    resamples, or the question-only interval when the caller has no panel to resample)."""
    diffs = {m: place.difference(m, panel) for m in METRICS}
    return Design(place, diffs, place.difference(VERDICT_METRIC), method, n_items)


def core_design(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    panel: PanelWeights | None = None,
    physicians: PerRater | None = None,
) -> Design:
    """The core design of ``labels`` (core items, slots) against ``physician_labels``
    (physicians, core items, slots), core question weights ``weights`` (R, items) and
    physician weights ``panel`` (R, physicians)."""
    place = judge_in_place(labels, physician_labels, slot_names, weights, physicians=physicians)
    return design(place, panel, CORE_METHOD, int(np.asarray(labels).shape[0]))


@dataclass(frozen=True)
class ExtensionPairs:
    """The extension's two-rater design: every primary physician's labels (P, items, slots),
    the first and second rater of each item (indices into P), the extension items with exactly
    two primary physicians, and the adjudicator's roster index (left out of P)."""

    primary: npt.NDArray[np.int64]
    first: npt.NDArray[np.int64]
    second: npt.NDArray[np.int64]
    items: npt.NDArray[np.bool_]
    adjudicator: int


def extension_pairs(
    physician_labels: npt.ArrayLike, adjudicator: int, is_core: npt.ArrayLike
) -> ExtensionPairs:
    """The :class:`ExtensionPairs` of a release's physician labels (physicians, items, slots)."""
    labels = np.asarray(physician_labels, dtype=np.int64)
    first, second, two = primary_roles(labels, adjudicator)
    items = two & ~np.asarray(is_core, dtype=bool)
    return ExtensionPairs(np.delete(labels, adjudicator, axis=0), first, second, items, adjudicator)


def extension_design(
    labels: npt.ArrayLike,
    present: npt.ArrayLike,
    pairs: ExtensionPairs,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    panel: PanelWeights | None = None,
) -> Design | None:
    """The extension design of ``labels`` (all items, slots) with rows ``present`` (a slot
    without a row is a missing label: a disagreement), ``weights`` the all-items resamples
    restricted here to the extension items, ``panel`` the physician weights (R, all
    physicians; the adjudicator's column is left out). ``None`` when the judge covers none."""
    items = pairs.items
    rows = np.asarray(present, dtype=bool)
    if not rows[items].any():
        return None
    lab = np.where(rows, np.asarray(labels), vocab.MISSING_CODE)[items]
    w = None if weights is None else np.asarray(weights, dtype=np.float64)[:, items]
    v = None
    if panel is not None:
        v = np.delete(np.asarray(panel, dtype=np.float64), pairs.adjudicator, axis=1)
    place = primaries_in_place(
        lab,
        pairs.primary[:, items],
        (pairs.first[items], pairs.second[items]),
        slot_names,
        w,
    )
    return design(place, v, EXTENSION_METHOD, int(items.sum()))


@dataclass(frozen=True, eq=False)
class Headline:
    """The one verdict of a judge (module docstring): the ``d`` it is decided on, the designs
    behind it, the consistency check and its flag."""

    core: Design | None
    extension: Design | None
    margin: float
    difference: Estimate | None
    decided_on: str | None
    consistency: Estimate | None = None
    flags: tuple[str, ...] = ()

    @property
    def verdict(self) -> str | None:
        return self.at(self.margin)

    def at(self, margin: float) -> str | None:
        """The verdict word at another margin (a board's), from the same interval."""
        if self.difference is None:
            paired.check_margin(margin)
            return None
        return paired.verdict(self.difference, margin)

    def to_dict(self) -> dict[str, Any]:
        """The record's ``headline`` block (the word itself is the record's ``verdict``)."""
        d = self.difference or Estimate(math.nan, math.nan, math.nan)
        c = self.consistency
        return {
            "rule": RULE,
            "metric": VERDICT_METRIC,
            "margin": self.margin,
            "decided_on": self.decided_on,
            **d.to_dict("kappa"),
            "consistency": None
            if c is None
            else {"method": "core d minus extension d, two-way", **c.to_dict("kappa")},
            "flags": list(self.flags),
        }


def _mean(a: Estimate, b: Estimate, weight: float = 0.5) -> Estimate:
    reps = None
    if a.replicates is not None and b.replicates is not None:
        reps = weight * a.replicates + (1.0 - weight) * b.replicates
    return Estimate.from_replicates(weight * a.value + (1.0 - weight) * b.value, reps)


def _minus(a: Estimate, b: Estimate) -> Estimate:
    reps: FloatArray | None = None
    if a.replicates is not None and b.replicates is not None:
        reps = a.replicates - b.replicates
    return Estimate.from_replicates(a.value - b.value, reps)


def headline(
    core: Design | None, extension: Design | None, margin: float = paired.DEFAULT_MARGIN
) -> Headline:
    """The one verdict of a judge from its designs (module docstring)."""
    margin = paired.check_margin(margin)
    has_core = core is not None and core.kappa.defined
    has_ext = extension is not None and extension.kappa.defined
    if not (has_core or has_ext):
        return Headline(core, extension, margin, None, None)
    if not (has_core and has_ext):  # one design labelled (or defined: a tiny release)
        only = core if has_core else extension
        assert only is not None
        return Headline(core, extension, margin, only.kappa, CORE if has_core else EXTENSION)
    assert core is not None and extension is not None
    consistency = _minus(core.kappa, extension.kappa)
    if consistency.has_interval and consistency.low > 0:
        return Headline(
            core,
            extension,
            margin,
            extension.kappa,
            EXTENSION,
            consistency,
            (CORE_ABOVE_EXTENSION,),
        )
    return Headline(
        core, extension, margin, _mean(core.kappa, extension.kappa), POOLED, consistency
    )


def withhold_verdict(found: Headline) -> Headline:
    """``found`` without its verdict, flagged :data:`CONTAMINATION` (rule 4): the designs and
    the consistency check stay as evidence, ``difference`` and ``decided_on`` are ``None``."""
    flags = found.flags if CONTAMINATION in found.flags else (*found.flags, CONTAMINATION)
    return Headline(found.core, found.extension, found.margin, None, None, found.consistency, flags)


def judge_headline(
    labels: npt.ArrayLike,
    present: npt.ArrayLike,
    is_core: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    pairs: ExtensionPairs,
    slot_names: tuple[str, ...],
    resamples: tuple[AnyWeights | None, AnyWeights | None, PanelWeights | None] | None,
    margin: float = paired.DEFAULT_MARGIN,
    physicians: PerRater | None = None,
    contaminated: bool = False,
) -> Headline:
    """The :class:`Headline` of a judge's ``labels`` (all items, slots) with rows ``present``
    on a release (``is_core`` (items,), ``physician_labels`` (physicians, items, slots),
    ``pairs`` its :func:`extension_pairs`): ``resamples`` = (core question weights, all-items
    question weights, physician weights), ``physicians`` the core's physician side when
    already computed; ``contaminated``: the judge's contamination check on the release's
    held-out labels flagged it (rule 4: no verdict). The one function behind every surface's
    verdict."""
    rows = np.asarray(present, dtype=bool)
    core = np.asarray(is_core, dtype=bool)
    shown = np.where(rows, np.asarray(labels), vocab.MISSING_CODE)
    w_core, w_all, panel = (None, None, None) if resamples is None else resamples
    core_found = None
    if rows[core].any():
        core_found = core_design(
            shown[core],
            np.asarray(physician_labels)[:, core],
            slot_names,
            w_core,
            panel,
            physicians,
        )
    ext_found = extension_design(labels, rows, pairs, slot_names, w_all, panel)
    found = headline(core_found, ext_found, margin)
    return withhold_verdict(found) if contaminated else found


__all__ = [
    "ABSTENTION_RULE",
    "CONTAMINATION",
    "CORE",
    "CORE_ABOVE_EXTENSION",
    "CORE_METHOD",
    "DECIDED_ON",
    "EXTENSION",
    "EXTENSION_METHOD",
    "POOLED",
    "RULE",
    "VERDICT_METRIC",
    "Design",
    "ExtensionPairs",
    "Headline",
    "core_design",
    "design",
    "extension_design",
    "extension_pairs",
    "headline",
    "judge_headline",
    "withhold_verdict",
]
