"""The project's hand-written German cloze facts that back the synthetic release."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

GAP = "___"


@dataclass(frozen=True)
class Fact:
    """One clinical fact: five phrasings with a gap, the reference answer and typed variants."""

    fact_id: str
    specialty: str
    reference: str
    phrasings: tuple[str, ...]
    equivalent: tuple[str, ...]
    vague: tuple[str, ...]
    wrong: tuple[str, ...]


def default_facts_path() -> Path:
    """``data/synthetic/facts.jsonl``, shipped inside the package."""
    return Path(str(files("medqade").joinpath("data/facts.jsonl")))


def load_facts(path: Path | None = None) -> tuple[Fact, ...]:
    """Read facts from a JSONL file (or every ``*.jsonl`` in a folder), sorted by id."""
    path = default_facts_path() if path is None else Path(path)
    paths = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    facts = []
    for p in paths:
        for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                fact = Fact(
                    fact_id=d["fact_id"],
                    specialty=d["specialty"],
                    reference=d["reference"],
                    phrasings=tuple(d["phrasings"]),
                    equivalent=tuple(d["equivalent"]),
                    vague=tuple(d["vague"]),
                    wrong=tuple(d["wrong"]),
                )
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{p.name}, line {lineno}: not a valid fact ({exc})") from None
            if (
                any(q.count(GAP) != 1 for q in fact.phrasings)
                or len(fact.wrong) < 2
                or not fact.vague
            ):
                raise ValueError(
                    f"{p.name}, line {lineno}: fact {fact.fact_id} needs one {GAP} per phrasing, "
                    "at least 2 wrong and 1 vague variant"
                )
            facts.append(fact)
    return tuple(sorted(facts, key=lambda f: f.fact_id))
