"""Pairwise agreement: confusion counts, percent agreement, Cohen's kappa, PABAK.

Notation (Cohen 1960; Byrt, Bishop & Carlin 1993): for two raters and the ``n`` units both rated
substantively (pairwise exclusion of `MISSING`), ``n_cd`` is the number of units rated ``c`` by
the first and ``d`` by the second rater, ``p_o = sum_c n_cc / n`` the observed agreement (percent
agreement, PA), and ``p_e = sum_c n_c. * n_.c / n**2`` the chance agreement from the margins of
the *same* ``n`` units. Cohen's kappa is ``(p_o - p_e) / (1 - p_e)``; PABAK is
``(k * p_o - 1) / (k - 1)`` with ``k`` the number of categories of the design.

Every statistic takes optional bootstrap count weights of shape ``(R, units)``. Weighted counts are
``weights @ one_hot_cells`` for all pairs and replicates at once, in batches of replicates whose
working set stays below about 256 MB.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import (
    MISSING,
    check_codes,
    check_n_categories,
    check_weights,
    nanmean_last,
    row_chunks,
    safe_divide,
)

__all__ = [
    "PairAgreement",
    "PanelAgreement",
    "cohen_kappa",
    "compare_to_reference",
    "confusion_counts",
    "pabak",
    "pairwise_panel",
    "percent_agreement",
]


# --------------------------------------------------------------------------- private helpers


def _cells(first: NDArray[np.int64], second: NDArray[np.int64], k: int) -> NDArray[np.int64]:
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


def _cell_counts(
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


def _pa_kappa_n(
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


def _pair_statistics(
    cells: NDArray[np.int64], k: int, weights: NDArray[np.float64] | None
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """PA, kappa and pairable counts of shape (P,) or (R, P), batched over replicates."""
    if weights is None:
        return _pa_kappa_n(_cell_counts(cells, k, None))
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
        pa[rows], kappa[rows], n[rows] = _pa_kappa_n(counts)
    return pa, kappa, n


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
    return _cells(first[None], second[None], k), k, w


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
    counts = _cell_counts(cells, k, w)
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
    pa, _, _ = _pair_statistics(cells, k, w)
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
    _, kappa, _ = _pair_statistics(cells, k, w)
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


# --------------------------------------------------------------------------- panels


@dataclass(frozen=True, eq=False)
class PanelAgreement:
    """Pairwise agreement of every pair of raters in a panel.

    Attributes
    ----------
    pairs : ndarray of int, shape (P, 2)
        Rater indices ``(i, j)``, ``i < j``, in ``itertools.combinations`` order.
    pa, kappa : ndarray of float64, shape (P,) or (R, P)
        Percent agreement and Cohen's kappa of every pair (NaN where undefined).
    n : ndarray of float64, shape (P,) or (R, P)
        Number of units both raters of a pair rated (weighted by the bootstrap counts).
    """

    pairs: NDArray[np.int64]
    pa: NDArray[np.float64]
    kappa: NDArray[np.float64]
    n: NDArray[np.float64]

    @property
    def mean_pa(self) -> NDArray[np.float64]:
        """Mean PA over pairs (NaN ignored), shape () or (R,)."""
        return nanmean_last(self.pa)

    @property
    def mean_kappa(self) -> NDArray[np.float64]:
        """Mean kappa over pairs (undefined pairs ignored), shape () or (R,)."""
        return nanmean_last(self.kappa)


def pairwise_panel(
    ratings: ArrayLike, k: int = 2, weights: ArrayLike | None = None
) -> PanelAgreement:
    """Percent agreement and Cohen's kappa for all pairs of raters, in one pass.

    Parameters
    ----------
    ratings : array_like of int, shape (raters, units)
        Category codes ``0..k-1``, `MISSING` (-1) where a rater gave none; at least two raters.
    k : int, optional
        Number of substantive categories of the design.
    weights : array_like, shape (R, units), optional
        Bootstrap count weights, shared by all pairs.

    Returns
    -------
    PanelAgreement
        Per-pair ``pa``, ``kappa`` and ``n`` of shape (P,) or (R, P) with
        ``P = raters * (raters - 1) / 2``, and their means over pairs ``mean_pa`` and
        ``mean_kappa``.

    Notes
    -----
    Each pair uses its own pairable units for both ``p_o`` and ``p_e`` (see `cohen_kappa`). The
    counts of all pairs come from one ``numpy.bincount`` (or one matrix product with the
    weights), so the cost does not grow with a Python loop over pairs or replicates.

    Examples
    --------
    >>> panel = pairwise_panel([[0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, -1]])
    >>> panel.pairs.tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> print(f"{panel.mean_pa:.4f}")
    0.8056
    """
    k = check_n_categories(k, minimum=2)
    codes = check_codes(ratings, name="ratings", ndim=2, k=k)
    if codes.shape[0] < 2:
        raise ValueError("`ratings` has a single rater; a panel needs at least two raters.")
    w = None if weights is None else check_weights(weights, codes.shape[1])
    pairs = np.array(list(combinations(range(codes.shape[0]), 2)), dtype=np.int64)
    cells = _cells(codes[pairs[:, 0]], codes[pairs[:, 1]], k)
    pa, kappa, n = _pair_statistics(cells, k, w)
    return PanelAgreement(pairs=pairs, pa=pa, kappa=kappa, n=n)


@dataclass(frozen=True, eq=False)
class PairAgreement:
    """Agreement of one or several raters with a reference.

    Attributes
    ----------
    pa, kappa, pabak, n : ndarray of float64
        Shape () for one rater, (raters,) for several, with a leading axis R under bootstrap
        weights: (R,) or (R, raters). ``n`` is the (weighted) number of pairable units.
    """

    pa: NDArray[np.float64]
    kappa: NDArray[np.float64]
    pabak: NDArray[np.float64]
    n: NDArray[np.float64]


def compare_to_reference(
    ratings: ArrayLike, reference: ArrayLike, k: int = 2, weights: ArrayLike | None = None
) -> PairAgreement:
    """PA, Cohen's kappa and PABAK of raters against a reference labelling.

    Parameters
    ----------
    ratings : array_like of int, shape (units,) or (raters, units)
        Codes ``0..k-1`` of one rater (1-D) or several raters (2-D), `MISSING` where absent.
    reference : array_like of int, shape (units,)
        Reference codes (e.g. a consensus), `MISSING` where unresolved.
    k : int, optional
        Number of substantive categories of the design (also used for PABAK).
    weights : array_like, shape (R, units), optional
        Bootstrap count weights, shared by all raters.

    Returns
    -------
    PairAgreement
        ``pa``, ``kappa``, ``pabak``, ``n`` of shape () or (raters,), or (R,) or (R, raters).
        Units missing in the rater or the reference are excluded pairwise.

    Examples
    --------
    >>> res = compare_to_reference([0, 1, 1, -1], [0, 1, 0, 1])
    >>> print(f"{res.pa:.4f} {res.pabak:.4f} {res.n:.0f}")
    0.6667 0.3333 3
    """
    k = check_n_categories(k, minimum=2)
    ndim = 1 if np.ndim(ratings) == 1 else 2
    codes = check_codes(ratings, name="ratings", ndim=ndim, k=k)
    ref = check_codes(reference, name="reference", ndim=1, k=k)
    if codes.shape[-1] != ref.shape[0]:
        raise ValueError(
            "`ratings` and `reference` must cover the same units; "
            f"got {codes.shape[-1]} and {ref.shape[0]} units."
        )
    w = None if weights is None else check_weights(weights, ref.shape[0])
    raters = codes.reshape(-1, ref.shape[0])
    cells = _cells(raters, np.broadcast_to(ref, raters.shape), k)
    pa, kappa, n = _pair_statistics(cells, k, w)
    if ndim == 1:
        pa, kappa, n = pa[..., 0], kappa[..., 0], n[..., 0]
    return PairAgreement(pa=pa, kappa=kappa, pabak=(k * pa - 1) / (k - 1), n=n)
