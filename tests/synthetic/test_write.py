"""Writing the synthetic raw release (:mod:`medqade.synthetic.write`): every table, marked as
synthetic, replaced only when it is an earlier one, and the fingerprint a cached build keys on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from medqade.files.atomic import OutputRefused
from medqade.synthetic.facts import default_facts_path
from medqade.synthetic.write import fingerprint, synthesize


def test_the_tables_are_written_and_marked_synthetic(tmp_path: Path) -> None:
    out = synthesize(tmp_path / "raw", seed=2, pool=False)
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert {"questions.csv", "answers.csv", "ratings.csv", "difficulty.csv"} <= names
    assert {"judgments.jsonl", "roster.json", "SYNTHETIC.txt"} <= names
    assert json.loads((out / "roster.json").read_text(encoding="utf-8"))["synthetic"] is True
    assert "Not physician data" in (out / "SYNTHETIC.txt").read_text(encoding="utf-8")
    again = synthesize(out, seed=3, pool=False)  # an earlier synthetic release: replaced
    assert "--seed 3" in (again / "SYNTHETIC.txt").read_text(encoding="utf-8")


def test_other_folders_and_the_facts_file_are_never_overwritten(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(OutputRefused):
        synthesize(mine, pool=False)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    facts = tmp_path / "facts"
    facts.mkdir()
    shutil.copy(default_facts_path(), facts / "facts.jsonl")
    with pytest.raises(OutputRefused):
        synthesize(facts, facts_path=facts / "facts.jsonl", pool=False)


def test_the_fingerprint_follows_the_facts(tmp_path: Path) -> None:
    assert fingerprint() == fingerprint(default_facts_path())
    other = tmp_path / "facts.jsonl"
    other.write_bytes(default_facts_path().read_bytes() + b"\n")
    assert fingerprint(other) != fingerprint() and len(fingerprint()) == 64
