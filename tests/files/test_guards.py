"""Tests of medqade.files.guards: what makes a folder a build or a raw release, and the special
files no command writes to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.files import guards

ANSWERS = "question_id,answer\nS-C01,Femur\nS-C02,Aspirin\nS-E01,N. medianus\n"


def test_a_lone_answers_csv_is_a_submission_not_a_raw_release(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder holding the user's answers.csv (the natural name of a model's answers) was
    taken for a raw release: score --out score.json beside it, and a Space whose results
    folder lies beside it, were refused."""
    from medqade.app.config import SpaceConfig

    sub = tmp_path / "answers.csv"
    sub.write_text(ANSWERS, encoding="utf-8")
    assert guards.guarded(tmp_path) is None
    out = tmp_path / "score.json"
    assert main(["score", str(sub), "--data", str(built_sample), "--out", str(out)]) == 0
    assert out.is_file() and sub.read_text(encoding="utf-8") == ANSWERS
    SpaceConfig(results_dir=tmp_path / "results")
    (tmp_path / "ratings.csv").write_text("question_id\n", encoding="utf-8")
    assert guards.guarded(tmp_path) == "a raw release"  # answers beside another raw table


@pytest.mark.parametrize("ext", guards.RAW_FORMATS)
def test_guarded_names_a_build_and_a_raw_release_in_any_table_format(
    tmp_path: Path, ext: str
) -> None:
    build = tmp_path / "build"
    build.mkdir()
    (build / guards.BUILD_MANIFEST).write_text("{}", encoding="utf-8")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / f"questions{ext}").write_text("", encoding="utf-8")
    assert guards.guarded(build) == "a MedQADE build"
    assert guards.guarded(raw) == "a raw release"
    assert guards.guarded(tmp_path) is None


def test_guarded_within_and_above_find_the_nearest_guarded_folder(tmp_path: Path) -> None:
    build = tmp_path / "build"
    (build / "data" / "deep").mkdir(parents=True)
    (build / guards.BUILD_MANIFEST).write_text("{}", encoding="utf-8")
    inside = build / "data" / "deep" / "x.json"
    assert guards.guarded_within(inside) == (build.resolve(), "a MedQADE build")
    assert guards.guarded_within(build) == (build.resolve(), "a MedQADE build")
    assert guards.guarded_above(inside) == (build, "a MedQADE build")
    assert guards.guarded_above(build) is None
    assert guards.guarded_within(tmp_path / "elsewhere.json") is None


def test_special_file_and_file_above(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    plain = tmp_path / "notes.txt"
    plain.write_text("x", encoding="utf-8")
    assert guards.special_file(fifo) == "a named pipe (FIFO)"
    assert guards.special_file(plain) is None
    assert guards.special_file(tmp_path / "missing") is None
    assert guards.file_above(plain / "a" / "b.json") == plain
    assert guards.file_above(tmp_path / "new" / "b.json") is None


def test_guarded_names_a_private_part(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    (private / guards.PRIVATE_MANIFEST).write_text("{}", encoding="utf-8")
    assert guards.guarded(private) == "a MedQADE private part"
    assert guards.guarded_above(private / "x") == (private, "a MedQADE private part")
