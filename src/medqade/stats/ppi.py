"""Prediction-powered inference for a (stratified) share, with CLT intervals.

A few gold-standard labels ``y`` (physician consensus) on a labelled sample and cheap
predictions ``f`` (a judge) on the labelled sample *and* on a large unlabelled set are combined
into an estimate of the share of ``y``. Notation follows Angelopoulos et al. (2023): ``n``
labelled units, ``N`` unlabelled units, ``lam`` the power-tuning weight of PPI++.

The estimand is a ratio of means, ``theta = E[y] / E[r]``, so that units without a label
(``r = 0``, e.g. an unresolved consensus) are treated as missing; the judge gives the
matching pair of predictions ``f`` (it says "correct") and ``g`` (it gives a verdict at all).
With ``r = g = 1`` everywhere this is the plain mean of ``y``.

Two variance models:

- ``finite=False`` (superpopulation, as in ``ppi_py``): the labelled and unlabelled sets are
  independent samples of one population; the unlabelled set's mean prediction is random.
- ``finite=True`` (design-based, the pool case): the unlabelled set is the whole finite
  population of a stratum, the labelled sample a simple random sample *of* it, and the target
  is the population's own share. The mean prediction over the population is then known
  exactly and the variance carries the finite-population correction ``1 - n / N``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "PPIEstimate",
    "RatioStratum",
    "plug_in_ratio",
    "ppi_mean",
    "resampled_points",
    "stratified_ppi",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class PPIEstimate:
    """A point estimate with its standard error, two-sided CLT interval and the ``lam`` used
    per stratum (one entry for an unstratified estimate)."""

    estimate: float
    se: float
    low: float
    high: float
    lam: tuple[float, ...]

    @property
    def ci(self) -> tuple[float, float]:
        return (self.low, self.high)


@dataclass(frozen=True)
class RatioStratum:
    """One stratum's arrays, validated by :meth:`make`.

    ``y``, ``r``, ``f``, ``g`` have shape (n,): labelled outcome, labelled "has a label",
    prediction of ``y`` and prediction of ``r`` on the labelled units; ``f_pool``, ``g_pool``
    shape (N,) the predictions on the unlabelled set. ``weight`` is the stratum's share of the
    population (normalised over the strata by :func:`stratified_ppi`).
    """

    y: FloatArray
    r: FloatArray
    f: FloatArray
    g: FloatArray
    f_pool: FloatArray
    g_pool: FloatArray
    weight: float

    @classmethod
    def make(
        cls,
        y: ArrayLike,
        f: ArrayLike,
        f_pool: ArrayLike,
        *,
        r: ArrayLike | None = None,
        g: ArrayLike | None = None,
        g_pool: ArrayLike | None = None,
        weight: float | None = None,
    ) -> RatioStratum:
        """Check shapes and values; ``r``, ``g``, ``g_pool`` default to ones and ``weight`` to
        the size of the unlabelled set."""
        y_, f_, fp = (_vector(v, name) for v, name in ((y, "y"), (f, "f"), (f_pool, "f_pool")))
        r_ = np.ones_like(y_) if r is None else _vector(r, "r")
        g_ = np.ones_like(f_) if g is None else _vector(g, "g")
        gp = np.ones_like(fp) if g_pool is None else _vector(g_pool, "g_pool")
        if not (len(y_) == len(f_) == len(r_) == len(g_)):
            raise ValueError(
                f"`y`, `r`, `f` and `g` must have one value per labelled unit; got lengths "
                f"{len(y_)}, {len(r_)}, {len(f_)}, {len(g_)}."
            )
        if len(fp) != len(gp):
            raise ValueError(
                f"`f_pool` and `g_pool` must have the same length; got {len(fp)} and {len(gp)}."
            )
        if len(y_) < 2 or len(fp) < 1:
            raise ValueError(
                "A stratum needs at least 2 labelled units and 1 unlabelled unit; got "
                f"{len(y_)} and {len(fp)}."
            )
        if np.any((r_ == 0) & (y_ != 0)) or np.any((g_ == 0) & (f_ != 0)):
            raise ValueError("`y` (`f`) must be 0 wherever `r` (`g`) is 0.")
        w = float(len(fp)) if weight is None else float(weight)
        if not (math.isfinite(w) and w > 0):
            raise ValueError(f"`weight` must be a positive number; got {weight!r}.")
        return cls(y_, r_, f_, g_, fp, gp, w)


def _vector(x: ArrayLike, name: str) -> FloatArray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must have shape (units,); got an array of shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must not contain NaN or infinite values.")
    return arr


def _z(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise ValueError(f"`alpha` must lie in (0, 1); got {alpha!r}.")
    return NormalDist().inv_cdf(1 - alpha / 2)


def _point(strata: Sequence[RatioStratum], lam: Sequence[float]) -> float:
    """``sum_h W_h A_h / sum_h W_h R_h`` with the prediction-powered numerator and denominator
    ``A_h = lam_h * mean(f_pool) + mean(y - lam_h * f)`` (``R_h`` alike with ``r``, ``g``)."""
    num = sum(
        s.weight * (lh * s.f_pool.mean() + (s.y - lh * s.f).mean())
        for s, lh in zip(strata, lam, strict=True)
    )
    den = sum(
        s.weight * (lh * s.g_pool.mean() + (s.r - lh * s.g).mean())
        for s, lh in zip(strata, lam, strict=True)
    )
    return float(num / den) if den > 0 else math.nan


def _tuned(s: RatioStratum, theta: float, finite: bool) -> float:
    """The ``lam`` minimising the stratum's variance, clipped to [0, 1].

    With the linearised outcome ``v = y - theta r`` and prediction ``w = f - theta g``:
    superpopulation ``cov(v, w) / ((1 + n / N) var(w over both sets))`` (PPI++, as ``ppi_py``
    computes it); finite population ``cov(v, w) / var(w)`` over the labelled sample (the
    population's mean prediction is known, so it carries no variance).
    """
    v = s.y - theta * s.r
    w = s.f - theta * s.g
    n, big_n = len(v), len(s.f_pool)
    cov = float(np.mean((v - v.mean()) * (w - w.mean())))
    if finite:
        var = float(np.var(w))
    else:
        both = np.concatenate([w, s.f_pool - theta * s.g_pool])
        var = (1 + n / big_n) * float(np.var(both, ddof=1))
    if var <= 0:
        return 0.0
    return float(np.clip(cov / var, 0.0, 1.0))


def _variance(
    strata: Sequence[RatioStratum], lam: Sequence[float], theta: float, finite: bool
) -> float:
    """Delta-method variance of the ratio: ``sum_h W_h^2 V_h / (sum_h W_h R_h)^2``.

    ``V_h`` for ``u = (y - theta r) - lam (f - theta g)``: finite ``(1 - n/N) s^2(u) / n``
    (``ddof=1``); superpopulation ``var(u) / n + lam^2 var(f_pool - theta g_pool) / N``
    (``ddof=0``, as ``ppi_py``).
    """
    total = sum(s.weight for s in strata)
    out = 0.0
    den = 0.0
    for s, lh in zip(strata, lam, strict=True):
        wt = s.weight / total
        u = (s.y - theta * s.r) - lh * (s.f - theta * s.g)
        n, big_n = len(u), len(s.f_pool)
        if finite:
            v_h = max(1.0 - n / big_n, 0.0) * float(np.var(u, ddof=1)) / n
        else:
            pool_u = lh * (s.f_pool - theta * s.g_pool)
            v_h = float(np.var(u)) / n + float(np.var(pool_u)) / big_n
        out += wt**2 * v_h
        den += wt * (lh * s.g_pool.mean() + (s.r - lh * s.g).mean())
    return out / den**2 if den > 0 else math.nan


def stratified_ppi(
    strata: Sequence[RatioStratum],
    *,
    lam: float | None = None,
    finite: bool = True,
    alpha: float = 0.05,
) -> PPIEstimate:
    """Stratified prediction-powered estimate of ``sum_h W_h E_h[y] / sum_h W_h E_h[r]``.

    Parameters
    ----------
    strata : sequence of RatioStratum
        One entry per stratum (weights ``W_h`` are normalised to sum to 1).
    lam : float or None
        ``1`` plain PPI, ``0`` the classical (labelled-only, design-weighted) estimate, ``None``
        the power-tuned PPI++ weight chosen per stratum (pilot: ``lam = 1``; clipped to [0, 1]).
    finite : bool
        Design-based variance for a finite population sampled without replacement (default),
        or the superpopulation variance of ``ppi_py`` (see the module docstring).
    alpha : float
        Error level of the two-sided interval ``estimate +- z_{1-alpha/2} se``.

    Notes
    -----
    Per stratum, ``A_h = lam_h mean_N(f) + mean_n(y - lam_h f)`` (and ``R_h`` likewise): the
    judge's mean on the large set, corrected by the labelled mean of (gold - judge)
    (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, "Prediction-powered inference",
    Science 382, 2023). ``lam`` interpolates between the classical estimate and PPI and is
    tuned to minimise the variance (Angelopoulos, Duchi and Zrnic, "PPI++: Efficient
    prediction-powered inference", arXiv:2311.01453, 2023). The ratio's interval uses the
    delta method on ``u = (y - theta r) - lam (f - theta g)``; with ``finite=True`` the
    per-stratum variance is that of the difference (regression) estimator under simple random
    sampling without replacement (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 7).
    """
    if not strata:
        raise ValueError("`strata` must contain at least one stratum.")
    z = _z(alpha)
    if lam is None:
        pilot = _point(strata, [1.0] * len(strata))
        lams = [_tuned(s, pilot, finite) for s in strata]
    else:
        if not (math.isfinite(lam) and 0.0 <= lam <= 1.0):
            raise ValueError(f"`lam` must lie in [0, 1] or be None; got {lam!r}.")
        lams = [float(lam)] * len(strata)
    theta = _point(strata, lams)
    if math.isnan(theta):
        return PPIEstimate(math.nan, math.nan, math.nan, math.nan, tuple(lams))
    se = math.sqrt(_variance(strata, lams, theta, finite))
    return PPIEstimate(theta, se, theta - z * se, theta + z * se, tuple(lams))


Drawn = tuple[FloatArray, FloatArray, FloatArray, FloatArray]
"""One stratum's resampled labelled arrays (y, r, f, g), each (resamples, units)."""

BLOCK = 128
"""Resamples computed at once by :func:`resampled_points` (bounds its memory)."""


def resampled_points(
    strata: Sequence[RatioStratum],
    resamples: Sequence[ArrayLike],
    *,
    lam: float | None = None,
) -> FloatArray:
    """The point of :func:`stratified_ppi` (``finite=True``) on each bootstrap resample of the
    labelled units, the unlabelled sets held fixed.

    ``resamples`` holds one index matrix (R, m_h) per stratum, rows the resamples, values
    positions in that stratum's labelled arrays (``y``, ``r``, ``f``, ``g``); resample ``b`` is
    the estimate on the strata whose labelled arrays are ``y[resamples[h][b]]`` (and so on) and
    whose ``f_pool``, ``g_pool`` and ``weight`` are the data's. With ``lam=None`` the PPI++
    weights are tuned again on every resample (pilot ``lam = 1``, as :func:`stratified_ppi`).
    The same operations as :func:`stratified_ppi`, batched over resamples; NaN where the
    denominator is not positive. Returns (R,).
    """
    if not strata or len(resamples) != len(strata):
        raise ValueError("`resamples` must hold one index matrix per stratum, at least one.")
    if lam is not None and not (math.isfinite(lam) and 0.0 <= lam <= 1.0):
        raise ValueError(f"`lam` must lie in [0, 1] or be None; got {lam!r}.")
    index = [np.asarray(i, dtype=np.intp) for i in resamples]
    n_rep = index[0].shape[0] if index[0].ndim == 2 else -1
    for s, i in zip(strata, index, strict=True):
        if i.ndim != 2 or i.shape[0] != n_rep or min(i.shape) < 1:
            raise ValueError("every index matrix must have shape (R, m), the same R >= 1, m >= 1.")
        if i.min() < 0 or i.max() >= len(s.y):
            raise ValueError("an index lies outside its stratum's labelled units.")
    out = np.empty(n_rep, dtype=np.float64)
    for start in range(0, n_rep, BLOCK):
        rows = slice(start, start + BLOCK)
        drawn: list[Drawn] = [
            (s.y[i[rows]], s.r[i[rows]], s.f[i[rows]], s.g[i[rows]])
            for s, i in zip(strata, index, strict=True)
        ]
        size = min(BLOCK, n_rep - start)
        if lam is None:
            pilot = _points(strata, drawn, [np.ones(size)] * len(strata))
            lams = [_tuned_rows(*d, pilot) for d in drawn]
        else:
            lams = [np.full(size, float(lam))] * len(strata)
        out[rows] = _points(strata, drawn, lams)
    return out


def _points(
    strata: Sequence[RatioStratum], drawn: Sequence[Drawn], lams: Sequence[FloatArray]
) -> FloatArray:
    """:func:`_point` per row of the resampled labelled arrays ``drawn`` (y, r, f, g)."""
    num: FloatArray | float = 0.0
    den: FloatArray | float = 0.0
    for s, (y, r, f, g), lh in zip(strata, drawn, lams, strict=True):
        num = num + s.weight * (lh * s.f_pool.mean() + (y - lh[:, None] * f).mean(axis=-1))
        den = den + s.weight * (lh * s.g_pool.mean() + (r - lh[:, None] * g).mean(axis=-1))
    d = np.asarray(den, dtype=np.float64)
    out = np.full(d.shape, np.nan)
    np.divide(num, d, out=out, where=d > 0)
    return out


def _tuned_rows(
    y: FloatArray, r: FloatArray, f: FloatArray, g: FloatArray, theta: FloatArray
) -> FloatArray:
    """:func:`_tuned` (finite population) per row: ``cov(v, w) / var(w)`` clipped to [0, 1],
    0 where ``var(w)`` is 0; NaN where ``theta`` is."""
    v = y - theta[:, None] * r
    w = f - theta[:, None] * g
    cov = np.mean(
        (v - v.mean(axis=-1, keepdims=True)) * (w - w.mean(axis=-1, keepdims=True)), axis=-1
    )
    var = np.var(w, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tuned = np.clip(cov / var, 0.0, 1.0)
    out: FloatArray = np.where(var <= 0, 0.0, tuned)
    return out


def ppi_mean(
    y: ArrayLike,
    yhat: ArrayLike,
    yhat_unlabelled: ArrayLike,
    *,
    lam: float | None = None,
    alpha: float = 0.05,
) -> PPIEstimate:
    """Unstratified PPI (``lam=1``), classical (``lam=0``) or PPI++ (``lam=None``) mean of
    ``y`` (n,) from predictions ``yhat`` (n,) and ``yhat_unlabelled`` (N,) on an independent
    unlabelled sample, with the superpopulation CLT interval (the estimator of
    ``ppi_py.ppi_mean_ci``; see :func:`stratified_ppi` for the references)."""
    stratum = RatioStratum.make(y, yhat, yhat_unlabelled)
    return stratified_ppi([stratum], lam=lam, finite=False, alpha=alpha)


def plug_in_ratio(f: ArrayLike, g: ArrayLike | None = None, *, alpha: float = 0.05) -> PPIEstimate:
    """``sum(f) / sum(g)`` over (units,) predictions alone, with the naive Wald interval that
    treats the units as an independent sample (delta method). It measures only the size of
    the set, never the predictor's bias; shown for contrast, never as the answer."""
    f_ = _vector(f, "f")
    g_ = np.ones_like(f_) if g is None else _vector(g, "g")
    if len(f_) != len(g_) or len(f_) < 2:
        raise ValueError("`f` and `g` must have the same length, at least 2.")
    z = _z(alpha)
    den = float(g_.mean())
    if den <= 0:
        return PPIEstimate(math.nan, math.nan, math.nan, math.nan, (1.0,))
    theta = float(f_.mean()) / den
    se = math.sqrt(float(np.var(f_ - theta * g_, ddof=1)) / len(f_)) / den
    return PPIEstimate(theta, se, theta - z * se, theta + z * se, (1.0,))
