"""``medqade answer``: its options turned into a run (the run itself is
medqade.runners'; tests/runners). A dry run shows the first request and sends nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "sample"


def _dry(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> tuple[int, str]:
    argv = ["answer", "--model", "m", "--dry-run", "--data", str(DATA)]
    code = main([*argv, "--out", str(tmp_path / "out.jsonl"), *extra])
    return code, capsys.readouterr().out


def test_answer_dry_run_shows_the_first_request_and_sends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _dry(capsys, tmp_path, "--limit", "3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "dry run: 3 item(s) would be sent to https://api.openai.com/v1; nothing was sent."
    )
    assert lines[1] == "first item: S-C01"
    user = out.split("--- user ---\n", 1)[1].split("\n--- request parameters ---", 1)[0]
    assert user.strip().endswith("___.")
    params = json.loads(out.split("--- request parameters ---\n", 1)[1])
    assert params == {"model": "m", "temperature": 0.0, "max_tokens": 32}
    assert not (tmp_path / "out.jsonl").exists()


def test_answer_split_chooses_the_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _dry(capsys, tmp_path, "--split", "extension")
    assert code == 0 and out.splitlines()[1] == "first item: S-E01"
    assert out.startswith("dry run: 4 item(s) would be sent")
