"""Answer-length bias: does a judge call long answers right more often than physicians do?

Every answer with a known length (characters of the student's answer) falls into one of four
**length quartiles**, cut at the 25th, 50th and 75th percentile of the lengths of the answers
given (linear interpolation, ``numpy.quantile``); a quartile is right-closed (``e1 < length <=
e2``), the first includes the shortest answer: the bins of ``pandas.qcut(lengths, 4)``. The
cuts are a property of the answers and stay fixed across resamples. Equal cuts (many answers of
one length) leave a quartile empty, its rates undefined.

Per quartile ``k``:

- the **Richtig rate** of a rater = ``Richtig`` labels / substantive labels (``Richtig`` or
  ``Falsch``) on the answers of ``k`` (an abstention or a missing label is not counted);
- the judge's **agreement** = answers of ``k`` with a resolved consensus that the judge labels
  as the consensus / answers of ``k`` with a resolved consensus (an abstention or missing label
  counts as a disagreement, as in the headline agreement);
- a physician's **agreement** = the same against the majority of the *other* physicians, on
  the answers the physician labelled substantively and that majority resolves (the physicians'
  own agreement, :func:`medqade.measures.physician_reference.loo_references`).

The physicians' value of a quartile is the mean over physicians of their rates (a physician
without answers there left out). The **slope** of a rate is its least-squares slope on the
quartile number, ``sum_k (k - 2.5) r_k / sum_k (k - 2.5)^2`` (rate per quartile, undefined when
a quartile is). The paired **effect** is the judge's slope minus the physicians' mean slope:
positive on the Richtig rate means the judge grows more lenient with length than the physicians
do. Intervals: 95% percentiles of the replicates on the question count weights ``w`` (R, items)
(every rate a ratio of ``w``-weighted counts), the judge and every physician on the same
resamples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.estimate import Estimate, FloatArray, ratio
from medqade.measures.physician_reference import loo_references
from medqade.measures.slots import mean_defined, substantive

__all__ = ["QUARTILE_SLOPE", "LengthBias", "LengthRates", "length_bias", "length_quartiles"]

N_QUARTILES: Final = 4
_CENTRED = np.arange(1, N_QUARTILES + 1, dtype=np.float64) - 2.5
QUARTILE_SLOPE: Final = _CENTRED / float(np.sum(_CENTRED**2))
"""Contrast weights: ``rates @ QUARTILE_SLOPE`` is the least-squares slope on quartiles 1-4."""


def length_quartiles(
    lengths: npt.ArrayLike,
) -> tuple[npt.NDArray[np.int64], tuple[float, float, float]]:
    """The quartile (0-3; ``-1`` without a finite length) of every answer and the three cuts
    (module docstring; the bins of ``pandas.qcut(..., 4, labels=False)``)."""
    x = np.asarray(lengths, dtype=np.float64)
    known = np.isfinite(x)
    if not known.any():
        raise ValueError("no answer has a length")
    cuts = np.quantile(x[known], [0.25, 0.5, 0.75])
    out = np.full(x.shape, -1, dtype=np.int64)
    out[known] = np.searchsorted(cuts, x[known], side="left")
    return out, (float(cuts[0]), float(cuts[1]), float(cuts[2]))


@dataclass(frozen=True, eq=False)
class LengthRates:
    """One rater's (or the physicians' mean) Richtig rate and agreement per length quartile
    (shortest first) and their slopes over the quartiles."""

    richtig: tuple[Estimate, ...]
    agreement: tuple[Estimate, ...]
    richtig_slope: Estimate
    agreement_slope: Estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "richtig": [e.value for e in self.richtig],
            "richtig_ci": [list(e.ci) for e in self.richtig],
            "agreement": [e.value for e in self.agreement],
            "agreement_ci": [list(e.ci) for e in self.agreement],
            **self.richtig_slope.to_dict("richtig_slope"),
            **self.agreement_slope.to_dict("agreement_slope"),
        }


@dataclass(frozen=True, eq=False)
class LengthBias:
    """A judge's rates by answer length beside the physicians' (module docstring);
    ``richtig_effect`` and ``agreement_effect``: judge slope minus physicians' mean slope."""

    cuts: tuple[float, float, float]
    answers: tuple[int, ...]
    judge: LengthRates
    physicians: LengthRates
    richtig_effect: Estimate
    agreement_effect: Estimate
    n_items: int

    def to_json(self) -> dict[str, Any]:
        return {
            "quartile_cuts": list(self.cuts),
            "answers_by_quartile": list(self.answers),
            "judge": self.judge.to_json(),
            "physicians": self.physicians.to_json(),
            **self.richtig_effect.to_dict("richtig_effect"),
            **self.agreement_effect.to_dict("agreement_effect"),
            "n_items": self.n_items,
        }


def _per_quartile(x: npt.NDArray[Any], onehot: FloatArray) -> FloatArray:
    """Answer values (..., items, slots) summed per item and quartile -> (..., items, 4)."""
    out: FloatArray = np.einsum("...is,isk->...ik", x.astype(np.float64), onehot)
    return out


@dataclass(frozen=True)
class _Counts:
    """Per rater, item and quartile: Richtig, substantive, agreeing and compared answers."""

    richtig: FloatArray
    labelled: FloatArray
    agree: FloatArray
    compared: FloatArray

    def rates(self, w: FloatArray | None) -> tuple[FloatArray, FloatArray]:
        """Richtig rate and agreement (..., 4), or their replicates (..., R, 4) under ``w``."""
        if w is None:
            return (
                ratio(self.richtig.sum(-2), self.labelled.sum(-2)),
                ratio(self.agree.sum(-2), self.compared.sum(-2)),
            )
        return (
            ratio(w @ self.richtig, w @ self.labelled),
            ratio(w @ self.agree, w @ self.compared),
        )


def _counts(
    lab: npt.NDArray[np.int64], ref: npt.NDArray[np.int64], onehot: FloatArray, penalise: bool
) -> _Counts:
    """Counts of labels ``lab`` against ``ref`` (both (..., items, slots), substantive codes
    or ``-1``): with ``penalise`` every resolved ``ref`` is compared (a missing label
    disagrees), else only where ``lab`` is substantive too."""
    labelled = lab >= 0
    compared = (ref >= 0) if penalise else (ref >= 0) & labelled
    return _Counts(
        _per_quartile(lab == vocab.RICHTIG_CODE, onehot),
        _per_quartile(labelled, onehot),
        _per_quartile(compared & (lab == ref), onehot),
        _per_quartile(compared, onehot),
    )


def _over(x: FloatArray) -> FloatArray:
    """Mean over the raters (axis 0), an undefined rater left out."""
    return mean_defined(np.moveaxis(x, 0, -1))


def _side(counts: _Counts, w: FloatArray | None) -> LengthRates:
    """Rates and slopes of the raters of ``counts`` (axis 0: one judge, or the physicians),
    each the mean over raters, on the data and on every resample of ``w``."""
    point = counts.rates(None)  # (raters, 4) each
    reps = None if w is None else counts.rates(w)  # (raters, R, 4) each

    def by_quartile(m: int) -> tuple[Estimate, ...]:
        mean = _over(point[m])
        rep = None if reps is None else _over(reps[m])  # (R, 4)
        return tuple(
            Estimate.from_replicates(float(mean[k]), None if rep is None else rep[:, k])
            for k in range(N_QUARTILES)
        )

    def slope(m: int) -> Estimate:
        rep = None if reps is None else _over(reps[m] @ QUARTILE_SLOPE)
        return Estimate.from_replicates(float(_over(point[m] @ QUARTILE_SLOPE)), rep)

    return LengthRates(by_quartile(0), by_quartile(1), slope(0), slope(1))


def _difference(a: Estimate, b: Estimate) -> Estimate:
    reps = None
    if a.replicates is not None and b.replicates is not None:
        reps = a.replicates - b.replicates
    return Estimate.from_replicates(a.value - b.value, reps)


def length_bias(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    lengths: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
) -> LengthBias:
    """The judge's length bias beside the physicians' (module docstring).

    ``labels`` (items, slots) the judge's codes; ``physician_labels`` (physicians, items,
    slots); ``reference`` (items, slots) the consensus the judge is scored against (``-1``:
    unresolved); ``lengths`` (items, slots) the answers' lengths in characters (NaN: unknown,
    the answer is left out); ``weights`` (R, items) question count weights (``None``: NaN
    bounds).
    """
    lab = substantive(labels)
    phys = substantive(physician_labels)
    ref = substantive(reference)
    quartile, cuts = length_quartiles(lengths)
    if phys.ndim != 3 or not lab.shape == ref.shape == quartile.shape == phys.shape[1:]:
        raise ValueError("labels, reference, lengths must be (items, slots) like each physician")
    onehot = (quartile[..., None] == np.arange(N_QUARTILES)).astype(np.float64)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    judge = _side(_counts(lab[None], ref[None], onehot, penalise=True), w)
    physicians = _side(_counts(phys, loo_references(phys), onehot, penalise=False), w)
    return LengthBias(
        cuts=cuts,
        answers=tuple(int(c) for c in onehot.sum(axis=(0, 1))),
        judge=judge,
        physicians=physicians,
        richtig_effect=_difference(judge.richtig_slope, physicians.richtig_slope),
        agreement_effect=_difference(judge.agreement_slope, physicians.agreement_slope),
        n_items=int(lab.shape[0]),
    )
