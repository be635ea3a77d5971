"""Bootstrap resampling of units as index matrices and count weights.

All ``R`` resamples are drawn at once as an index matrix of shape ``(R, units)``; statistics then
take the equivalent *count weights* ``weights[r, i]`` = number of times unit ``i`` was drawn in
resample ``r``, so that every replicate is one row of a matrix product. Resample whole units
(questions, with all their raters and answer slots) and reuse the same matrix for every pair and
slot, so that replicates of different statistics are paired.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["bootstrap_indices", "resample_weights", "stratified_bootstrap_indices"]


def _check_rng(rng: np.random.Generator) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            "`rng` must be a numpy.random.Generator, e.g. numpy.random.default_rng(seed); "
            f"got {type(rng).__name__}."
        )


def _check_count(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"`{name}` must be a positive integer; got {value!r}.")
    return int(value)


def bootstrap_indices(
    n_units: int, n_resamples: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Draw bootstrap resamples of units as one index matrix.

    Parameters
    ----------
    n_units : int
        Number of units (e.g. questions) to resample, ``>= 1``.
    n_resamples : int
        Number of resamples ``R``, ``>= 1``.
    rng : numpy.random.Generator
        Source of randomness; the same seed gives the same matrix.

    Returns
    -------
    ndarray of int64, shape (R, n_units)
        ``indices[r]`` lists the units drawn, with replacement, for resample ``r``; it comes from
        ``rng.integers(0, n_units, size=(R, n_units))``.

    Examples
    --------
    >>> idx = bootstrap_indices(5, 3, np.random.default_rng(0))
    >>> idx.shape
    (3, 5)
    """
    n = _check_count(n_units, "n_units")
    r = _check_count(n_resamples, "n_resamples")
    _check_rng(rng)
    return rng.integers(0, n, size=(r, n), dtype=np.int64)


def resample_weights(indices: ArrayLike, n_units: int) -> NDArray[np.int64]:
    """Convert an index matrix of resamples into count weights.

    Parameters
    ----------
    indices : array_like of int, shape (R, m)
        Units drawn in each resample, values in ``0..n_units-1`` (``m`` is usually `n_units`).
    n_units : int
        Number of units of the data.

    Returns
    -------
    ndarray of int64, shape (R, n_units)
        ``weights[r, i]`` = number of times unit ``i`` occurs in ``indices[r]``.

    Notes
    -----
    One ``numpy.bincount`` over ``indices + n_units * r`` (each resample shifted into its own
    block of bins), so there is no loop over resamples.

    Examples
    --------
    >>> resample_weights([[0, 0, 2], [1, 2, 2]], 3)
    array([[2, 0, 1],
           [0, 1, 2]])
    """
    n = _check_count(n_units, "n_units")
    idx = np.asarray(indices)
    if idx.ndim != 2:
        raise ValueError(f"`indices` must have shape (R, m); got an array of shape {idx.shape}.")
    if idx.dtype.kind not in "iu":
        raise ValueError(f"`indices` must hold integer unit indices; got dtype {idx.dtype}.")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"`indices` must lie in 0..{n - 1} for n_units = {n}.")
    n_resamples = idx.shape[0]
    offsets = n * np.arange(n_resamples, dtype=np.int64)[:, None]
    flat = (idx.astype(np.int64) + offsets).ravel()
    counts = np.bincount(flat, minlength=n_resamples * n)
    return counts.reshape(n_resamples, n).astype(np.int64, copy=False)


def stratified_bootstrap_indices(
    strata: ArrayLike, n_resamples: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Draw resamples that resample units within each stratum independently.

    This is the independent-subgroup bootstrap used for between-stratum differences (e.g.
    accuracy on exact-match vs other questions): every stratum keeps its size in every
    resample, and its units are drawn with replacement from that stratum only, independently of
    the other strata.

    Parameters
    ----------
    strata : array_like, shape (units,)
        Stratum label of every unit (any sortable labels: ints or strings).
    n_resamples : int
        Number of resamples ``R``, ``>= 1``.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of int64, shape (R, units)
        Column ``j`` of every row holds a unit of the same stratum as unit ``j``; pass it to
        `resample_weights` for count weights, or index data with it.

    Notes
    -----
    Strata are processed in sorted order of their labels, one ``rng.integers`` call each of
    shape ``(R, size of stratum)``; the result is therefore reproducible given the seed.

    Examples
    --------
    >>> idx = stratified_bootstrap_indices(["a", "b", "a", "b"], 2, np.random.default_rng(0))
    >>> bool(np.all(np.isin(idx[:, [0, 2]], [0, 2]) & np.isin(idx[:, [1, 3]], [1, 3])))
    True
    """
    labels = np.asarray(strata)
    if labels.ndim != 1:
        raise ValueError(
            f"`strata` must have shape (units,); got an array of shape {labels.shape}."
        )
    if labels.size == 0:
        raise ValueError("`strata` has zero units; at least one unit is needed.")
    r = _check_count(n_resamples, "n_resamples")
    _check_rng(rng)
    _, stratum_of_unit = np.unique(labels, return_inverse=True)
    out = np.empty((r, labels.size), dtype=np.int64)
    for s in range(int(stratum_of_unit.max()) + 1):
        members = np.flatnonzero(stratum_of_unit == s)
        out[:, members] = members[rng.integers(0, members.size, size=(r, members.size))]
    return out
