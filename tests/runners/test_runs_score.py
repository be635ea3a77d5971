"""What the runners write is a valid submission: ``medqade score`` accepts and scores it."""

from __future__ import annotations

from pathlib import Path

import pytest

from servers.stub_server import StubServer

from .helpers import cli, score_json


def test_judge_output_is_scored(
    stub: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "judge.jsonl"
    assert cli("judge", stub, out) == 0
    record = score_json(out, "judge", capsys)
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
    record = score_json(out, "answers", capsys)
    assert record["kind"] == "answers"
    accuracy = record["accuracy"]
    assert isinstance(accuracy, dict)
    assert accuracy["lower"] <= accuracy["upper"]
