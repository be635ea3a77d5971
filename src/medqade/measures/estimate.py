"""Point estimates with percentile intervals, and the rules that read them.

An :class:`Estimate` keeps its bootstrap replicates (when it has any) so that two estimates
made on the same resamples can be compared pairwise (:mod:`medqade.measures.paired`). Whether
an interval excludes a value is decided here, on unrounded numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from medqade import stats

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Estimate:
    """A point estimate with its 95% percentile bootstrap interval (NaN when undefined).

    ``replicates`` (R,) are the bootstrap values behind the interval, or ``None`` without a
    bootstrap; ``n_undefined`` counts the replicates dropped as undefined (NaN).
    """

    value: float
    low: float
    high: float
    replicates: FloatArray | None = field(default=None, repr=False)
    n_undefined: int = 0

    @property
    def ci(self) -> tuple[float, float]:
        return (self.low, self.high)

    @property
    def defined(self) -> bool:
        """Whether the point estimate is a number (not NaN)."""
        return not math.isnan(self.value)

    @property
    def has_interval(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    @classmethod
    def from_replicates(cls, value: float, replicates: npt.ArrayLike | None) -> Estimate:
        """``value`` with the percentile interval of ``replicates`` (``None``: NaN bounds)."""
        if replicates is None:
            return cls(float(value), math.nan, math.nan)
        reps = np.asarray(replicates, dtype=np.float64)
        ci = stats.percentile_ci(reps)
        return cls(float(value), float(ci.low), float(ci.high), reps, int(ci.n_undefined))

    def linear(self, scale: float, shift: float) -> Estimate:
        """``scale * x + shift`` of the estimate, its bounds and replicates (``scale > 0``)."""
        reps = None if self.replicates is None else scale * self.replicates + shift
        return Estimate(
            scale * self.value + shift,
            scale * self.low + shift,
            scale * self.high + shift,
            reps,
            self.n_undefined,
        )

    def excludes_zero(self) -> bool:
        """Whether the interval lies entirely above or entirely below 0 (significant)."""
        return self.has_interval and (self.low > 0 or self.high < 0)

    def to_dict(self, name: str = "value") -> dict[str, object]:
        """``{name: value, f"{name}_ci": [low, high]}`` (NaN kept; JSON edges turn it into null)."""
        return {name: self.value, f"{name}_ci": [self.low, self.high]}


def pabak_of(pa: Estimate) -> Estimate:
    """PABAK for two categories, ``2 * PA - 1``, with its interval and replicates."""
    return pa.linear(2.0, -1.0)


def ratio(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> FloatArray:
    """``numerator / denominator`` with NaN (no warning) where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def proportion(
    hits: npt.ArrayLike, counted: npt.ArrayLike, weights: npt.ArrayLike | None
) -> Estimate:
    """The share ``sum(hits) / sum(counted)`` over items, with question-bootstrap replicates
    ``(w @ hits) / (w @ counted)`` under count weights ``w`` (R, items) (``None``: NaN
    bounds). Used where a row is ranked by a proportion (model accuracy)."""
    h = np.asarray(hits, dtype=np.float64)
    c = np.asarray(counted, dtype=np.float64)
    value = float(ratio(h.sum(), c.sum()))
    if weights is None:
        return Estimate.from_replicates(value, None)
    w = np.asarray(weights, dtype=np.float64)
    return Estimate.from_replicates(value, ratio(w @ h, w @ c))
