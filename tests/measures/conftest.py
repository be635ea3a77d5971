"""Fixtures for the measures tests: the session-wide full synthetic release.

The release is ``synthetic_build`` of ``tests/conftest.py``, built once per session.
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade.consensus import majority_of_codes
from medqade.dataset.release import Release, load_release
from medqade.measures.seeds import question_weights

RESAMPLES = 60
"""Question resamples for the replicate-by-replicate checks (small: every check loops)."""

TOL = 1e-12
CHECKED = (0, 17, RESAMPLES - 1)
"""Replicates recomputed by the loops (each costs 50+ scikit-learn calls)."""


@pytest.fixture(scope="session")
def full_dir(synthetic_build: Path) -> Path:
    """The shared built 3,800-item synthetic release (read it; never modify it)."""
    return synthetic_build


@pytest.fixture(scope="session")
def full(full_dir: Path) -> Release:
    return load_release(full_dir)


# --- loops the agreement tests compare against --------------------------------------------


def kappa_pa(a: np.ndarray, b: np.ndarray, counts: np.ndarray | None = None) -> tuple[float, float]:
    """scikit-learn kappa and PA of two code vectors on the answers both rated 0/1; with
    ``counts`` the items are first repeated by their bootstrap counts."""
    if counts is not None:
        idx = np.repeat(np.arange(a.shape[0]), counts)
        a, b = a[idx], b[idx]
    ok = np.isin(a, (0, 1)) & np.isin(b, (0, 1))
    x, y = a[ok], b[ok]
    pa = float(np.mean(x == y)) if x.size else math.nan
    if x.size < 2:
        return math.nan, pa
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = float(cohen_kappa_score(x, y, labels=[0, 1], replace_undefined_by=np.nan))
    return k, pa


def nanmean(values: list[float]) -> float:
    x = np.asarray(values, dtype=np.float64)
    return float(x[~np.isnan(x)].mean()) if (~np.isnan(x)).any() else math.nan


def close(a: float, b: float, tol: float = TOL) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol


def loo_loop(
    labels: np.ndarray, counts: np.ndarray | None = None
) -> tuple[float, float, list[float], list[float]]:
    """Macro kappa, macro PA and per-slot kappa and PA of the leave-one-out reference."""
    n_phys, _, n_slots = labels.shape
    per_k = np.full((n_phys, n_slots), np.nan)
    per_p = np.full((n_phys, n_slots), np.nan)
    for p in range(n_phys):
        reference = majority_of_codes(np.delete(labels, p, axis=0), axis=0)
        for s in range(n_slots):
            per_k[p, s], per_p[p, s] = kappa_pa(labels[p, :, s], reference[:, s], counts)
    macro_k = nanmean([nanmean(list(row)) for row in per_k])
    macro_p = nanmean([nanmean(list(row)) for row in per_p])
    slot_k = [nanmean(list(per_k[:, s])) for s in range(n_slots)]
    slot_p = [nanmean(list(per_p[:, s])) for s in range(n_slots)]
    return macro_k, macro_p, slot_k, slot_p


@pytest.fixture(scope="module")
def core_labels(full: Release) -> np.ndarray:
    return full.physician_labels[:, full.is_core]


@pytest.fixture(scope="module")
def core_weights(core_labels: np.ndarray) -> np.ndarray:
    return question_weights(core_labels.shape[1], RESAMPLES, seed=5)


# --- loops the ranking tests compare against ------------------------------------------------


def loop_se(reps: np.ndarray, i: int, j: int) -> float:
    both = ~np.isnan(reps[i]) & ~np.isnan(reps[j])
    if both.sum() < 2:
        return math.nan
    return float(np.std(reps[i, both] - reps[j, both], ddof=1))


def loop_critical(est: np.ndarray, reps: np.ndarray, level: float = 0.95) -> float:
    """Studentized max-T, one pair at a time: per resample the largest
    |(rep_i - rep_j) - d_ij| / se_ij over the pairs defined in it (pairs with se <= 1e-12 or
    fewer than two common resamples left out), and its quantile."""
    k, r = reps.shape
    stat = [-math.inf] * r
    for i, j in itertools.combinations(range(k), 2):
        se = loop_se(reps, i, j)
        if not se > 1e-12:
            continue
        for b in range(r):
            x = reps[i, b] - reps[j, b]
            if not math.isnan(x):
                stat[b] = max(stat[b], abs(x - (est[i] - est[j])) / se)
    kept = [s for s in stat if s > -math.inf]
    return float(np.quantile(kept, level)) if kept else math.nan


def paired_board(seed: int, n: int = 12, r: int = 300, spread: float = 0.15) -> tuple:
    """Paired rows (a shared resample effect) whose own spread differs from row to row."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.5 - spread, 0.5 + spread, size=n)
    shared = rng.normal(0.0, 0.05, size=r)
    own = rng.uniform(0.005, 0.04, size=(n, 1))
    reps = centres[:, None] + shared[None, :] + own * rng.normal(0.0, 1.0, size=(n, r))
    est = centres + rng.normal(0.0, 0.005, size=n)
    return est, reps
