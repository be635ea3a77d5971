"""Fixtures for the analysis tests: one full synthetic release per session, and its report."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from medqade.analyses.report import Report, reproduce
from medqade.dataset.release import Release, load_release

RESAMPLES = 100
CONTRAST_RESAMPLES = 200
SEED = 7


@pytest.fixture(scope="session")
def release_dir(synthetic_build: Path) -> Path:
    """The shared built 3,800-item synthetic release (read it; never modify it)."""
    return synthetic_build


@pytest.fixture(scope="session")
def release(release_dir: Path) -> Release:
    return load_release(release_dir)


@pytest.fixture(scope="session")
def report(release: Release) -> Report:
    return reproduce(release, resamples=RESAMPLES, seed=SEED, contrast_resamples=CONTRAST_RESAMPLES)


@pytest.fixture(scope="session")
def core_indices(release: Release) -> np.ndarray:
    """An explicit index matrix (6, core items) for replicate-by-replicate checks."""
    rng = np.random.default_rng(99)
    n = int(release.is_core.sum())
    return rng.integers(0, n, size=(6, n))
