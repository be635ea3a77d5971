"""Confidence intervals: Wilson score intervals and bootstrap percentile intervals.

Notation follows Newcombe (1998): ``k`` successes in ``n`` trials, ``z`` the standard normal
quantile of the two-sided level.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ConfidenceInterval", "percentile_ci", "wilson_interval"]

_Z_95 = 1.959963984540054


@overload
def wilson_interval(k: float, n: float, z: float = _Z_95) -> tuple[float, float]: ...
@overload
def wilson_interval(
    k: NDArray[Any], n: ArrayLike, z: float = _Z_95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
@overload
def wilson_interval(
    k: ArrayLike, n: NDArray[Any], z: float = _Z_95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
@overload
def wilson_interval(k: ArrayLike, n: ArrayLike, z: float = _Z_95) -> tuple[Any, Any]: ...
def wilson_interval(k: ArrayLike, n: ArrayLike, z: float = _Z_95) -> tuple[Any, Any]:
    """Wilson score interval for a binomial proportion ``k / n``.

    Parameters
    ----------
    k : float or array_like, any shape broadcastable with `n`
        Number of successes, ``0 <= k <= n``.
    n : float or array_like, any shape broadcastable with `k`
        Number of trials (here: the number of resolved answers), ``n >= 0``.
    z : float, optional
        Standard normal quantile; the default gives a 95% interval.

    Returns
    -------
    low, high : float if `k` and `n` are scalars, else ndarray of their broadcast shape
        Interval bounds, clipped to ``[0, 1]``; NaN where ``n == 0``.

    Notes
    -----
    With ``p = k / n``, the interval is centred at ``(k + z**2 / 2) / (n + z**2)`` with
    half-width ``z * sqrt(k * (n - k) / n + z**2 / 4) / (n + z**2)`` (Wilson 1927; method 3 of
    Newcombe 1998). It is meant for a count of successes, not for an average of proportions.

    References
    ----------
    Newcombe, R. G. (1998). Two-sided confidence intervals for the single proportion: comparison
    of seven methods. Statistics in Medicine, 17(8), 857-872.

    Examples
    --------
    Newcombe (1998), Table I, 81 successes in 263 trials:

    >>> low, high = wilson_interval(81, 263)
    >>> print(f"{low:.6f} {high:.6f}")
    0.255289 0.366210
    """
    k_arr = np.asarray(k, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    try:
        k_arr, n_arr = np.broadcast_arrays(k_arr, n_arr)
    except ValueError:
        raise ValueError(
            f"`k` and `n` must have broadcastable shapes; got {k_arr.shape} and {n_arr.shape}."
        ) from None
    if not (np.all(np.isfinite(k_arr)) and np.all(np.isfinite(n_arr))):
        raise ValueError("`k` and `n` must be finite numbers.")
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("`k` must satisfy 0 <= k <= n for every entry.")
    if not (np.isfinite(z) and z > 0):
        raise ValueError(f"`z` must be a positive finite number; got {z!r}.")

    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = n_arr + z2
        centre = (k_arr + z2 / 2) / denominator
        half = z * np.sqrt(k_arr * (n_arr - k_arr) / n_arr + z2 / 4) / denominator
    undefined = n_arr == 0
    low = np.where(undefined, np.nan, np.clip(centre - half, 0.0, 1.0))
    high = np.where(undefined, np.nan, np.clip(centre + half, 0.0, 1.0))
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval from bootstrap replicates.

    Attributes
    ----------
    low, high : float or ndarray
        Bounds; arrays of the replicates' trailing shape when the replicates have extra axes.
    n_undefined : int or ndarray of int
        Number of NaN (undefined) replicates dropped before taking percentiles.
    """

    low: float | NDArray[np.float64]
    high: float | NDArray[np.float64]
    n_undefined: int | NDArray[np.intp]


def percentile_ci(replicates: ArrayLike, level: float = 0.95, axis: int = 0) -> ConfidenceInterval:
    """Bootstrap percentile interval that drops undefined (NaN) replicates.

    Parameters
    ----------
    replicates : array_like of float, shape (R,) or (R, ...) with the replicates along `axis`
        Bootstrap replicates of a statistic; NaN marks an undefined replicate.
    level : float, optional
        Confidence level in ``(0, 1)``; 0.95 gives the 2.5th and 97.5th percentiles.
    axis : int, optional
        Axis of `replicates` that runs over the resamples.

    Returns
    -------
    ConfidenceInterval
        ``low`` and ``high`` (floats for 1-D input, else arrays of the remaining shape; NaN where
        every replicate is undefined) and ``n_undefined``, the number of NaN replicates dropped.

    Notes
    -----
    The percentile method (Efron & Tibshirani 1993, ch. 13): the bounds are the
    ``100 * (1 - level) / 2`` and ``100 * (1 + level) / 2`` percentiles of the defined replicates,
    computed with ``numpy.nanpercentile`` and its default linear interpolation.

    Examples
    --------
    >>> ci = percentile_ci([0.1, 0.2, float("nan"), 0.3, 0.4], level=0.5)
    >>> print(f"{ci.low:.3f} {ci.high:.3f} {ci.n_undefined}")
    0.175 0.325 1
    """
    x = np.asarray(replicates, dtype=np.float64)
    if x.ndim == 0:
        raise ValueError("`replicates` must have at least one dimension; got a scalar.")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"`axis` {axis} is out of range for replicates with {x.ndim} dimensions.")
    if x.shape[axis] == 0:
        raise ValueError("`replicates` is empty along `axis`; at least one replicate is needed.")
    if not 0 < level < 1:
        raise ValueError(f"`level` must lie strictly between 0 and 1; got {level!r}.")

    tail = 100 * (1 - level) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN bounds
        low, high = np.nanpercentile(x, [tail, 100 - tail], axis=axis)
    n_undefined = np.isnan(x).sum(axis=axis)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high), int(n_undefined))
    return ConfidenceInterval(low, high, n_undefined)
