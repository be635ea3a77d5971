"""The Inspect tasks ``medqade/judge`` and ``medqade/answer`` (runners.inspect_tasks) on the
stub server through Inspect's OpenAI-compatible provider, and on Inspect's mock model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai._util.registry import registry_info
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from medqade.cli import main
from medqade.dataset import hub_eval
from medqade.runners.inspect_metrics import answer_values, judge_values
from medqade.runners.inspect_tasks import answer, epoch_seed, judge
from medqade.runners.judge import answer_order
from medqade.scoring.intake.inspect_log import log_rows
from servers.stub_server import StubServer

from .helpers import DATA, RESP, SAMPLE_IDS, STUDENTS, read_jsonl

ROOT = Path(__file__).resolve().parents[2]
CORE_IDS = [q for q in SAMPLE_IDS if "-C" in q]


def _stub_model(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> Model:
    """Inspect's OpenAI-compatible provider on ``stub`` (``STUB_BASE_URL``), not memoised: the
    next test's stub has another port."""
    monkeypatch.setenv("STUB_BASE_URL", stub.base_url)
    monkeypatch.setenv("STUB_API_KEY", "sk-stub")
    return get_model("openai-api/stub/stub-model", memoize=False)


def _eval(task: Any, model: Any, tmp_path: Path, **kwargs: Any) -> EvalLog:
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    assert len(logs) == 1
    log = logs[0]
    assert log.status == "success", str(log.error)[:2000]
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {k: v.value for s in log.results.scores for k, v in s.metrics.items()}


def _score_log(log: EvalLog, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["score", log.location, "--data", str(DATA), "--json", *extra]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_entry_point_names_the_tasks_module_and_registers_both_tasks() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry = pyproject["project"]["entry-points"]["inspect_ai"]["medqade"]
    module = import_module(entry)
    names = {registry_info(getattr(module, n)).name for n in ("judge", "answer")}
    assert names == {"medqade/judge", "medqade/answer"}
    extras = pyproject["project"]["optional-dependencies"]
    assert any(d.startswith("inspect_ai") for d in extras["inspect"])
    assert any(d.startswith("inspect_ai") for d in extras["test"])


def test_epoch_seed_is_the_seed_in_epoch_one_and_another_later() -> None:
    assert epoch_seed(7, 1) == 7 and epoch_seed(7, 2) != 7 and epoch_seed(7, 2) == epoch_seed(7, 2)


def test_judge_steps_down_on_a_refused_schema_and_scores_like_medqade_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(refuse_formats=frozenset({"json_schema"})) as stub:
        model = _stub_model(stub, monkeypatch)
        log = _eval(judge(data=str(DATA), split="all", seed=3, resamples=200), model, tmp_path)
    kinds = [(b.get("response_format") or {}).get("type") for b in stub.requests]
    assert kinds[0] == "json_schema"  # refused (no retries), then one rung down for all
    assert kinds.count("json_object") == len(SAMPLE_IDS)  # one each, after the step down
    assert set(kinds) == {"json_schema", "json_object"}
    objects = [b["response_format"] for b in stub.requests if kinds and b["response_format"]]
    assert all("schema" in f for f in objects if f["type"] == "json_object")
    assert all(b["max_tokens"] == 256 for b in stub.requests)
    assert log.samples is not None
    for sample in log.samples:
        meta = sample.scores["judge_scorer"].metadata  # type: ignore[index]
        assert meta["order"] == list(answer_order(str(sample.id), STUDENTS, 3))
        assert meta["response_format"] == "json_object with schema"
        assert meta["raw"] and len(meta["labels"]) == 5
    metrics = _metrics(log)
    assert metrics["valid_share"] == 1.0
    record = _score_log(log, capsys, "--resamples", "200")
    assert record["submission"]["format"] == "per_question"
    assert record["meta"]["model_id"] == "stub/stub-model"
    assert record["meta"]["inspect"]["provider"] == "openai-api"
    assert record["meta"]["inspect"]["errored"] == 0
    assert record["meta"]["decoding"]["max_tokens"] == 256
    values = judge_values(record)
    assert values and {k: metrics[k] for k in values} == values  # to the last digit
    assert record["meta"]["inspect"]["input_tokens"] > 0
    assert hub_eval.run_date(record) == log.eval.created[:10]  # the Hub entry's date


def test_a_partial_run_states_its_coverage_and_gives_no_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--limit 1`` covers one of the two core sets: the metrics say so and withhold the
    verdict, by the rule (the record's flag) that keeps such a record off the Space's board."""
    with StubServer() as stub:
        model = _stub_model(stub, monkeypatch)
        task = judge(data=str(DATA), split="core", resamples=50)
        partial = _metrics(_eval(task, model, tmp_path / "a", limit=1))
        whole = _metrics(_eval(task, model, tmp_path / "b"))
    assert partial["covered_core"] == 0.5 and partial["covered_all"] == pytest.approx(1 / 6)
    assert partial["partial_coverage"] == 1.0
    assert "core_kappa" in partial  # the numbers stay, the verdict goes
    assert not any(k.startswith("verdict_") for k in partial)
    assert whole["covered_core"] == 1.0 and "partial_coverage" not in whole
    assert any(k.startswith("verdict_") for k in whole)  # the whole core: a verdict


def test_unparseable_reply_is_invalid_never_a_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {k: "Richtig" for k in RESP} | {"difficulty": "Mittel"}
    replies = [json.dumps(good), "Ich denke, alle sind richtig."]
    outputs = []
    for text in replies:
        out = ModelOutput.from_content("mockllm/model", text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        outputs.append(out)
    model = get_model("mockllm/model", custom_outputs=outputs)
    log = _eval(
        judge(data=str(DATA), split="core", resamples=0), model, tmp_path, max_connections=1
    )
    assert _metrics(log)["valid_share"] == 0.5
    parsed = log_rows(Path(log.location).read_bytes(), "run.eval")
    assert parsed.kind == "judge" and parsed.meta["inspect"]["invalid"] == 1
    bad = [r for r in parsed.rows if "error" in r]
    assert len(bad) == 1 and all(bad[0][k] is None for k in (*RESP, "difficulty"))
    assert bad[0]["raw"] == replies[1] and bad[0]["error"].startswith("invalid")
    record = _score_log(log, capsys, "--resamples", "0")
    assert record["submission"]["rows"] == len(CORE_IDS)
    assert any("has 0 errored and 1 invalid of 2 samples" in w for w in record["warnings"])
    shares = record["output_shares"]  # the unparseable reply is neither label nor abstention
    assert shares["invalid_recorded"] is True
    assert (shares["labelled"], shares["invalid"], shares["abstained"]) == (5, 5, 0)
    assert shares["invalid_of_replies"] == 0.5


def test_epochs_reshuffle_and_the_log_keeps_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer() as stub:
        log = _eval(
            judge(data=str(DATA), split="core", seed=0, resamples=0, epochs=2),
            _stub_model(stub, monkeypatch),
            tmp_path,
        )
    parsed = log_rows(Path(log.location).read_bytes(), "run.eval")
    assert all(r["input_tokens"] > 0 and r["output_tokens"] > 0 for r in parsed.rows)
    runs = sorted((r["question_id"], r["run"]) for r in parsed.rows)
    assert runs == sorted((q, e) for q in CORE_IDS for e in (1, 2))
    for row in parsed.rows:
        seed = epoch_seed(0, row["run"])
        assert row["order"] == list(answer_order(row["question_id"], STUDENTS, seed))
    record = _score_log(log, capsys, "--resamples", "0")
    assert record["submission"]["rows"] == 2 * len(CORE_IDS)  # both epochs are read
    assert record["behaviour"]["consistency"] is not None  # epoch 2 is its second run


def test_answer_task_with_a_grader_scores_like_medqade_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with StubServer(student_answer="Acetylcystein") as stub:
        model = _stub_model(stub, monkeypatch)
        log = _eval(
            answer(data=str(DATA), resamples=200),
            model,
            tmp_path,
            model_roles={"grader": model},
        )
    assert all(b["max_tokens"] == 32 for b in stub.requests if "Antwort 1" not in str(b))
    metrics = _metrics(log)
    record = _score_log(log, capsys, "--resamples", "200")
    assert record["kind"] == "answers"
    values = answer_values(record)
    assert "all_anchored" in values or "all_lower" in values
    assert "all_judged_estimate" in values
    assert {k: metrics[k] for k in values} == values


def test_the_inspect_log_and_the_medqade_judge_file_score_the_same(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Both paths on one stub (its verdicts follow the answers, not their order): the same
    orders (default seed) and labels per question, and the same record from medqade score."""
    out = tmp_path / "judge.jsonl"
    with StubServer() as stub:
        argv = ["judge", "--model", "stub-model", "--base-url", stub.base_url]
        argv += ["--data", str(DATA), "--out", str(out), "--no-progress"]
        assert main(argv) == 0
        log = _eval(
            judge(data=str(DATA), split="all", resamples=0),
            _stub_model(stub, monkeypatch),
            tmp_path,
        )
    rows = {r["question_id"]: r for r in read_jsonl(out)}
    parsed = log_rows(Path(log.location).read_bytes(), "run.eval")
    assert len(parsed.rows) == len(rows) == len(SAMPLE_IDS)
    for row in parsed.rows:
        mine = rows[row["question_id"]]
        assert row["order"] == mine["order"]
        assert [row[k] for k in (*RESP, "difficulty")] == [mine[k] for k in (*RESP, "difficulty")]
    from_log = _score_log(log, capsys, "--resamples", "200")
    capsys.readouterr()
    assert main(["score", str(out), "--data", str(DATA), "--json", "--resamples", "200"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert from_log["submission"]["content_hash"] == from_file["submission"]["content_hash"]
    assert judge_values(from_log) == judge_values(from_file)


def test_inspect_eval_finds_the_tasks_by_the_entry_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``inspect eval medqade/judge`` in a fresh process: the entry point of pyproject.toml
    (the installed one, or a dist-info of its own when the installed medqade predates it)
    names the module, Inspect finds the task, and medqade score reads the log."""
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    module = entry["project"]["entry-points"]["inspect_ai"]["medqade"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    installed = [e for e in entry_points(group="inspect_ai") if e.name == "medqade"]
    if installed:  # an install of this tree (make test): the installed package as it is, since
        # a source folder on PYTHONPATH would make Inspect name the task without "medqade/"
        assert [e.value for e in installed] == [module]
    else:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(tmp_path / "site"), str(ROOT / "src")]
        )  # an older install: register the entry point in a dist-info of its own
        dist = tmp_path / "site" / "medqade_entry-0.0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: medqade-entry\nVersion: 0.0\n")
        (dist / "entry_points.txt").write_text(f"[inspect_ai]\nmedqade = {module}\n")
    with StubServer() as stub:
        env |= {"STUB_BASE_URL": stub.base_url, "STUB_API_KEY": "sk-stub"}
        argv = [sys.executable, "-m", "inspect_ai", "eval", "medqade/judge"]
        argv += ["--model", "openai-api/stub/stub-model", "--limit", "2", "--display", "none"]
        argv += ["-T", f"data={DATA}", "-T", "resamples=0", "--log-dir", str(tmp_path / "logs")]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (log,) = (tmp_path / "logs").glob("*_judge_*.eval")
    capsys.readouterr()
    assert main(["score", str(log), "--data", str(DATA), "--json", "--resamples", "0"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (
        record["submission"]["rows"] == 2 and record["meta"]["inspect"]["task"] == "medqade/judge"
    )
