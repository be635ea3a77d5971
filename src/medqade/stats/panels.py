"""Agreement of many pairs at once: every pair of raters in a panel, and raters against a
reference (notation: :mod:`.agreement`).

Each pair uses its own pairable units for both ``p_o`` and ``p_e``; the counts of all pairs come
from :mod:`.confusion` in one pass, also for all bootstrap replicates.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._validation import check_codes, check_n_categories, check_weights, nanmean_last
from .confusion import pair_cells, pair_statistics

__all__ = ["PairAgreement", "PanelAgreement", "compare_to_reference", "pairwise_panel"]


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
    cells = pair_cells(codes[pairs[:, 0]], codes[pairs[:, 1]], k)
    pa, kappa, n = pair_statistics(cells, k, w)
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
    cells = pair_cells(raters, np.broadcast_to(ref, raters.shape), k)
    pa, kappa, n = pair_statistics(cells, k, w)
    if ndim == 1:
        pa, kappa, n = pa[..., 0], kappa[..., 0], n[..., 0]
    return PairAgreement(pa=pa, kappa=kappa, pabak=(k * pa - 1) / (k - 1), n=n)
