"""Fixtures for the command tests: the tiny sample release, built once per session, and a
writer of small input files."""

from __future__ import annotations

from collections.abc import Callable
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
