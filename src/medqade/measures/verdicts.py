"""The verdict against the physicians, computed once for every user (scorer and paper tables).

A :class:`Verdict` holds a like-for-like comparison (:class:`~medqade.measures.agreement.
InPlace`: the judge in each physician's place), the margin declared on the primary metric and
the margins derived for the others (:func:`medqade.measures.paired.margins`, at the
physicians' chance agreement), the differences judge minus physicians with their paired
intervals, and the verdict word of every metric (:data:`medqade.measures.paired.VERDICTS`).

* :func:`core_verdict`: the core, the judge in each of the ten physicians' places against the
  majority of the other nine (:func:`~medqade.measures.agreement.judge_in_place`), each
  physician's term on the answers that physician rated, the judge's abstentions and missing
  labels there counted as disagreements;
* :func:`extension_verdict`: the extension, the judge in each primary physician's place
  against the other primary physician of the item (:func:`~medqade.measures.agreement.
  pair_in_place`), the all-items resamples restricted to the extension items.

``medqade score`` (the record's ``physician_difference`` and ``extension_difference``) and
``medqade reproduce`` (the verdict table) both read these, so their numbers are the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import agreement as measured
from medqade.measures import paired
from medqade.measures.estimate import Estimate, FloatArray

CORE_METHOD: Final = "like-for-like: the judge in each physician's place"
EXTENSION_METHOD: Final = "like-for-like: the judge in each primary physician's place, extension"
ABSTENTION_RULE: Final = "judge: counts as disagreement on the answers the physician rated"


@dataclass(frozen=True, eq=False)
class Verdict:
    """A like-for-like difference judge minus physicians with its margins and verdicts."""

    place: measured.InPlace
    primary: str
    margin: float
    margins: Mapping[str, float]
    differences: Mapping[str, Estimate]
    verdicts: Mapping[str, str | None]
    method: str = CORE_METHOD
    n_items: int | None = None

    @property
    def verdict(self) -> str | None:
        """The headline verdict: that of the primary metric."""
        return self.verdicts[self.primary]

    def panel_error(self, metric: str) -> float:
        return self.place.panel_error(metric)

    def to_dict(self) -> dict[str, Any]:
        """The record's block (``physician_difference``; ``extension_difference`` adds
        ``n_items``, ``verdict`` and ``verdicts``)."""
        block: dict[str, Any] = {
            "method": self.method,
            "primary": self.primary,
            "margin": self.margin,
            "margins": dict(self.margins),
            "abstention": ABSTENTION_RULE,
        }
        for m, d in self.differences.items():
            block |= d.to_dict(m)
        block["judge_in_place"] = {m: self.place.judge.metric(m).value for m in measured.METRICS}
        block["physicians"] = {m: self.place.physicians.metric(m).value for m in measured.METRICS}
        block["panel_error"] = {m: self.place.panel_error(m) for m in measured.METRICS}
        if self.n_items is not None:
            block["n_items"] = self.n_items
            block["verdict"] = self.verdict
            block["verdicts"] = dict(self.verdicts)
        return block


def against_physicians(
    place: measured.InPlace,
    margin: float = paired.DEFAULT_MARGIN,
    primary: str = paired.PRIMARY,
    method: str = CORE_METHOD,
    n_items: int | None = None,
) -> Verdict:
    """The :class:`Verdict` of a like-for-like comparison: margins declared on ``primary``
    (the others derived at the physicians' PA and kappa) and every metric's verdict."""
    ref = place.physicians
    found = paired.margins(margin, ref.pa.value, ref.kappa.value, primary)
    diffs = {m: place.difference(m) for m in measured.METRICS}
    verdicts = {
        m: paired.derived_verdict(d.low, d.high, found[m]) if d.defined else None
        for m, d in diffs.items()
    }
    return Verdict(place, primary, margin, found, diffs, verdicts, method, n_items)


def core_verdict(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: measured.AnyWeights | None = None,
    margin: float = paired.DEFAULT_MARGIN,
    primary: str = paired.PRIMARY,
    physicians: tuple[measured.Agreement, Mapping[str, FloatArray]] | None = None,
) -> Verdict:
    """The core verdict of ``labels`` (core items, slots; abstentions and missing labels as
    they are) against ``physician_labels`` (physicians, core items, slots), with the core
    question weights; ``physicians`` the panel's side when already computed
    (:func:`~medqade.measures.agreement.physicians_in_place`)."""
    place = measured.judge_in_place(
        labels, physician_labels, slot_names, weights, physicians=physicians
    )
    return against_physicians(place, margin, primary)


def extension_pair(
    physician_labels: npt.ArrayLike, adjudicator: int, is_core: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The two primary physicians' labels of every item (items, slots) each and the extension
    items that have exactly two (:func:`~medqade.measures.agreement.primary_pair`)."""
    first, second, two = measured.primary_pair(physician_labels, adjudicator)
    return first, second, two & ~np.asarray(is_core, dtype=bool)


def extension_verdict(
    labels: npt.ArrayLike,
    present: npt.ArrayLike,
    pair: tuple[npt.ArrayLike, npt.ArrayLike, npt.NDArray[np.bool_]],
    slot_names: tuple[str, ...],
    weights: measured.AnyWeights | None = None,
    margin: float = paired.DEFAULT_MARGIN,
    primary: str = paired.PRIMARY,
) -> Verdict | None:
    """The extension verdict of ``labels`` (all items, slots) with rows ``present`` (all
    items, slots; a slot without a row is a missing label), ``pair`` from
    :func:`extension_pair`, ``weights`` the all-items resamples (R, all items), restricted to
    the extension items here (paired by item). ``None`` when the judge covers none of them."""
    first, second, items = pair
    rows = np.asarray(present, dtype=bool)
    if not rows[items].any():
        return None
    lab = np.where(rows, np.asarray(labels), vocab.MISSING_CODE)[items]
    w = None if weights is None else weights[:, items]
    a, b = np.asarray(first)[items], np.asarray(second)[items]
    place = measured.pair_in_place(lab, a, b, slot_names, w)
    return against_physicians(place, margin, primary, EXTENSION_METHOD, int(items.sum()))
