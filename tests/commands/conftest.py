"""Fixtures for the command tests: the tiny sample release, built once per session, and a
writer of small input files."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.dataset.build import build
from medqade.dataset.release import Release, load_release

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("commands-sample") / "build"
    build(SAMPLE, out)
    return out


@pytest.fixture(scope="session")
def sample(sample_dir: Path) -> Release:
    return load_release(sample_dir)
