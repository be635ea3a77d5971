"""Multi-rater chance-corrected agreement: Fleiss' kappa and Gwet's AC1, missing data allowed.

Notation follows Gwet (2014) and the irrCAC package: ``r_ic`` is the number of raters who put
unit ``i`` into category ``c`` (of ``q`` categories), ``r_i = sum_c r_ic`` the number of ratings of
unit ``i``. Units with no rating at all are dropped first (irrCAC asks the caller to do so).

- ``p_a = mean over units with r_i >= 2 of sum_c r_ic (r_ic - 1) / (r_i (r_i - 1))``
- ``pi_c = mean over all (rated) units of r_ic / r_i``
- Fleiss: ``p_e = sum_c pi_c**2``; Gwet's AC1: ``p_e = sum_c pi_c (1 - pi_c) / (q - 1)``
- coefficient ``= (p_a - p_e) / (1 - p_e)``.

With the same number of ratings for every unit this is exactly Fleiss' (1971) kappa; with
missing ratings it is the generalisation of Gwet (2014) used by irrCAC.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import (
    MISSING,
    check_codes,
    check_n_categories,
    check_weights,
    row_chunks,
    safe_divide,
)

__all__ = ["fleiss_kappa", "fleiss_kappa_from_counts", "gwet_ac1"]

_Chance = Literal["fleiss", "gwet"]


def _category_counts(codes: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    """``r_ic``: shape (units, k), from codes of shape (raters, units)."""
    n_units = codes.shape[1]
    rater, unit = np.nonzero(codes != MISSING)
    flat = np.bincount(unit * k + codes[rater, unit], minlength=n_units * k)
    return flat.reshape(n_units, k).astype(np.float64)


def _unit_terms(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per-unit terms to be summed over units, shape (units, k + 3).

    Columns: agreement ``sum_c r_ic (r_ic - 1) / (r_i (r_i - 1))`` (0 if ``r_i < 2``),
    ``[r_i >= 2]``, ``[r_i >= 1]``, then ``r_ic / r_i`` (0 if ``r_i == 0``) for each category.
    """
    r = counts.sum(axis=1)
    pairs = np.zeros_like(r)
    np.divide((counts * (counts - 1)).sum(axis=1), r * (r - 1), out=pairs, where=r >= 2)
    shares = np.zeros_like(counts)
    np.divide(counts, r[:, None], out=shares, where=r[:, None] >= 1)
    return np.column_stack([pairs, r >= 2, r >= 1, shares])


def _coefficient(totals: NDArray[np.float64], chance: _Chance) -> NDArray[np.float64]:
    """Coefficient from unit totals of `_unit_terms`, shape (..., k + 3) -> (...)."""
    p_a = safe_divide(totals[..., 0], totals[..., 1])
    pi = safe_divide(totals[..., 3:], totals[..., 2:3])
    if chance == "fleiss":
        p_e = np.sum(pi * pi, axis=-1)
    else:
        p_e = np.sum(pi * (1 - pi), axis=-1) / (pi.shape[-1] - 1)
    return safe_divide(p_a - p_e, 1 - p_e)


def _from_counts(
    counts: NDArray[np.float64], weights: ArrayLike | None, chance: _Chance
) -> float | NDArray[np.float64]:
    """Coefficient of `chance` type from ``r_ic`` of shape (units, k), weights (R, units)."""
    rated = counts.sum(axis=1) > 0
    w = None if weights is None else check_weights(weights, counts.shape[0])[:, rated]
    terms = _unit_terms(counts[rated])
    if w is None:
        return np.float64(_coefficient(terms.sum(axis=0), chance))
    out = np.empty(w.shape[0])
    for rows in row_chunks(w.shape[0], 8 * (counts.shape[0] + 3 * terms.shape[1])):
        out[rows] = _coefficient(w[rows] @ terms, chance)
    return out


@overload
def fleiss_kappa(ratings: ArrayLike, k: int, weights: None = None) -> float: ...
@overload
def fleiss_kappa(ratings: ArrayLike, k: int, weights: ArrayLike) -> NDArray[np.float64]: ...
def fleiss_kappa(
    ratings: ArrayLike, k: int, weights: ArrayLike | None = None
) -> float | NDArray[np.float64]:
    """Fleiss' kappa of a panel, generalised to missing ratings as in irrCAC.

    Parameters
    ----------
    ratings : array_like of int, shape (raters, units)
        Category codes ``0..k-1``, `MISSING` (-1) where a rater gave none.
    k : int
        Number of categories of the design.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights.

    Returns
    -------
    float, or ndarray of shape (R,) with `weights`
        Kappa; NaN when no unit has two ratings or ``p_e == 1`` (a single category used).

    Notes
    -----
    See the module docstring for the formula. With complete data (or the same number of ratings
    per unit) it equals Fleiss (1971) and ``statsmodels``' ``fleiss_kappa``; with varying numbers
    of ratings it follows Gwet (2014, ch. 2) / irrCAC: ``p_a`` averages over units with at least
    two ratings, ``pi_c`` over all rated units.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin, 76(5), 378-382. Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed.

    Examples
    --------
    Krippendorff (2011), 4 raters x 12 units, values 1..5 coded 0..4 (irrCAC: 0.76117):

    >>> M = -1
    >>> data = [[0, 1, 2, 2, 1, 0, 3, 0, 1, M, M, M],
    ...         [0, 1, 2, 2, 1, 1, 3, 0, 1, 4, M, 2],
    ...         [M, 2, 2, 2, 1, 2, 3, 1, 1, 4, 0, M],
    ...         [0, 1, 2, 2, 1, 3, 3, 0, 1, 4, 0, M]]
    >>> print(f"{fleiss_kappa(data, k=5):.5f}")
    0.76117
    """
    k = check_n_categories(k, minimum=1)
    codes = check_codes(ratings, name="ratings", ndim=2, k=k)
    counts = _category_counts(codes, k)
    return _from_counts(counts, weights, "fleiss")


@overload
def fleiss_kappa_from_counts(counts: ArrayLike, weights: None = None) -> float: ...
@overload
def fleiss_kappa_from_counts(counts: ArrayLike, weights: ArrayLike) -> NDArray[np.float64]: ...
def fleiss_kappa_from_counts(
    counts: ArrayLike, weights: ArrayLike | None = None
) -> float | NDArray[np.float64]:
    """Fleiss' kappa from a units-by-categories table of rating counts.

    Parameters
    ----------
    counts : array_like, shape (units, k)
        ``counts[i, c]`` = number of raters who put unit ``i`` into category ``c``;
        non-negative integers (stored as int or float). Rows may have different sums.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights.

    Returns
    -------
    float, or ndarray of shape (R,) with `weights`
        Kappa as in `fleiss_kappa`; NaN when no unit has two ratings or ``p_e == 1``.

    Examples
    --------
    Fleiss' kappa example of Wikipedia (10 subjects, 14 raters, 5 categories):

    >>> table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...          [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...          [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    >>> print(f"{fleiss_kappa_from_counts(table):.7f}")
    0.2099307
    """
    table = np.asarray(counts)
    if table.ndim != 2:
        raise ValueError(
            f"`counts` must have shape (units, k); got an array of shape {table.shape}."
        )
    if table.shape[0] == 0:
        raise ValueError("`counts` has zero units; at least one unit is needed.")
    if table.shape[1] == 0:
        raise ValueError("`counts` has zero categories; at least one category is needed.")
    if table.dtype.kind not in "iuf":
        raise ValueError(f"`counts` must be a numeric array; got dtype {table.dtype}.")
    values = table.astype(np.float64)
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values != np.round(values)):
        raise ValueError("`counts` must hold non-negative whole numbers of ratings.")
    return _from_counts(values, weights, "fleiss")


@overload
def gwet_ac1(ratings: ArrayLike, k: int, weights: None = None) -> float: ...
@overload
def gwet_ac1(ratings: ArrayLike, k: int, weights: ArrayLike) -> NDArray[np.float64]: ...
def gwet_ac1(
    ratings: ArrayLike, k: int, weights: ArrayLike | None = None
) -> float | NDArray[np.float64]:
    """Gwet's AC1 of a panel with missing ratings.

    Parameters
    ----------
    ratings : array_like of int, shape (raters, units)
        Category codes ``0..k-1``, `MISSING` (-1) where a rater gave none.
    k : int
        Number of categories ``q`` of the design, at least 2; it enters ``p_e``, so pass the
        number of categories of the scale, not the number observed.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights.

    Returns
    -------
    float, or ndarray of shape (R,) with `weights`
        AC1; NaN when no unit has two ratings.

    Notes
    -----
    ``p_e = sum_c pi_c (1 - pi_c) / (q - 1)`` with ``p_a`` and ``pi_c`` as in `fleiss_kappa`
    (Gwet 2008; Gwet 2014, ch. 4; irrCAC ``gwet.ac1.raw``).

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
    high agreement. British Journal of Mathematical and Statistical Psychology, 61(1), 29-48.

    Examples
    --------
    Krippendorff (2011), 4 raters x 12 units, values 1..5 coded 0..4 (irrCAC: 0.77544):

    >>> M = -1
    >>> data = [[0, 1, 2, 2, 1, 0, 3, 0, 1, M, M, M],
    ...         [0, 1, 2, 2, 1, 1, 3, 0, 1, 4, M, 2],
    ...         [M, 2, 2, 2, 1, 2, 3, 1, 1, 4, 0, M],
    ...         [0, 1, 2, 2, 1, 3, 3, 0, 1, 4, 0, M]]
    >>> print(f"{gwet_ac1(data, k=5):.5f}")
    0.77544
    """
    k = check_n_categories(k, minimum=2)
    codes = check_codes(ratings, name="ratings", ndim=2, k=k)
    counts = _category_counts(codes, k)
    return _from_counts(counts, weights, "gwet")
