"""``medqade rescore``: the stored uploads of another release's records scored again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main

ANSWERS = "question_id,answer\nS-C01,Femur\nS-C02,Aspirin\nS-E01,N. medianus\n"


def test_nothing_to_do_when_every_record_is_of_this_release(
    sample_dir: Path, write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    path = write("a.csv", ANSWERS)
    argv = ["score", str(path), "--data", str(sample_dir), "--resamples", "0"]
    assert main([*argv, "--results", str(results)]) == 0
    capsys.readouterr()
    assert main(["rescore", "--data", str(sample_dir), "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert out == "every stored record was scored on this release; nothing to do\n"


def test_a_record_of_another_release_is_listed_then_scored_again(
    sample_dir: Path, write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    path = write("a.csv", ANSWERS)
    argv = ["score", str(path), "--data", str(sample_dir), "--resamples", "0"]
    assert main([*argv, "--results", str(results)]) == 0
    capsys.readouterr()
    (stored,) = (results / "records").glob("*.json")
    record = json.loads(stored.read_text(encoding="utf-8"))
    record["dataset"]["hash"] = "another-release"
    stored.write_text(json.dumps(record), encoding="utf-8")
    base = ["rescore", "--data", str(sample_dir), "--results", str(results)]
    assert main([*base, "--dry-run"]) == 0
    assert f"{record['id'][:16]}: would be scored again" in capsys.readouterr().out
    assert len(list((results / "records").glob("*.json"))) == 1
    assert main([*base, "--resamples", "1"]) == 0
    assert f"{record['id'][:16]}: scored again as record" in capsys.readouterr().out
    assert len(list((results / "records").glob("*.json"))) == 2


def test_rescore_needs_a_results_folder(
    sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none"
    assert main(["rescore", "--data", str(sample_dir), "--results", str(missing)]) == 2
    assert "no such results folder" in capsys.readouterr().err
