"""Tests of medqade.files.file_output: where a command may write one file, and the sidecar marker
that vouches for a file it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.cli import main
from medqade.files import atomic, file_output

ANSWERS = "question_id,answer\nS-C01,Femur\nS-C02,Aspirin\nS-E01,N. medianus\n"


def _one_line_error(err: str, command: str, path: Path) -> None:
    """An error is one line, names the user's path (no temp file), and has no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"medqade {command}: ")
    assert str(path) in lines[0]
    assert ".tmp" not in lines[0] and "Traceback" not in err


def test_a_file_where_a_folder_belongs_is_refused_before_any_work(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """score --out notes.txt/score.json (and other writers) failed only at the write."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n", encoding="utf-8")
    sub = tmp_path / "sub.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    target = blocker / "score.json"
    with pytest.raises(atomic.OutputRefused, match="is a file, not a folder"):
        file_output.check_file(target, file_output.FileOutput(kind="score record"))
    assert main(["score", str(sub), "--data", str(built_sample), "--out", str(target)]) == 2
    _one_line_error(capsys.readouterr().err, "score", blocker)
    assert blocker.read_text(encoding="utf-8") == "mine\n"


def test_check_file_refuses_an_input_a_foreign_file_and_a_raw_table(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_text("a\n", encoding="utf-8")
    output = file_output.FileOutput(kind="report", inputs=((source, "the submission"),))
    assert file_output.check_file(tmp_path / "new.json", output) == tmp_path / "new.json"
    with pytest.raises(atomic.OutputRefused, match="is the submission; a command never"):
        file_output.check_file(source, output)
    with pytest.raises(atomic.OutputRefused, match="was not written by medqade as a report"):
        file_output.check_file(source, file_output.FileOutput(kind="report"))
    assert file_output.check_file(source, file_output.FileOutput(kind="report", change=True))
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "questions.csv").write_text("question_id\n", encoding="utf-8")
    importer = file_output.FileOutput(kind="ratings table", table="ratings")
    assert file_output.check_file(raw / "ratings.csv", importer) == raw / "ratings.csv"
    with pytest.raises(atomic.OutputRefused, match="it may only import into"):
        file_output.check_file(raw / "difficulty.csv", importer)


def test_sidecar_vouches_for_the_unchanged_file_only(tmp_path: Path) -> None:
    out = tmp_path / "judgments.csv"
    planned = file_output.sidecar_planned(out, "judgments", b"a,b\n", settings={"seed": 1})
    assert [p.path for p in planned] == [out, tmp_path / ".judgments.csv.medqade.json"]
    atomic.write_files(planned)
    assert file_output.owned_by_sidecar(out, "judgments")
    assert not file_output.owned_by_sidecar(out, "answers")
    assert file_output.sidecar_settings(out, "judgments") == {"seed": 1}
    assert file_output.check_sidecar_file(out, "judgments") == out
    out.write_bytes(b"a,b\nedited\n")
    assert not file_output.owned_by_sidecar(out, "judgments")
    assert file_output.sidecar_settings(out, "judgments") is None
    with pytest.raises(atomic.OutputRefused, match="was not written by medqade"):
        file_output.check_sidecar_file(out, "judgments")


def test_first_json_line_has(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": 1, "kind": "judge"}\nnot json\n', encoding="utf-8")
    assert file_output.first_json_line_has(path, ["id", "kind"])
    assert not file_output.first_json_line_has(path, ["id", "seed"])
    assert not file_output.first_json_line_has(tmp_path / "missing", [])
