"""One-sided one-sample t-test, the Benjamini-Yekutieli step-up procedure and the
small-sample factor of a bootstrap over few units."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy import stats as sps


def t_test_greater(x: npt.ArrayLike, null: float) -> tuple[float, float]:
    """``(t, p)`` of the one-sided one-sample t-test of H0: mean(x) <= ``null`` against
    H1: mean(x) > ``null`` (NaN values dropped). With zero variance the statistic is +inf
    (p = 0) when the mean exceeds ``null``, -inf (p = 1) when it is below, NaN when equal;
    fewer than two values give NaN."""
    v = np.asarray(x, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size < 2:
        return math.nan, math.nan
    diff = float(v.mean()) - float(null)
    se = float(v.std(ddof=1)) / math.sqrt(v.size)
    if se == 0.0:
        if diff == 0.0:
            return math.nan, math.nan
        return (math.inf, 0.0) if diff > 0 else (-math.inf, 1.0)
    t = diff / se
    return t, float(sps.t.sf(t, v.size - 1))


def benjamini_yekutieli(pvalues: npt.ArrayLike, q: float = 0.05) -> npt.NDArray[np.bool_]:
    """Which hypotheses the Benjamini-Yekutieli (2001) procedure rejects at FDR ``q``.

    With the ``m`` p-values sorted, ``p_(1) <= ... <= p_(m)``, and ``c(m) = sum_{i<=m} 1/i``:
    reject the ``k`` smallest, ``k`` the largest index with ``p_(k) <= k q / (m c(m))``. NaN
    p-values are never rejected (and count in ``m``).
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    c = float(np.sum(1.0 / np.arange(1, m + 1)))
    filled = np.where(np.isnan(p), np.inf, p)
    order = np.argsort(filled, kind="stable")
    ok = filled[order] <= np.arange(1, m + 1) * q / (m * c)
    if ok.any():
        k = int(np.nonzero(ok)[0].max())
        out[order[: k + 1]] = True
    return out


def few_units_factor(n: int, level: float = 0.95) -> float:
    """How much to widen a bootstrap interval of a mean over ``n`` resampled units (e.g. ten
    physicians) so it behaves like the t interval: ``sqrt(n / (n - 1))`` undoes the
    bootstrap's variance of a mean, ``s^2 (n - 1) / n^2`` instead of ``s^2 / n``, and
    ``t_{n-1} / z`` at the two-sided ``level`` the normal quantile's optimism with ``n - 1``
    degrees of freedom. NaN for ``n < 2``."""
    if n < 2:
        return math.nan
    tail = 1.0 - (1.0 - level) / 2.0
    return math.sqrt(n / (n - 1)) * float(sps.t.ppf(tail, n - 1) / sps.norm.ppf(tail))
