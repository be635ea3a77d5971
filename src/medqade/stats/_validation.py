"""Input checks and batching helpers shared by the statistics modules.

Every public function validates its arguments here, at the top, and the compute code then trusts
the standardised arrays it gets back (the pattern of ``scipy.stats.bootstrap``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

MISSING: Final[int] = -1
"""Code of a missing rating (abstentions are converted to it before any statistic)."""

MEMORY_BUDGET_BYTES: int = 256 * 2**20
"""Upper bound on the working set of one batch of bootstrap replicates."""


def check_codes(x: ArrayLike, *, name: str, ndim: int, k: int | None) -> NDArray[np.int64]:
    """Return `x` as an int64 array of category codes after checking it.

    Parameters
    ----------
    x : array_like of int, shape (units,) if `ndim` is 1, (raters, units) if `ndim` is 2
        Category codes ``0..k-1`` or `MISSING`.
    name : str
        Name of the argument, used in error messages.
    ndim : int
        Required number of dimensions, 1 or 2.
    k : int or None
        Number of categories; ``None`` only checks that codes are ``>= MISSING``.
    """
    arr = np.asarray(x)
    if arr.ndim != ndim:
        shape = "(units,)" if ndim == 1 else "(raters, units)"
        raise ValueError(f"`{name}` must have shape {shape}; got an array of shape {arr.shape}.")
    if arr.dtype.kind not in "iu":
        raise ValueError(
            f"`{name}` must hold integer category codes with MISSING = -1; got dtype {arr.dtype}."
        )
    if ndim == 2 and arr.shape[0] == 0:
        raise ValueError(f"`{name}` has zero raters; at least one rater is needed.")
    if arr.shape[-1] == 0:
        raise ValueError(f"`{name}` has zero units; at least one unit is needed.")
    codes = arr.astype(np.int64, copy=False)
    high = np.iinfo(np.int64).max if k is None else k - 1
    bad = (codes != MISSING) & ((codes < 0) | (codes > high))
    if bad.any():
        allowed = "non-negative codes" if k is None else f"codes 0..{k - 1}"
        raise ValueError(
            f"`{name}` must hold {allowed} or MISSING (-1); found the value {codes[bad][0]}."
        )
    return codes


def check_n_categories(k: int, *, minimum: int) -> int:
    """Return `k` after checking that it is an integer of at least `minimum`."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < minimum:
        raise ValueError(f"`k` must be an integer of at least {minimum}; got {k!r}.")
    return int(k)


def check_weights(weights: ArrayLike, n_units: int) -> NDArray[np.float64]:
    """Return bootstrap count weights as a float64 array of shape (R, units).

    Parameters
    ----------
    weights : array_like, shape (R, units)
        ``weights[r, i]`` = how many times unit ``i`` was drawn in resample ``r``. Non-negative
        and finite; integer counts are typical, but non-integer weights are accepted.
    n_units : int
        Number of units of the data the weights apply to.
    """
    arr = np.asarray(weights)
    if arr.ndim != 2 or arr.shape[1] != n_units:
        raise ValueError(
            f"`weights` must have shape (R, {n_units}) to match the units of the data; "
            f"got an array of shape {arr.shape}."
        )
    if arr.shape[0] == 0:
        raise ValueError("`weights` has zero resamples; at least one resample is needed.")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"`weights` must be a numeric array of counts; got dtype {arr.dtype}.")
    w = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("`weights` must be finite and non-negative.")
    return w


def row_chunks(n_rows: int, bytes_per_row: int) -> Iterator[slice]:
    """Yield slices over ``range(n_rows)`` whose batches fit in `MEMORY_BUDGET_BYTES`."""
    step = max(1, MEMORY_BUDGET_BYTES // max(1, bytes_per_row))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def safe_divide(numerator: ArrayLike, denominator: ArrayLike) -> NDArray[np.float64]:
    """Return ``numerator / denominator`` with NaN (and no warning) where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def nanmean_last(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Mean over the last axis ignoring NaN; NaN (without a warning) where all are NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanmean(x, axis=-1), dtype=np.float64)
