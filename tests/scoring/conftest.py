"""Fixtures for the scoring tests: a full synthetic release and the tiny sample release.

The full release is synthesized and built once per session (about 5 s) from
``data/synthetic/facts.jsonl`` when the project has it, else from dummy facts written here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.build import build
from medqade.release import Release, load_release
from medqade.synthetic import synthesize

ROOT = Path(__file__).resolve().parents[2]
FACTS = ROOT / "data" / "synthetic" / "facts.jsonl"
SAMPLE = ROOT / "data" / "sample"
SEED = 11
RESAMPLES = 200
SPECIALTIES = ("Innere Medizin", "Chirurgie", "Anatomie", "Pharmakologie", "Neurologie")


def write_dummy_facts(folder: Path, n: int = 900) -> Path:
    """``n`` facts with five phrasings, 0-1 equivalents, one vague and two wrong variants."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        lines.append(
            json.dumps(
                {
                    "fact_id": f"d-{i:03d}",
                    "specialty": SPECIALTIES[i % len(SPECIALTIES)],
                    "reference": f"Antwort {i}",
                    "phrasings": [f"Frage {i} Variante {k}: ___ ist gesucht." for k in range(5)],
                    "equivalent": [] if i % 10 == 0 else [f"Synonym {i}"],
                    "vague": [f"Vage {i}"],
                    "wrong": [f"Falsch {i}a", f"Falsch {i}b"],
                },
                ensure_ascii=False,
            )
        )
    (folder / "dummy.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def full_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A built 3,800-item synthetic release (read it; never modify it)."""
    base = tmp_path_factory.mktemp("scoring-full")
    facts = FACTS if FACTS.exists() else write_dummy_facts(base / "facts")
    raw = synthesize(base / "raw", seed=SEED, facts_path=facts)
    out = base / "build"
    build(raw, out)
    return out


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
