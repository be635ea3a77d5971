"""Intraclass correlations of a complete targets-by-raters matrix.

Notation follows Shrout & Fleiss (1979): ``n`` targets, ``k`` raters; from the two-way ANOVA of
the matrix, ``BMS`` is the between-targets mean square, ``JMS`` the between-raters (judges) mean
square, ``EMS`` the residual mean square and ``WMS`` the within-target mean square (raters and
residual pooled). McGraw & Wong (1996) call ICC(2,1) ``ICC(A,1)`` and ICC(3,1) ``ICC(C,1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._validation import safe_divide

__all__ = ["IntraclassCorrelations", "intraclass_correlations"]


@dataclass(frozen=True)
class IntraclassCorrelations:
    """The six Shrout & Fleiss intraclass correlations and the mean squares behind them.

    Attributes
    ----------
    icc1, icc2, icc3 : float
        Single-rater ICC(1,1), ICC(2,1) = ICC(A,1) and ICC(3,1) = ICC(C,1).
    icc1k, icc2k, icc3k : float
        Average-of-k-raters ICC(1,k), ICC(2,k) = ICC(A,k) and ICC(3,k) = ICC(C,k).
    bms, jms, ems, wms : float
        Between-targets, between-raters, residual and within-target mean squares.
    n_targets, n_raters : int
        Shape of the matrix.
    """

    icc1: float
    icc2: float
    icc3: float
    icc1k: float
    icc2k: float
    icc3k: float
    bms: float
    jms: float
    ems: float
    wms: float
    n_targets: int
    n_raters: int


def intraclass_correlations(x: ArrayLike) -> IntraclassCorrelations:
    """Shrout & Fleiss (1979) intraclass correlations of a complete matrix.

    Parameters
    ----------
    x : array_like of float, shape (targets, raters)
        Scores, at least two targets and two raters, no NaN. Listwise deletion of targets with
        missing scores is the caller's job (as in pingouin's ``intraclass_corr``).

    Returns
    -------
    IntraclassCorrelations
        The six coefficients (NaN where a denominator is zero, e.g. constant data) and the mean
        squares.

    Notes
    -----
    With ``BMS = SS_targets / (n - 1)``, ``JMS = SS_raters / (k - 1)``,
    ``EMS = SS_residual / ((n - 1) (k - 1))`` and ``WMS = (SS_raters + SS_residual) / (n (k - 1))``:

    - ICC(1,1) = (BMS - WMS) / (BMS + (k - 1) WMS); ICC(1,k) = (BMS - WMS) / BMS
    - ICC(2,1) = (BMS - EMS) / (BMS + (k - 1) EMS + k (JMS - EMS) / n);
      ICC(2,k) = (BMS - EMS) / (BMS + (JMS - EMS) / n)
    - ICC(3,1) = (BMS - EMS) / (BMS + (k - 1) EMS); ICC(3,k) = (BMS - EMS) / BMS

    References
    ----------
    Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. Psychological Bulletin, 86(2), 420-428. McGraw, K. O., & Wong, S. P. (1996).
    Forming inferences about some intraclass correlation coefficients. Psychological Methods,
    1(1), 30-46.

    Examples
    --------
    Shrout & Fleiss (1979), Table 2 (6 targets, 4 judges):

    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> res = intraclass_correlations(x)
    >>> print(f"{res.icc1:.6f} {res.icc2:.6f} {res.icc3:.6f}")
    0.165742 0.289764 0.714841
    """
    scores = np.asarray(x)
    if scores.ndim != 2:
        raise ValueError(
            f"`x` must have shape (targets, raters); got an array of shape {scores.shape}."
        )
    if scores.dtype.kind not in "iuf":
        raise ValueError(f"`x` must be a numeric array; got dtype {scores.dtype}.")
    n, k = scores.shape
    if n == 0 or k == 0:
        raise ValueError("`x` is empty; it needs at least one target and one rater.")
    if n < 2 or k < 2:
        raise ValueError(
            f"`x` needs at least two targets and two raters; got shape {scores.shape}."
        )
    values = scores.astype(np.float64)
    if np.isnan(values).any():
        raise ValueError(
            "`x` contains NaN; delete targets with missing scores (listwise) before the call."
        )
    if not np.all(np.isfinite(values)):
        raise ValueError("`x` contains infinite values.")

    grand = values.mean()
    ss_targets = k * np.sum((values.mean(axis=1) - grand) ** 2)
    ss_raters = n * np.sum((values.mean(axis=0) - grand) ** 2)
    ss_total = np.sum((values - grand) ** 2)
    ss_residual = ss_total - ss_targets - ss_raters
    bms = ss_targets / (n - 1)
    jms = ss_raters / (k - 1)
    ems = ss_residual / ((n - 1) * (k - 1))
    wms = (ss_raters + ss_residual) / (n * (k - 1))

    def ratio(numerator: float, denominator: float) -> float:
        return float(safe_divide(numerator, denominator))

    return IntraclassCorrelations(
        icc1=ratio(bms - wms, bms + (k - 1) * wms),
        icc2=ratio(bms - ems, bms + (k - 1) * ems + k * (jms - ems) / n),
        icc3=ratio(bms - ems, bms + (k - 1) * ems),
        icc1k=ratio(bms - wms, bms),
        icc2k=ratio(bms - ems, bms + (jms - ems) / n),
        icc3k=ratio(bms - ems, bms),
        bms=float(bms),
        jms=float(jms),
        ems=float(ems),
        wms=float(wms),
        n_targets=n,
        n_raters=k,
    )
