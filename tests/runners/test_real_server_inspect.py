"""Both Inspect tasks against the real llama-cpp-python server (SmolLM2-135M), through
Inspect's OpenAI-compatible provider, and their logs scored with ``medqade score``.

The server comes from ``scripts/install_llama_server.sh`` (``.ci/run``) or
``$MEDQADE_LLAMA_SERVER_PYTHON``; without it, or without inspect_ai, the tests skip and say
why. Two samples per task (``limit=2``): the server decodes about 22 tokens/s here; about
100-175 s on two shared cores (one judge sample alone: 17 s, the refused json_schema probe
answered at once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from medqade.cli import main
from medqade.runners.inspect_metrics import answer_values, judge_values
from medqade.runners.inspect_tasks import answer, judge
from medqade.vocab import LABELS
from servers.llama_server import MODEL_ALIAS, LlamaServer

from .helpers import DATA

pytestmark = pytest.mark.real_server


def _model(server: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> Model:
    """``--model openai-api/llama/smollm2`` with ``LLAMA_BASE_URL``, as a user would run it."""
    monkeypatch.setenv("LLAMA_BASE_URL", server.base_url)
    monkeypatch.setenv("LLAMA_API_KEY", "sk-local")
    return get_model(f"openai-api/llama/{MODEL_ALIAS}", memoize=False)


def _run(task: Any, model: Model, tmp_path: Path, **kwargs: Any) -> EvalLog:
    logs = inspect_eval(
        task,
        model=model,
        limit=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_connections=1,
        **kwargs,
    )
    log = logs[0]
    assert log.status == "success", str(log.error)[:2000]
    return log


def _score(log: EvalLog, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    argv = ["score", log.location, "--data", str(DATA), "--json", "--resamples", "100"]
    assert main(argv) == 0
    return dict(json.loads(capsys.readouterr().out))


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {k: v.value for s in log.results.scores for k, v in s.metrics.items()}


def test_inspect_judge_on_the_real_server_falls_back_and_scores(
    server: LlamaServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = _run(
        judge(data=str(DATA), split="all", resamples=100), _model(server, monkeypatch), tmp_path
    )
    assert log.samples is not None and len(log.samples) == 2
    for sample in log.samples:
        meta = sample.scores["judge_scorer"].metadata  # type: ignore[index]
        # the server refuses json_schema (HTTP 500); the run settles on its own schema form
        assert meta["response_format"] == "json_object with schema"
        assert all(label in LABELS for label in meta["labels"])
        usage = sample.output.usage
        assert usage is not None and usage.output_tokens <= 256  # the token limit arrived
    record = _score(log, capsys)
    assert record["kind"] == "judge" and record["submission"]["rows"] == 2
    assert record["meta"]["inspect"]["provider"] == "openai-api"
    values = judge_values(record)
    metrics = _metrics(log)
    assert values and {k: metrics[k] for k in values} == values


def test_inspect_answer_on_the_real_server_is_bounded_and_scores(
    server: LlamaServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = _run(answer(data=str(DATA), resamples=100), _model(server, monkeypatch), tmp_path)
    assert log.samples is not None
    for sample in log.samples:
        usage = sample.output.usage
        assert usage is not None and usage.output_tokens <= 32
    record = _score(log, capsys)
    assert record["kind"] == "answers"
    assert record["accuracy"]["n_answered"] == 2
    values = answer_values(record)
    metrics = _metrics(log)
    assert values and {k: metrics[k] for k in values} == values
