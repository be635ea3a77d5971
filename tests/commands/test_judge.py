"""``medqade judge``: its options turned into a run (the run itself is
medqade.runners'; tests/runners). A dry run shows the first request and sends nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "sample"


def _dry(capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str) -> tuple[int, str]:
    argv = ["judge", "--model", "m", "--dry-run", "--data", str(DATA)]
    code = main([*argv, "--out", str(tmp_path / "out.jsonl"), *extra])
    return code, capsys.readouterr().out


def test_judge_dry_run_shows_the_first_request_and_sends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _dry(capsys, tmp_path, "--limit", "2", "--temperature", "0.3", "--base-url",
                     "http://127.0.0.1:9/v1")  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "dry run: 2 item(s) would be sent to http://127.0.0.1:9/v1; nothing was sent."
    )
    assert lines[1] == "first item: S-C01"
    assert lines.index("--- system ---") < lines.index("--- user ---")
    params = json.loads(out.split("--- request parameters ---\n", 1)[1])
    assert params["model"] == "m" and params["temperature"] == 0.3
    assert params["response_format"]["json_schema"]["name"] == "medqade_judgment"
    assert not (tmp_path / "out.jsonl").exists()


def test_judge_response_format_none_sends_no_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _dry(capsys, tmp_path, "--limit", "1", "--response-format", "none")
    assert code == 0
    params = json.loads(out.split("--- request parameters ---\n", 1)[1])
    assert "response_format" not in params


def test_judge_refuses_a_bad_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["judge", "--model", "m", "--dry-run", "--data", str(DATA)]
    assert main([*argv, "--out", str(tmp_path / "o.jsonl"), "--limit", "0"]) == 2
    assert "--limit" in capsys.readouterr().err
