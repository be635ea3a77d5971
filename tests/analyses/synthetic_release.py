"""Build a full synthetic release (3,800 items) for the analysis tests, once per session.

The facts are the project's ``data/synthetic/facts.jsonl`` when it exists and loads with enough
phrasings; otherwise a generated dummy facts file (the analyses never read the text).
"""

from __future__ import annotations

import json
from pathlib import Path

SEED = 424242
REPO = Path(__file__).resolve().parents[2]
SPECIALTIES = ("Innere Medizin", "Chirurgie", "Anatomie", "Pharmakologie", "Neurologie")
N_ITEMS = 3800


def write_dummy_facts(path: Path, n_facts: int = 900) -> Path:
    """A JSONL facts file in the shape of ``load_facts`` (five phrasings per fact)."""
    lines = []
    for i in range(n_facts):
        lines.append(
            json.dumps(
                {
                    "fact_id": f"t-{i:04d}",
                    "specialty": SPECIALTIES[i % len(SPECIALTIES)],
                    "reference": f"Antwort {i}",
                    "phrasings": [f"Frage {i}, Fassung {k}: ___ ist gesucht." for k in range(5)],
                    "equivalent": [] if i % 7 == 0 else [f"Synonym {i}"],
                    "vague": [f"Vage {i}"],
                    "wrong": [f"Falsch {i}a", f"Falsch {i}b"],
                },
                ensure_ascii=False,
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def facts_for(base: Path) -> Path:
    from medqade.synthetic import load_facts

    project = REPO / "data" / "synthetic" / "facts.jsonl"
    if project.is_file():
        try:
            if sum(len(f.phrasings[:5]) for f in load_facts(project)) >= N_ITEMS:
                return project
        except ValueError:
            pass
    return write_dummy_facts(base / "facts" / "dummy.jsonl")


def build_release(base: Path, seed: int = SEED) -> Path:
    """Synthesize and build into ``base`` (reused when already built there)."""
    from medqade.build import build
    from medqade.release import is_build
    from medqade.synthetic import synthesize

    out = base / f"build-seed{seed}"
    if is_build(out):
        return out
    raw = synthesize(base / f"raw-seed{seed}", seed=seed, facts_path=facts_for(base))
    build(raw, out)
    return out
