"""``medqade judge/answer --split pool``: the runners over the whole pool (stub server)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.dataset.build import build
from servers.stub_server import StubServer

from .helpers import check_judgments, read_jsonl

POOL_IDS = ["S-C01", "S-C02", "S-E01", "S-E02", "S-E03", "S-E04", "P-0", "P-1"]


@pytest.fixture
def pool_build(pool_sample: Callable[..., Path], tmp_path: Path) -> Path:
    out = tmp_path / "built"
    build(pool_sample(), out)
    return out


def _run(command: str, stub: StubServer, data: Path, out: Path, *extra: str) -> int:
    argv = [command, "--model", "stub-model", "--base-url", stub.base_url, "--data", str(data)]
    argv += ["--split", "pool", "--out", str(out), "--no-progress"]
    return main([*argv, *extra])


def test_pool_inputs_judge_runs_over_every_pool_item_and_resumes(
    stub: StubServer, pool_build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pool.jsonl"
    assert _run("judge", stub, pool_build, out) == 0
    rows = check_judgments(out, POOL_IDS)
    assert stub.n_requests == 8
    new_item = next(b for b in stub.requests if "Frage 1 ___." in json.dumps(b, ensure_ascii=False))
    assert "Humerus" in json.dumps(new_item, ensure_ascii=False)  # the pool's answers are shown
    stub.reset()
    assert _run("judge", stub, pool_build, out) == 0
    assert stub.n_requests == 0 and read_jsonl(out) == rows
    capsys.readouterr()
    # the runner's output is a valid LABELS argument of pool-estimate
    assert main(["pool-estimate", str(out), "--data", str(pool_build), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["judge"] == "stub-model"


def test_pool_inputs_limit_takes_the_first_items(
    stub: StubServer, pool_build: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pool.jsonl"
    assert _run("judge", stub, pool_build, out, "--limit", "3") == 0
    check_judgments(out, POOL_IDS[:3])


def test_pool_inputs_answer_asks_every_pool_question(
    stub: StubServer, pool_build: Path, tmp_path: Path
) -> None:
    out = tmp_path / "answers.jsonl"
    assert _run("answer", stub, pool_build, out) == 0
    assert stub.n_requests == 8


def test_pool_inputs_without_pool_is_one_line(
    stub: StubServer, built_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("judge", stub, built_sample, tmp_path / "x.jsonl") == 2
    assert "this release has no pool" in capsys.readouterr().err
    assert stub.n_requests == 0
