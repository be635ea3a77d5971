"""Fixtures for the measures tests: the session-wide full synthetic release.

The release is ``synthetic_build`` of ``tests/conftest.py``, built once per session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.dataset.release import Release, load_release

RESAMPLES = 60
"""Question resamples for the replicate-by-replicate checks (small: every check loops)."""


@pytest.fixture(scope="session")
def full_dir(synthetic_build: Path) -> Path:
    """The shared built 3,800-item synthetic release (read it; never modify it)."""
    return synthetic_build


@pytest.fixture(scope="session")
def full(full_dir: Path) -> Release:
    return load_release(full_dir)
