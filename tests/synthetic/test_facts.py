"""The hand-written facts behind the synthetic release (:mod:`medqade.synthetic.facts`):
the shipped file reads, and a malformed fact is refused naming its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.synthetic.facts import GAP, default_facts_path, load_facts

FACT = {
    "fact_id": "F-002",
    "specialty": "Anatomie",
    "reference": "Femur",
    "phrasings": [f"Der längste Knochen ist der {GAP}."] * 5,
    "equivalent": ["Oberschenkelknochen"],
    "vague": ["ein Knochen"],
    "wrong": ["Tibia", "Humerus"],
}


def test_the_shipped_facts_read_sorted_with_one_gap_per_phrasing() -> None:
    facts = load_facts()
    assert default_facts_path().is_file() and len(facts) > 10
    ids = [f.fact_id for f in facts]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(q.count(GAP) == 1 for f in facts for q in f.phrasings)
    assert all(len(f.wrong) >= 2 and f.vague for f in facts)


def test_a_folder_of_files_reads_sorted_by_id(tmp_path: Path) -> None:
    (tmp_path / "b.jsonl").write_text(json.dumps(FACT) + "\n\n", encoding="utf-8")
    first = {**FACT, "fact_id": "F-001", "reference": "Tibia", "wrong": ["Femur", "Ulna"]}
    (tmp_path / "a.jsonl").write_text(json.dumps(first) + "\n", encoding="utf-8")
    facts = load_facts(tmp_path)
    assert [(f.fact_id, f.reference) for f in facts] == [("F-001", "Tibia"), ("F-002", "Femur")]
    assert facts[1].wrong == ("Tibia", "Humerus")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "f.jsonl, line 1: not a valid fact"),
        (json.dumps({k: v for k, v in FACT.items() if k != "reference"}), "not a valid fact"),
        (json.dumps({**FACT, "phrasings": ["ohne Lücke"]}), f"needs one {GAP} per phrasing"),
        (json.dumps({**FACT, "wrong": ["Tibia"]}), "at least 2 wrong and 1 vague variant"),
        (json.dumps({**FACT, "vague": []}), "at least 2 wrong and 1 vague variant"),
    ],
)
def test_a_malformed_fact_is_refused(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_facts(path)
