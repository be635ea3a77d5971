"""``medqade review-queue``: the answers to review, as a CSV, Label Studio tasks and its
labeling config (the queue is medqade.labelstudio.review_queue's)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from medqade.cli import main


def test_review_queue_writes_three_files_and_counts_them(
    sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "q.csv"
    assert main(["review-queue", "--data", str(sample_dir), "--out", str(out)]) == 0
    tasks, config = tmp_path / "q.tasks.json", tmp_path / "q.config.xml"
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    printed = capsys.readouterr().err  # the report goes to stderr
    assert printed == f"{len(rows)} answers (judge-vs-panel) -> {out}, {tasks}, {config}\n"
    assert len(json.loads(tasks.read_text(encoding="utf-8"))) == len(rows)
    assert config.read_text(encoding="utf-8").lstrip().startswith("<View")


def test_review_queue_refuses_an_unknown_judge(
    sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["review-queue", "--data", str(sample_dir), "--out", str(tmp_path / "q.csv")]
    assert main([*argv, "--judge", "no-such-judge"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("medqade review-queue:") and "no-such-judge" in err
    assert not (tmp_path / "q.csv").exists()
