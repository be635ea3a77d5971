"""``medqade synthesize``: a synthetic raw release written, the same for the same seed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from medqade.cli import main


def _digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_synthesize_writes_a_raw_release_the_same_for_a_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert main(["synthesize", "--out", str(a), "--seed", "3"]) == 0
    assert main(["synthesize", "--out", str(b), "--seed", "3"]) == 0
    assert main(["synthesize", "--out", str(c), "--seed", "4"]) == 0
    first = _digest(a)
    assert {"questions.csv", "answers.csv"} <= set(first)
    assert first == _digest(b) and first != _digest(c)
    assert str(a) in capsys.readouterr().out


def test_synthesize_never_replaces_a_folder_of_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("meins", encoding="utf-8")
    assert main(["synthesize", "--out", str(out)]) == 2
    assert (out / "notes.txt").read_text(encoding="utf-8") == "meins"
    assert capsys.readouterr().err.startswith("medqade synthesize:")
