"""Shared fixtures. Each group sits under its own header; add new groups below, not inside."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pytest

if TYPE_CHECKING:
    from medqade.dataset.release import Release

# Gradio keeps uploads under one folder named by content hash and the Space deletes an upload
# once it is checked: test processes (pytest-xdist workers) sharing that folder could delete
# each other's identical uploads. Each process gets its own, set before gradio is imported.
_GRADIO_TMP = tempfile.mkdtemp(prefix="medqade-gradio-")
os.environ["GRADIO_TEMP_DIR"] = _GRADIO_TMP
atexit.register(shutil.rmtree, _GRADIO_TMP, ignore_errors=True)

# --- order and markers: quick tests first, the slow ones marked --------------------------------

SLOW_FIXTURES = frozenset({"synthetic_raw", "synthetic_build", "synthetic", "full_dir", "full"})
"""Session fixtures that synthesize and build the full 3,800-item release (minutes on a loaded
2-core machine): a test that uses one, directly or through another fixture, is ``slow``."""
LAST_MARKERS = ("slow", "browser", "real_server")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that need the full synthetic release ``slow``, and run the quick tests
    first (a stable sort: otherwise in collection order), so ``pytest`` (and ``pytest -n
    auto``, whose workers would all start by building that release) shows progress from the
    start; ``pytest -m "not slow and not browser and not real_server"`` runs the quick ones."""
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: any(item.get_closest_marker(m) for m in LAST_MARKERS))


# --- hermetic caches: no test writes to the user's cache folders -----------------------------


@pytest.fixture(scope="session", autouse=True)
def _private_medqade_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Builds made on the fly (``--data`` omitted or a raw folder) go to a session tmp folder."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEDQADE_CACHE", str(tmp_path_factory.mktemp("medqade-cache")))
        yield


# --- foundation: the sample raw release and its build ---------------------------------------

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
"""The hand-written 6-item raw release (2 core, 4 extension)."""


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


@pytest.fixture
def copy_sample(tmp_path: Path) -> Callable[[], Path]:
    """Return a function that copies ``data/sample`` to a fresh folder under ``tmp_path``."""
    counter = iter(range(1_000))

    def copy() -> Path:
        target = tmp_path / f"raw{next(counter)}"
        shutil.copytree(SAMPLE, target)
        return target

    return copy


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``medqade build`` of the sample, once per session. Read it; never modify it."""
    from medqade.dataset.build import build

    out = tmp_path_factory.mktemp("built") / "sample"
    build(SAMPLE, out)
    return out


@pytest.fixture(scope="session")
def hf_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private ``datasets`` cache, so tests never write to the user's cache."""
    return tmp_path_factory.mktemp("hf-datasets-cache")


# --- the full synthetic release (default seed, the project's facts), built once per session --


@pytest.fixture(scope="session")
def synthetic_raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The raw synthetic release of the default seed (read it; never modify it)."""
    from medqade.dataset.sources import SYNTHETIC_SEED
    from medqade.synthetic import synthesize

    return synthesize(tmp_path_factory.mktemp("synthetic") / "raw", seed=SYNTHETIC_SEED)


@pytest.fixture(scope="session")
def synthetic_build(synthetic_raw: Path) -> Path:
    """The built 3,800-item synthetic release (read it; never modify it)."""
    from medqade.dataset.build import build

    out = synthetic_raw.parent / "build"
    build(synthetic_raw, out)
    return out


@pytest.fixture(scope="session")
def synthetic(synthetic_build: Path) -> Release:
    from medqade.dataset.release import load_release

    return load_release(synthetic_build)


# --- the sample with a pool (medqade.raw.pool): its six items plus two new ones -------------

POOL_STUDENTS = ["gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b"]


def _add_pool(raw: Path, *, extra_items: int = 2, judged: bool = True) -> None:
    """Pool = the sample's items plus ``extra_items`` new ones, written as CSV."""
    q = pd.read_csv(raw / "questions.csv", dtype=str)
    a = pd.read_csv(raw / "answers.csv", dtype=str)
    new = pd.DataFrame(
        {
            "question_id": [f"P-{i}" for i in range(extra_items)],
            "question": [f"Frage {i} ___." for i in range(extra_items)],
            "reference_answer": ["Femur"] * extra_items,
            "specialty": ["Anatomie"] * extra_items,
        }
    )
    pool = pd.concat([q.drop(columns=["split"]), new], ignore_index=True)
    pool.to_csv(raw / "pool.csv", index=False)
    new_answers = pd.DataFrame(
        {
            "question_id": [qid for qid in new["question_id"] for _ in POOL_STUDENTS],
            "model": POOL_STUDENTS * extra_items,
            "answer": ["Femur", "Tibia", "Tibia", "Humerus", "Knochen"] * extra_items,
        }
    )
    pd.concat([a, new_answers], ignore_index=True).to_csv(raw / "pool_answers.csv", index=False)
    if judged:
        rows = [
            {
                "evaluator": "gemini-3-flash-preview",
                "question_id": qid,
                "order": json.dumps(POOL_STUDENTS),
                **{f"resp_{k}": "Richtig" if k == 1 else "Falsch" for k in range(1, 6)},
            }
            for qid in pool["question_id"]
        ]
        pd.DataFrame(rows).to_csv(raw / "pool_judgments.csv", index=False)


@pytest.fixture
def pool_sample(copy_sample: Callable[[], Path]) -> Callable[..., Path]:
    """Return a function that copies the sample and adds pool tables (``judged``: with
    ``pool_judgments`` by one judge saying Richtig to the first student only)."""

    def make(*, judged: bool = True) -> Path:
        raw = copy_sample()
        _add_pool(raw, judged=judged)
        return raw

    return make
