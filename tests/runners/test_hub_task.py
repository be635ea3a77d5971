"""The Hub task as the Hub runs it: Inspect's own ``hf/`` loader over a local build.

``inspect eval hf/ORG/NAME/judge-accuracy`` reads ``eval.yaml`` with ``hf_hub_download`` and the
config with ``datasets.load_dataset``; here the download returns the local build's file and the
dataset path is the build folder, everything else is Inspect's code unchanged
(``inspect_ai/_eval/task/hf.py``). The log's metric must be what ``medqade score
--eval-results`` writes for that log. Against the stub server (always) and the real
llama-cpp-python server (``real_server``; skipped, saying why, without it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("inspect_ai")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai._eval.task import hf as inspect_hf
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from medqade.cli import main
from medqade.dataset import hub_eval
from medqade.dataset.build import build
from servers.llama_server import MODEL_ALIAS, LlamaServer
from servers.stub_server import StubServer

from .helpers import DATA

DATASET = "medqade-test/medqade"
TASK = f"hf/{DATASET}/{hub_eval.JUDGE_TASK.id}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hub-build") / "build"
    build(DATA, out)
    return out


@pytest.fixture
def local_hub(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hf_cache: Path) -> Path:
    """Inspect's ``hf/`` loader pointed at the local build (the download step only)."""
    import huggingface_hub

    asked: list[tuple[str, str]] = []

    def download(repo_id: str, filename: str, **kwargs: Any) -> str:
        asked.append((repo_id, filename))
        assert repo_id == DATASET and kwargs.get("repo_type") == "dataset"
        return str(built / filename)

    real = inspect_hf.hf_dataset

    def dataset(path: str, **kwargs: Any) -> Any:
        assert path == DATASET
        kwargs.pop("revision", None)  # a local folder has no revisions
        return real(path=str(built), cache_dir=str(hf_cache), **kwargs)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setattr(inspect_hf, "hf_dataset", dataset)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))  # Inspect's dataset cache
    return built


def _hub_task() -> Task:
    (task,) = inspect_hf.task_create_from_hf(TASK)
    return task


def _accuracy(log: EvalLog) -> float:
    assert log.status == "success", str(log.error)[:2000]
    assert log.results is not None
    (score,) = log.results.scores
    assert score.name == "choice"
    return float(score.metrics["accuracy"].value)


def _eval_results(log: EvalLog, built: Path, tmp_path: Path) -> tuple[dict[str, Any], dict]:
    path, out = tmp_path / "entry.yaml", tmp_path / "record.json"
    argv = ["score", str(log.location), "--data", str(built), "--resamples", "20"]
    argv += ["--eval-results", str(path), "--hub-dataset", DATASET, "--out", str(out)]
    assert main(argv) == 0
    (entry,) = yaml.safe_load(path.read_text(encoding="utf-8"))
    return entry, json.loads(out.read_text(encoding="utf-8"))


def test_every_task_of_the_built_eval_yaml_validates_and_its_columns_exist(built: Path) -> None:
    from datasets import load_dataset

    data = yaml.safe_load((built / hub_eval.EVAL_YAML).read_text(encoding="utf-8"))
    assert data["tasks"]
    for entry in data["tasks"]:
        task = inspect_hf.HFTask.model_validate(entry)  # Inspect's own schema
        columns = set(load_dataset(str(built), task.config, split=task.split).column_names)
        spec = task.field_spec
        named = {spec.input, spec.target, spec.choices, *(spec.metadata or [])}
        assert named <= columns, named - columns


def test_the_hub_task_runs_and_its_metric_is_the_eval_results_value(
    local_hub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with StubServer() as stub:
        stub.student_answer = "ANSWER: A"  # every answer called Richtig
        monkeypatch.setenv("LOCAL_BASE_URL", stub.base_url)
        monkeypatch.setenv("LOCAL_API_KEY", "sk-local")
        model = get_model("openai-api/local/stub", memoize=False)
        (log,) = inspect_eval(
            _hub_task(), model=model, log_dir=str(tmp_path / "logs"), display="none"
        )
    accuracy = _accuracy(log)
    samples = log.samples or []
    targets = [s.target for s in samples]
    assert len(samples) == 9 and accuracy == pytest.approx(targets.count("A") / len(targets))
    assert 0 < accuracy < 1  # both consensus labels occur: the value can be wrong
    entry, record = _eval_results(log, local_hub, tmp_path)
    assert entry["dataset"]["task_id"] == hub_eval.JUDGE_TASK.id
    assert entry["value"] == pytest.approx(accuracy, abs=5e-5)
    # the same labels as a judge file: every slot of a resolved core answer called Richtig
    assert record["kind"] == "judge" and record["submission"]["rows"] == 9
    assert record["confusion"]["core"]["Richtig"]["Falsch"] == targets.count("B")
    assert record["meta"]["inspect"]["data"] == DATASET  # the record keeps what the log named
    _the_space_reads_it_the_same_way(Path(str(log.location)), local_hub, record)


def _eval_zip() -> Any:
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[1] / "scoring" / "eval_zip.py"
    spec = importlib.util.spec_from_file_location("eval_zip", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("eval_zip", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _the_space_reads_it_the_same_way(log: Path, built: Path, record: dict[str, Any]) -> None:
    """The Space's submit (``policy.submit``, the library path the CLI takes too) reads a Hub
    log as the same judge labels, and only when it is of this release (issue 38): a sample whose
    input was changed, or a release read from another Hub repo, is refused, named."""
    from dataclasses import replace

    from medqade.dataset.release import load_release
    from medqade.scoring.policy import policy

    release = load_release(built)
    data = log.read_bytes()
    settings = policy.Settings(resamples=20)
    meta = {"name": "Hub stub"}
    outcome = policy.submit(
        release, [policy.Upload(data, "run.eval", ".eval")], None, meta, settings
    )
    assert outcome.ok and outcome.record is not None, outcome.message
    stored = outcome.record.to_json()
    assert stored["confusion"] == record["confusion"]
    assert stored["submission"]["rows"] == record["submission"]["rows"]

    elsewhere = replace(release, hub_id="someone/other-benchmark")
    refused = policy.submit(
        elsewhere, [policy.Upload(data, "run.eval", ".eval")], None, meta, settings
    )
    assert not refused.ok and "someone/other-benchmark" in str(refused.problems)

    eval_zip = _eval_zip()
    members = eval_zip.members_of(data)
    first = next(m.name for m in members if m.name.startswith("samples/"))

    def other_text(sample: Any) -> None:
        sample["input"] = sample["input"].replace("Frage:", "Frage: (anders)")

    forged = eval_zip.write_zip(eval_zip.edit_json(members, [first], other_text))
    refused = policy.submit(
        release, [policy.Upload(forged, "run.eval", ".eval")], None, meta, settings
    )
    text = " ".join(str(p) for p in refused.problems)
    assert not refused.ok and "its input is not this release's prompt" in text, text


@pytest.mark.real_server
def test_the_hub_task_against_the_real_server(
    local_hub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: LlamaServer
) -> None:
    monkeypatch.setenv("LLAMA_BASE_URL", server.base_url)
    monkeypatch.setenv("LLAMA_API_KEY", "sk-local")
    model = get_model(f"openai-api/llama/{MODEL_ALIAS}", memoize=False)
    (log,) = inspect_eval(
        _hub_task(),
        model=model,
        limit=3,
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_connections=1,
        max_tokens=16,
        temperature=0.0,
        # SmolLM2-135M only echoes the options; llama.cpp's grammar makes it pick a letter
        # (a run setting like --max-tokens: the task is still eval.yaml's, unchanged)
        extra_body={"grammar": 'root ::= "ANSWER: " ("A" | "B")'},
    )
    accuracy = _accuracy(log)
    letters = [s.scores["choice"].answer for s in log.samples or [] if s.scores]
    assert len(letters) == 3 and set(letters) <= {"A", "B"}, letters
    entry, record = _eval_results(log, local_hub, tmp_path)
    assert entry["value"] == pytest.approx(accuracy, abs=5e-5)
    assert "partial_coverage" in record["flags"]
    assert "no verdict" in entry["notes"] and "verdict vs physicians" not in entry["notes"]
