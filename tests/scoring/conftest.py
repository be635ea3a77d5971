"""Fixtures for the scoring tests: a full synthetic release and the tiny sample release.

The full release is the session-wide ``synthetic_build`` of ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.dataset.build import build
from medqade.dataset.release import Release, load_release

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
RESAMPLES = 200


@pytest.fixture(scope="session")
def full_dir(synthetic_build: Path) -> Path:
    """The shared built 3,800-item synthetic release (read it; never modify it)."""
    return synthetic_build


@pytest.fixture(scope="session")
def full_raw(full_dir: Path) -> Path:
    """The raw release the full build was made from."""
    return full_dir.parent / "raw"


@pytest.fixture(scope="session")
def full(full_dir: Path) -> Release:
    return load_release(full_dir)


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scoring-sample") / "build"
    build(SAMPLE, out)
    return out


@pytest.fixture(scope="session")
def sample(sample_dir: Path) -> Release:
    return load_release(sample_dir)


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write text (UTF-8) or bytes to ``tmp_path/name`` and return the path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
        return path

    return _write
