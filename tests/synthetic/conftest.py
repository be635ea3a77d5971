"""The full synthetic release (default seed), synthesized and built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.build import build
from medqade.release import DEFAULT_SEED, Release, load_release
from medqade.synthetic import synthesize


@pytest.fixture(scope="session")
def synthetic_raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    raw = tmp_path_factory.mktemp("synthetic") / "raw"
    synthesize(raw, seed=DEFAULT_SEED)
    return raw


@pytest.fixture(scope="session")
def synthetic_build(synthetic_raw: Path) -> Path:
    out = synthetic_raw.parent / "build"
    build(synthetic_raw, out)
    return out


@pytest.fixture(scope="session")
def synthetic(synthetic_build: Path) -> Release:
    return load_release(synthetic_build)
