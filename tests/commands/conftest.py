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


@pytest.fixture(scope="session")
def holdout_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample built with 3 of its 6 items held out: (public build, private part)."""
    from medqade.dataset.holdout import HoldOut

    root = tmp_path_factory.mktemp("commands-holdout")
    build(SAMPLE, root / "pub", hold_out=HoldOut(3, 7), private_out=root / "priv")
    return root / "pub", root / "priv"
