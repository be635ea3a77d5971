"""What the runners write is a valid submission: ``medqade score`` accepts and scores it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.runners.stub_server import StubServer

from .helpers import DATA, cli


def _score(path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["score", str(path), "--data", str(DATA), "--kind", kind, "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_judge_output_is_scored(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "judge.jsonl"
    assert cli("judge", stub, out) == 0
    record = _score(out, "judge", capsys)
    assert record["kind"] == "judge"
    core = record["core"]
    assert isinstance(core, dict) and core["n"] > 0
    assert 0.0 <= core["pa"] <= 1.0


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_answer_output_is_scored(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    out = tmp_path / f"answers{suffix}"
    assert cli("answer", stub, out) == 0
    record = _score(out, "answers", capsys)
    assert record["kind"] == "answers"
    accuracy = record["accuracy"]
    assert isinstance(accuracy, dict)
    assert accuracy["lower"] <= accuracy["upper"]
