"""``medqade judge`` and ``answer`` (on Inspect) against a real OpenAI-compatible server
(llama-cpp-python, SmolLM2-135M).

The server is installed by ``scripts/install_llama_server.sh`` (``.ci/run`` calls it) into
``.venv-server/`` or named by ``$MEDQADE_LLAMA_SERVER_PYTHON``; without it these tests skip
and say why. One server (the ``server`` fixture of conftest.py) is started per test process
on a free port and stopped at the end.
The model is tiny: the tests check that the runners work with the server and that
``medqade score`` scores what they write, not the labels' quality. About a minute on two
cores (the judge takes some 6 s per question set, the student about 1 s per question).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.cli import main
from medqade.vocab import DIFFICULTIES, LABELS
from servers.llama_server import MODEL_ALIAS, LlamaServer

from .helpers import DATA, RESP, SAMPLE_IDS, SECRET, check_judgments, read_jsonl, score_json

pytestmark = pytest.mark.real_server


def _run(command: str, server: LlamaServer, out: Path, *extra: str) -> int:
    argv = [command, "--model", MODEL_ALIAS, "--base-url", server.base_url, "--data", str(DATA)]
    return main([*argv, "--out", str(out), "--no-progress", "--concurrency", "1", *extra])


def test_real_server_judge_negotiates_and_scores(
    server: LlamaServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "judge.jsonl"
    assert _run("judge", server, out) == 0
    printed = capsys.readouterr().out
    # the server refuses json_schema with HTTP 500; the run settles on its own schema form
    assert "response format: json_object with schema\n" in printed
    rows = check_judgments(out, SAMPLE_IDS)
    assert all(r[k] in LABELS for r in rows for k in RESP)  # the schema constrains the labels
    assert all(r["difficulty"] in DIFFICULTIES for r in rows)
    record = score_json(out, "judge", capsys)
    assert record["kind"] == "judge"
    submission = record["submission"]
    assert isinstance(submission, dict) and submission["rows"] == len(SAMPLE_IDS)
    assert submission["coverage"] == {"core": 1.0, "extension": 1.0, "all": 1.0}
    core = record["core"]
    assert isinstance(core, dict) and core["n"] > 0
    assert 0.0 <= core["pa"] <= 1.0 and -1.0 <= core["pabak"] <= 1.0
    # a rerun keeps every row of the earlier output, without a request
    assert _run("judge", server, out) == 0
    assert "6 kept from the earlier output" in capsys.readouterr().out


def test_real_server_answer_is_bounded_and_scores(
    server: LlamaServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "answers.jsonl"
    assert _run("answer", server, out) == 0
    printed = capsys.readouterr().out
    assert "items 6: 6 ok" in printed
    match = [line for line in printed.splitlines() if "completion)" in line]  # tokens line
    completion = int(match[0].split("+ ")[1].split(" completion")[0])
    assert completion <= 6 * 32  # the default token limit reached the server
    rows = read_jsonl(out)
    assert [r["question_id"] for r in rows] == SAMPLE_IDS
    assert all(isinstance(r["answer"], str) and r["answer"].strip() for r in rows)
    record = score_json(out, "answers", capsys)
    accuracy = record["accuracy"]
    assert isinstance(accuracy, dict) and accuracy["n_items"] == len(SAMPLE_IDS)
    assert accuracy["n_answered"] == len(SAMPLE_IDS)
    assert 0.0 <= accuracy["lower"] <= accuracy["upper"] <= 1.0


def test_real_server_wrong_model_is_refused(
    server: LlamaServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "answers.jsonl"
    argv = ["answer", "--model", "gpt-4o", "--base-url", server.base_url, "--data", str(DATA)]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"--model 'gpt-4o' is not served at {server.base_url}; it serves smollm2" in err
    assert not out.exists()


def test_real_server_wrong_key_stops_the_run(
    server: LlamaServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second server started with ``--api_key``: it answers 401 to the tests' key."""
    with LlamaServer(server.python, server.gguf, api_key="the-right-key") as guarded:
        out = tmp_path / "answers.jsonl"
        argv = ["answer", "--model", MODEL_ALIAS, "--base-url", guarded.base_url]
        assert main([*argv, "--data", str(DATA), "--out", str(out), "--no-progress"]) == 2
        err = capsys.readouterr().err
    assert f"the server refused the request at {guarded.base_url} (HTTP 401" in err
    assert SECRET not in err and not out.exists()
