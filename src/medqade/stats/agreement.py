"""Pairwise agreement: confusion counts, percent agreement, Cohen's kappa, PABAK.

Notation (Cohen 1960; Byrt, Bishop & Carlin 1993): for two raters and the ``n`` units both rated
substantively (pairwise exclusion of `MISSING`), ``n_cd`` is the number of units rated ``c`` by
the first and ``d`` by the second rater, ``p_o = sum_c n_cc / n`` the observed agreement (percent
agreement, PA), and ``p_e = sum_c n_c. * n_.c / n**2`` the chance agreement from the margins of
the *same* ``n`` units. Cohen's kappa is ``(p_o - p_e) / (1 - p_e)``; PABAK is
``(k * p_o - 1) / (k - 1)`` with ``k`` the number of categories of the design.

Every statistic takes optional bootstrap count weights of shape ``(R, units)``. Weighted counts are
``weights @ one_hot_cells`` for all pairs and replicates at once, in batches of replicates whose
working set stays below about 256 MB (:mod:`.confusion`). Every pair of a panel, and raters
against a reference: :mod:`.panels`.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import check_codes, check_n_categories, check_weights
from .confusion import cell_counts, pair_cells, pair_statistics

__all__ = [
    "cohen_kappa",
    "confusion_counts",
    "pabak",
    "percent_agreement",
]


def _check_pair(
    a: ArrayLike, b: ArrayLike, k: int, weights: ArrayLike | None
) -> tuple[NDArray[np.int64], int, NDArray[np.float64] | None]:
    """Validate two raters' codes and return their cells, `k` and the weights."""
    k = check_n_categories(k, minimum=2)
    first = check_codes(a, name="a", ndim=1, k=k)
    second = check_codes(b, name="b", ndim=1, k=k)
    if first.shape != second.shape:
        raise ValueError(
            "`a` and `b` must rate the same units; "
            f"got {first.shape[0]} and {second.shape[0]} units."
        )
    w = None if weights is None else check_weights(weights, first.shape[0])
    return pair_cells(first[None], second[None], k), k, w


# --------------------------------------------------------------------------- two raters


@overload
def confusion_counts(
    a: ArrayLike, b: ArrayLike, k: int = 2, weights: None = None
) -> NDArray[np.float64]: ...
@overload
def confusion_counts(
    a: ArrayLike, b: ArrayLike, k: int = 2, *, weights: ArrayLike
) -> NDArray[np.float64]: ...
@overload
def confusion_counts(
    a: ArrayLike, b: ArrayLike, k: int, weights: ArrayLike
) -> NDArray[np.float64]: ...
def confusion_counts(
    a: ArrayLike, b: ArrayLike, k: int = 2, weights: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Confusion counts of two raters over the units both rated.

    Parameters
    ----------
    a, b : array_like of int, shape (units,)
        Category codes ``0..k-1`` of the two raters, `MISSING` (-1) where a rater gave none.
    k : int, optional
        Number of substantive categories of the design (2: correct, incorrect).
    weights : array_like, shape (R, units), optional
        Bootstrap count weights (see `medqade.stats.resample_weights`).

    Returns
    -------
    ndarray of float64, shape (k, k), or (R, k, k) with `weights`
        ``counts[..., c, d]`` = (weighted) number of units rated ``c`` by `a` and ``d`` by `b`;
        units where either rating is missing are excluded (pairwise exclusion).

    Examples
    --------
    >>> confusion_counts([0, 0, 1, -1], [0, 1, 1, 1])
    array([[1., 1.],
           [0., 1.]])
    """
    cells, k, w = _check_pair(a, b, k, weights)
    counts = cell_counts(cells, k, w)
    return counts[0] if w is None else counts[:, 0]


@overload
def percent_agreement(a: ArrayLike, b: ArrayLike, k: int = 2, weights: None = None) -> float: ...
@overload
def percent_agreement(
    a: ArrayLike, b: ArrayLike, k: int = 2, *, weights: ArrayLike
) -> NDArray[np.float64]: ...
@overload
def percent_agreement(
    a: ArrayLike, b: ArrayLike, k: int, weights: ArrayLike
) -> NDArray[np.float64]: ...
def percent_agreement(
    a: ArrayLike, b: ArrayLike, k: int = 2, weights: ArrayLike | None = None
) -> float | NDArray[np.float64]:
    """Share of the units rated by both raters on which they agree.

    Parameters
    ----------
    a, b : array_like of int, shape (units,)
        Category codes ``0..k-1`` of the two raters, `MISSING` (-1) where a rater gave none.
    k : int, optional
        Number of substantive categories of the design.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights.

    Returns
    -------
    float, or ndarray of shape (R,) with `weights`
        ``p_o = sum_c n_cc / n`` over the ``n`` pairable units; NaN when ``n == 0``.

    Examples
    --------
    The 2x2 table [[40, 9], [6, 45]] (prevalence paradox example) has PA 0.85:

    >>> a = [0] * 49 + [1] * 51
    >>> b = [0] * 40 + [1] * 9 + [0] * 6 + [1] * 45
    >>> print(f"{percent_agreement(a, b):.2f}")
    0.85
    """
    cells, k, w = _check_pair(a, b, k, weights)
    pa, _, _ = pair_statistics(cells, k, w)
    return np.float64(pa[0]) if w is None else pa[:, 0]


@overload
def cohen_kappa(a: ArrayLike, b: ArrayLike, k: int = 2, weights: None = None) -> float: ...
@overload
def cohen_kappa(
    a: ArrayLike, b: ArrayLike, k: int = 2, *, weights: ArrayLike
) -> NDArray[np.float64]: ...
@overload
def cohen_kappa(a: ArrayLike, b: ArrayLike, k: int, weights: ArrayLike) -> NDArray[np.float64]: ...
def cohen_kappa(
    a: ArrayLike, b: ArrayLike, k: int = 2, weights: ArrayLike | None = None
) -> float | NDArray[np.float64]:
    """Cohen's kappa of two raters over the units both rated.

    Parameters
    ----------
    a, b : array_like of int, shape (units,)
        Category codes ``0..k-1`` of the two raters, `MISSING` (-1) where a rater gave none.
    k : int, optional
        Number of substantive categories of the design.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights.

    Returns
    -------
    float, or ndarray of shape (R,) with `weights`
        Kappa; NaN when it is undefined: ``p_e == 1`` (e.g. both raters used one category) or
        fewer than two pairable units (scikit-learn returns 0 for a single discordant unit).

    Notes
    -----
    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_e = sum_c n_c. n_.c / n**2`` computed from the
    same ``n`` pairable units as ``p_o`` (Cohen 1960). Equals
    ``sklearn.metrics.cohen_kappa_score`` on the masked ratings.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
    Measurement, 20(1), 37-46.

    Examples
    --------
    The 2x2 table [[20, 5], [10, 15]] gives kappa 0.4:

    >>> a = [0] * 25 + [1] * 25
    >>> b = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    >>> print(f"{cohen_kappa(a, b):.6f}")
    0.400000
    """
    cells, k, w = _check_pair(a, b, k, weights)
    _, kappa, _ = pair_statistics(cells, k, w)
    return np.float64(kappa[0]) if w is None else kappa[:, 0]


@overload
def pabak(pa: float, k: int = 2) -> float: ...
@overload
def pabak(pa: NDArray[Any], k: int = 2) -> NDArray[np.float64]: ...
def pabak(pa: float | NDArray[Any], k: int = 2) -> float | NDArray[np.float64]:
    """Prevalence- and bias-adjusted kappa from percent agreement.

    Parameters
    ----------
    pa : float or ndarray of any shape
        Percent agreement(s) in ``[0, 1]``; NaN passes through.
    k : int, optional
        Number of substantive categories of the *design* (not the number observed).

    Returns
    -------
    float, or ndarray of the shape of `pa`
        ``(k * pa - 1) / (k - 1)``; for ``k = 2`` that is ``2 * pa - 1``.

    Notes
    -----
    Byrt, T., Bishop, J., & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of Clinical
    Epidemiology, 46(5), 423-429. The map is linear, so the PABAK interval is the PA interval
    mapped the same way.

    Examples
    --------
    >>> print(f"{pabak(0.85):.2f}")
    0.70
    """
    k = check_n_categories(k, minimum=2)
    values = np.asarray(pa, dtype=np.float64)
    if np.any((values < 0) | (values > 1)):
        raise ValueError("`pa` must lie in [0, 1] (NaN allowed for undefined values).")
    result = (k * values - 1) / (k - 1)
    return np.float64(result) if result.ndim == 0 else result
