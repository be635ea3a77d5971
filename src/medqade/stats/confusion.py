"""Confusion counts of many rater pairs at once, and PA, kappa and n from them.

The cells of every (pair, unit), ``c * k + d`` for the first rater's code ``c`` and the second's
``d`` (-1 where either is `MISSING`), are counted with one ``numpy.bincount``, or under bootstrap
count weights ``(R, units)`` with one matrix product of the weights and the one-hot cells per
batch of replicates (working set below about 256 MB). Used by :mod:`.agreement` (two raters)
and :mod:`.panels` (every pair of a panel, raters against a reference).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._validation import MISSING, row_chunks, safe_divide

__all__ = ["cell_counts", "pa_kappa_n", "pair_cells", "pair_statistics"]


def pair_cells(first: NDArray[np.int64], second: NDArray[np.int64], k: int) -> NDArray[np.int64]:
    """Cell index ``c * k + d`` of every (pair, unit), or -1 where either rating is missing.

    `first` and `second` have shape (P, units); so has the result.
    """
    pairable = (first != MISSING) & (second != MISSING)
    return np.where(pairable, first * k + second, -1)


def _one_hot(cells: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    """One-hot matrix of shape (units, P * k * k) of the cells of every pair."""
    n_pairs, n_units = cells.shape
    x = np.zeros((n_units, n_pairs * k * k))
    pair, unit = np.nonzero(cells >= 0)
    x[unit, pair * k * k + cells[pair, unit]] = 1.0
    return x


def cell_counts(
    cells: NDArray[np.int64], k: int, weights: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """Confusion counts of every pair: shape (P, k, k), or (R, P, k, k) with weights."""
    n_pairs, n_units = cells.shape
    kk = k * k
    if weights is None:
        pair, unit = np.nonzero(cells >= 0)
        flat = np.bincount(pair * kk + cells[pair, unit], minlength=n_pairs * kk)
        return flat.reshape(n_pairs, k, k).astype(np.float64)
    x = _one_hot(cells, k)
    out = np.empty((weights.shape[0], n_pairs * kk))
    for rows in row_chunks(weights.shape[0], 8 * (n_units + n_pairs * kk)):
        out[rows] = weights[rows] @ x
    return out.reshape(-1, n_pairs, k, k)


def pa_kappa_n(
    counts: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """PA, Cohen's kappa and pairable count from confusion counts of shape (..., k, k).

    ``kappa = (n * sum_c n_cc - sum_c n_c. n_.c) / (n**2 - sum_c n_c. n_.c)``, which equals
    ``(p_o - p_e) / (1 - p_e)``; NaN where ``p_e == 1`` or ``n < 2`` (one pairable unit gives
    no information about chance agreement). PA is NaN only where ``n == 0``.
    """
    n = counts.sum(axis=(-2, -1))
    agree = np.trace(counts, axis1=-2, axis2=-1)
    chance = np.sum(counts.sum(axis=-1) * counts.sum(axis=-2), axis=-1)
    pa = safe_divide(agree, n)
    kappa = safe_divide(n * agree - chance, np.where(n >= 2, n * n - chance, 0.0))
    return pa, kappa, n


def pair_statistics(
    cells: NDArray[np.int64], k: int, weights: NDArray[np.float64] | None
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """PA, kappa and pairable counts of shape (P,) or (R, P), batched over replicates."""
    if weights is None:
        return pa_kappa_n(cell_counts(cells, k, None))
    n_pairs, n_units = cells.shape
    kk = k * k
    x = _one_hot(cells, k)
    n_resamples = weights.shape[0]
    pa = np.empty((n_resamples, n_pairs))
    kappa = np.empty((n_resamples, n_pairs))
    n = np.empty((n_resamples, n_pairs))
    # per replicate: one row of weights, its counts and about three temporaries of that size
    for rows in row_chunks(n_resamples, 8 * (n_units + 4 * n_pairs * kk)):
        counts = (weights[rows] @ x).reshape(-1, n_pairs, k, k)
        pa[rows], kappa[rows], n[rows] = pa_kappa_n(counts)
    return pa, kappa, n
