"""Random rating data and resampling helpers shared by the statistics tests."""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from sklearn.metrics import cohen_kappa_score

from medqade.stats import MISSING


def random_ratings(
    seed: int,
    raters: int = 10,
    units: int = 200,
    k: int = 2,
    accuracy: float = 0.75,
    missing: float = 0.2,
) -> NDArray[np.int64]:
    """Codes of shape (raters, units): each rater copies a latent truth with prob. `accuracy`,
    otherwise draws a random category; a share `missing` of the cells is then MISSING."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, size=units)
    noise = rng.integers(0, k, size=(raters, units))
    ratings = np.where(rng.random((raters, units)) < accuracy, truth, noise)
    ratings[rng.random((raters, units)) < missing] = MISSING
    return ratings.astype(np.int64)


def bootstrap_setup(
    seed: int, units: int, n_resamples: int = 20
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """An index matrix (R, units) and its count weights."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, units, size=(n_resamples, units))
    weights = np.stack([np.bincount(row, minlength=units) for row in idx])
    return idx, weights


def table_to_ratings(table: list[list[int]]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Two rating vectors whose confusion table is `table` (rows: first rater)."""
    counts = np.asarray(table)
    k = counts.shape[0]
    first = np.repeat(np.repeat(np.arange(k), k), counts.ravel())
    second = np.repeat(np.tile(np.arange(k), k), counts.ravel())
    return first, second


def sklearn_kappa(a: np.ndarray, b: np.ndarray) -> float:
    keep = (a != MISSING) & (b != MISSING)
    if not keep.any():
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(cohen_kappa_score(a[keep], b[keep], replace_undefined_by=np.nan))


def plain_pa(a: np.ndarray, b: np.ndarray) -> float:
    keep = (a != MISSING) & (b != MISSING)
    return float(np.mean(a[keep] == b[keep])) if keep.any() else float("nan")
