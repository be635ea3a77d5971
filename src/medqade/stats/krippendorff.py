"""Krippendorff's alpha for nominal and interval data with missing values.

Notation follows Krippendorff (2011): ``n_uc`` is the number of values ``c`` in unit ``u``,
``m_u = sum_c n_uc`` the number of values in unit ``u`` (pairable when ``m_u >= 2``),
``o_ck = sum_u (n_uc * n_uk - [c == k] * n_uc) / (m_u - 1)`` the coincidence matrix,
``n_c = sum_k o_ck`` and ``n = sum_c n_c`` the number of pairable values, and ``delta2_ck`` the
squared difference function of the level of measurement.
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

__all__ = ["krippendorff_alpha"]

Level = Literal["nominal", "interval"]


def _value_counts(codes: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    """``n_uc``: shape (units, k), from codes of shape (raters, units)."""
    n_units = codes.shape[1]
    rater, unit = np.nonzero(codes != MISSING)
    flat = np.bincount(unit * k + codes[rater, unit], minlength=n_units * k)
    return flat.reshape(n_units, k).astype(np.float64)


def _unit_coincidences(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per-unit coincidences ``(n_uc n_uk - [c == k] n_uc) / (m_u - 1)``, shape (units, k * k).

    Units with fewer than two values get a zero row (they are not pairable).
    """
    n_units, k = counts.shape
    m = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :]
    pairs[:, np.arange(k), np.arange(k)] -= counts
    scale = np.zeros(n_units)
    np.divide(1.0, m - 1, out=scale, where=m >= 2)
    return (pairs * scale[:, None, None]).reshape(n_units, k * k)


def _distances(k: int, level: Level) -> NDArray[np.float64]:
    """``delta2_ck`` of shape (k, k): 0/1 for nominal, ``(c - k)**2`` on the codes for interval."""
    values = np.arange(k, dtype=np.float64)
    if level == "nominal":
        return 1.0 - np.eye(k)
    return (values[:, None] - values[None, :]) ** 2


def _alpha_from_coincidences(
    coincidences: NDArray[np.float64], delta2: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``1 - (n - 1) * sum o_ck delta2_ck / sum n_c n_k delta2_ck``; input (..., k, k).

    NaN where there is no pairable value or the expected disagreement is zero.
    """
    n_c = coincidences.sum(axis=-1)
    n = n_c.sum(axis=-1)
    observed = np.sum(coincidences * delta2, axis=(-2, -1))
    expected = np.einsum("...c,ck,...k->...", n_c, delta2, n_c)
    return 1.0 - safe_divide((n - 1) * observed, expected)


@overload
def krippendorff_alpha(
    ratings: ArrayLike, level: Level = "nominal", k: int | None = None, weights: None = None
) -> float: ...
@overload
def krippendorff_alpha(
    ratings: ArrayLike, level: Level = "nominal", k: int | None = None, *, weights: ArrayLike
) -> NDArray[np.float64]: ...
@overload
def krippendorff_alpha(
    ratings: ArrayLike, level: Level, k: int | None, weights: ArrayLike
) -> NDArray[np.float64]: ...
def krippendorff_alpha(
    ratings: ArrayLike,
    level: Level = "nominal",
    k: int | None = None,
    weights: ArrayLike | None = None,
) -> float | NDArray[np.float64]:
    """Krippendorff's alpha of a panel with missing values.

    Parameters
    ----------
    ratings : array_like of int, shape (raters, units)
        Category codes ``0..k-1``, `MISSING` (-1) where a rater gave none. Raters are rows: the
        transpose gives a different, wrong value.
    level : {"nominal", "interval"}, optional
        ``"nominal"``: ``delta2 = [c != k]``. ``"interval"``: ``delta2 = (c - k)**2`` on the codes
        themselves (e.g. difficulty 0/1/2), i.e. alpha "with squared distances".
    k : int, optional
        Number of categories; defaults to the largest code in `ratings` plus one.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights.

    Returns
    -------
    float, or ndarray of shape (R,) with `weights`
        Alpha; NaN when no unit has two values or the expected disagreement ``D_e`` is zero
        (a single category in the pairable values).

    Notes
    -----
    ``alpha = 1 - D_o / D_e = 1 - (n - 1) * sum_ck o_ck delta2_ck / sum_ck n_c n_k delta2_ck``
    (Krippendorff 2011). Per-unit coincidences are summed with the weights, so all replicates
    are one matrix product of shape (R, units) @ (units, k * k). Matches the ``krippendorff``
    package, except that it raises on a single category where this function returns NaN.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
    Communication, University of Pennsylvania.

    Examples
    --------
    Krippendorff (2011), 4 raters x 12 units, values 1..5 coded 0..4:

    >>> M = -1
    >>> data = [[0, 1, 2, 2, 1, 0, 3, 0, 1, M, M, M],
    ...         [0, 1, 2, 2, 1, 1, 3, 0, 1, 4, M, 2],
    ...         [M, 2, 2, 2, 1, 2, 3, 1, 1, 4, 0, M],
    ...         [0, 1, 2, 2, 1, 3, 3, 0, 1, 4, 0, M]]
    >>> print(f"{krippendorff_alpha(data, 'nominal'):.6f}")
    0.743421
    >>> print(f"{krippendorff_alpha(data, 'interval'):.6f}")
    0.849107
    """
    if level not in ("nominal", "interval"):
        raise ValueError(f'`level` must be "nominal" or "interval"; got {level!r}.')
    if k is not None:
        k = check_n_categories(k, minimum=1)
    codes = check_codes(ratings, name="ratings", ndim=2, k=k)
    if k is None:
        k = max(int(codes.max()) + 1, 1)
    w = None if weights is None else check_weights(weights, codes.shape[1])

    per_unit = _unit_coincidences(_value_counts(codes, k))
    delta2 = _distances(k, level)
    if w is None:
        return np.float64(_alpha_from_coincidences(per_unit.sum(axis=0).reshape(k, k), delta2))
    alpha = np.empty(w.shape[0])
    for rows in row_chunks(w.shape[0], 8 * (codes.shape[1] + 3 * k * k)):
        alpha[rows] = _alpha_from_coincidences((w[rows] @ per_unit).reshape(-1, k, k), delta2)
    return alpha
