"""The studentized max-T critical value of K paired rows, and each pair's standard error.

The K rows were scored on the same question resamples, so row ``i`` has a point estimate
``est_i`` and replicates ``rep_i(b)``, b = 1..R. Every pair (i, j) has the difference
``d_ij = est_i - est_j`` and its own bootstrap standard error

* ``se_ij`` = the standard deviation (``ddof=1``) over resamples of ``rep_i(b) - rep_j(b)``,
  on the resamples where both rows are defined (a pair with fewer than two such resamples, or
  with ``se_ij <= ZERO_SE``, e.g. a row and its exact copy, is left out of the family:
  :func:`in_family`).

One critical value ``c`` serves all pairs of the family at once:

* ``T(b)`` = the largest ``|(rep_i(b) - rep_j(b)) - d_ij| / se_ij`` over the family's pairs
  defined in resample b;
* ``c`` = the 95% quantile of ``T(b)`` over the resamples (linear interpolation; resamples
  where no pair is defined are left out).

What the intervals ``d_ij +- c se_ij`` mean, and the ranks drawn from them:
:mod:`medqade.measures.ranking`.

Cost: O(K^2 R), computed in blocks of pairs (the K x K x R differences never exist at once);
the pair standard errors come from Gram matrices (O(K^2 R) in BLAS), with pairs whose rows are
nearly identical recomputed directly so that cancellation cannot distort them.
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade.measures.estimate import FloatArray

LEVEL: Final = 0.95
"""Family-wise coverage of the simultaneous intervals behind every rank."""
ZERO_SE: Final = 1e-12
"""A pair whose difference has at most this bootstrap standard error is not in the family."""
CHUNK: Final = 1 << 18
"""Pair-resample cells computed at once (1-2 MiB)."""
_DIRECT: Final = 1e-3  # Gram variance below this share of the summed second moments: recompute


def checked(estimates: npt.ArrayLike, replicates: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``estimates`` (K,) and ``replicates`` (K, R) as float arrays; ValueError on other
    shapes."""
    est = np.asarray(estimates, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    if reps.ndim != 2 or est.shape != (reps.shape[0],):
        raise ValueError("need estimates (K,) and replicates (K, R)")
    return est, reps


def pair_standard_errors(replicates: npt.ArrayLike) -> FloatArray:
    """``se`` (K, K): the SD (ddof 1) over resamples of ``rep_i - rep_j``, on the resamples
    where both rows are defined; NaN on the diagonal and for pairs with fewer than two such
    resamples. Gram matrices, with near-identical pairs recomputed directly."""
    reps = np.asarray(replicates, dtype=np.float64)
    k = reps.shape[0]
    valid = ~np.isnan(reps)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(valid, reps, 0.0).sum(axis=1) / valid.sum(axis=1)
    z = np.where(valid, reps - centre[:, None], 0.0)  # a shift per row leaves se unchanged
    p = z @ z.T
    if valid.all():  # every resample defined: one Gram matrix
        r = float(reps.shape[1])
        n = np.full((k, k), r)
        q = np.diag(p)[:, None] * np.ones((1, k))
        s = z.sum(axis=1)[:, None] * np.ones((1, k))
    else:  # sums over the resamples where both rows are defined
        m = valid.astype(np.float64)
        n = m @ m.T
        s = z @ m.T  # s[i, j] = sum of z_i over the resamples where i and j are both defined
        q = (z * z) @ m.T
    second = q + q.T
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (second - 2.0 * p - (s - s.T) ** 2 / n) / (n - 1.0)
    var[n < 2] = np.nan
    np.fill_diagonal(var, np.nan)
    with np.errstate(invalid="ignore"):
        risky = np.triu((var < _DIRECT * second / np.maximum(n - 1.0, 1.0)) & (n >= 2), 1)
    for i, j in zip(*np.nonzero(risky), strict=True):
        both = valid[i] & valid[j]
        diff = reps[i, both] - reps[j, both]
        var[i, j] = var[j, i] = float(np.var(diff, ddof=1))
    se = np.sqrt(np.maximum(var, 0.0))
    se[np.isnan(var)] = np.nan
    return se if k else np.zeros((0, 0))


def in_family(se: FloatArray) -> npt.NDArray[np.bool_]:
    """Which pairs are in the family: a standard error above :data:`ZERO_SE` (NaN: not)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(se > ZERO_SE)


def _max_t(centred: npt.NDArray[Any], inverse: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """T(b) (R,): the largest ``|centred_i(b) - centred_j(b)| * inverse_ij`` over i < j, NaN
    where no pair is defined (``inverse`` NaN outside the family), in blocks of pairs; in the
    inputs' precision."""
    k, r = centred.shape
    top = np.full(r, np.nan, dtype=centred.dtype)
    width = max(1, CHUNK // max(r, 1))
    buf = np.empty(width * r, dtype=centred.dtype)
    for i in range(k - 1):
        for j0 in range(i + 1, k, width):
            j1 = min(k, j0 + width)
            block = buf[: (j1 - j0) * r].reshape(j1 - j0, r)
            np.subtract(centred[i][None, :], centred[j0:j1], out=block)
            block *= inverse[i, j0:j1, None]
            np.fmax(top, np.fmax.reduce(block, axis=0), out=top)  # |x| = max(x, -x)
            np.fmax(top, -np.fmin.reduce(block, axis=0), out=top)
    return top


def critical(est: FloatArray, reps: FloatArray, se: FloatArray, level: float) -> float:
    """The quantile of T(b) given the pair standard errors ``se`` (K, K); NaN with fewer than
    two rows, no resample, no pair in the family or no resample where one is defined. T is
    computed in float32 first (about twice as fast), then every
    resample whose float32 value lies within twice a bound of its rounding error of the two
    order statistics the quantile interpolates is computed again in float64: those two are
    then exact, and resamples outside the band keep their side of them (float32 moves no
    value by more than the bound), so ``c`` equals the float64 computation."""
    if reps.shape[0] < 2 or reps.shape[1] == 0:
        return math.nan
    family = in_family(se)
    if not family.any():
        return math.nan
    with np.errstate(divide="ignore"):
        inverse = np.where(family, 1.0 / np.where(family, se, 1.0), np.nan)
    centred = reps - est[:, None]
    stat = _max_t(centred.astype(np.float32), inverse.astype(np.float32)).astype(np.float64)
    usable = ~np.isnan(stat)
    n = int(usable.sum())
    if n == 0:
        return math.nan
    h = (n - 1) * level
    low, high = math.floor(h), min(math.floor(h) + 1, n - 1)
    part = np.partition(stat[usable], [low, high])
    # |T32 - T64| <= a few float32 ulps of (|x_i| + |x_j|) w_ij, x the centred replicates
    eps = float(np.finfo(np.float32).eps)
    bound = 16.0 * eps * float(np.nanmax(np.abs(centred))) * float(np.nanmax(inverse))
    again = usable & (stat >= part[low] - 2 * bound) & (stat <= part[high] + 2 * bound)
    if not math.isfinite(bound) or again.sum() > max(16, reps.shape[1] // 8):
        stat = _max_t(centred, inverse)
    elif again.any():
        stat[again] = _max_t(centred[:, again], inverse)
    return float(np.quantile(stat[usable], level))


def critical_value(
    estimates: npt.ArrayLike, replicates: npt.ArrayLike, level: float = LEVEL
) -> float:
    """The studentized simultaneous critical value ``c`` of K rows (estimates (K,),
    replicates (K, R)); NaN with no pair in the family or no resample where one is defined."""
    est, reps = checked(estimates, replicates)
    return critical(est, reps, pair_standard_errors(reps), level)


__all__ = [
    "CHUNK",
    "LEVEL",
    "ZERO_SE",
    "checked",
    "critical",
    "critical_value",
    "in_family",
    "pair_standard_errors",
]
