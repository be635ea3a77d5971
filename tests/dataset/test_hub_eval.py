"""Tests of medqade.dataset.hub_eval: the build's ``eval.yaml``, ``.eval_results`` from score and
Space.

Oracle: ``huggingface_hub``'s own parser and serialiser of the ``.eval_results`` format
(``parse_eval_result_entries`` / ``eval_result_entries_to_yaml``) and the documented
``eval.yaml`` fields (https://huggingface.co/docs/hub/eval-results).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml, parse_eval_result_entries

from medqade import vocab
from medqade.app.config import SpaceConfig
from medqade.app.tab_submit import eval_results_text
from medqade.cli import main
from medqade.commands.score import hub_dataset
from medqade.dataset import hub_eval
from medqade.dataset.build import build, build_files
from medqade.dataset.release import Release, load_release
from medqade.files.atomic import OutputRefused
from medqade.measures.paired import DEFAULT_MARGIN
from medqade.schema import HUB_CONFIGS
from medqade.scoring import Settings, reference_records

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
DATASET = "medqade/medqade"
SPACE = "medqade/leaderboard"
MARGIN = DEFAULT_MARGIN
"""The leaderboard's margin, at which every Hub entry is written."""
LABELS = "question_id,model,label\n" + "".join(
    f"{q},{m},{label}\n"
    for q in ("S-C01", "S-C02")
    for m, label in zip(
        ("gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b"),
        ("Richtig", "Falsch", "Richtig", "Keine Angabe", "Falsch"),
        strict=True,
    )
)


@pytest.fixture(scope="module")
def sample_release(built_sample: Path) -> Release:
    return load_release(built_sample)


@pytest.fixture(scope="module")
def records(sample_release: Release) -> dict[str, dict[str, Any]]:
    """A paper evaluator's judge record and a student's answers record of the sample."""
    out: dict[str, dict[str, Any]] = {}
    for typed in reference_records(sample_release, Settings(resamples=50)):
        record = typed.to_json()
        source = record["meta"].get("source")
        if source == "paper" and record["kind"] not in out:
            out[record["kind"]] = record
    assert set(out) == {"judge", "answers"}
    return out


def _parsed(text: str) -> list[EvalResultEntry]:
    data = yaml.safe_load(text)
    assert isinstance(data, list)
    return parse_eval_result_entries(data)


# --- eval.yaml ----------------------------------------------------------------------------------


def test_eval_yaml_has_the_documented_fields_and_the_hub_task() -> None:
    data = yaml.safe_load(hub_eval.eval_yaml(synthetic=False, space_id=SPACE))
    assert list(data) == ["name", "description", "evaluation_framework", "tasks"]
    assert data["name"] == "MedQADE"
    assert f"https://huggingface.co/spaces/{SPACE}" in data["description"]
    assert data["evaluation_framework"] == "inspect-ai"  # on the Hub's list; verifiable runs
    assert [t["id"] for t in data["tasks"]] == ["judge-accuracy"]
    for task in data["tasks"]:
        assert list(task) == list(hub_eval.TASK_KEYS)
        assert task["config"] in HUB_CONFIGS
        assert task["split"] == vocab.CORE
        # Inspect's closed lists of built-ins: a name outside them fails HFTask validation
        assert [s["name"] for s in task["solvers"]] == ["multiple_choice"]
        assert [s["name"] for s in task["scorers"]] == ["choice"]


def test_eval_yaml_tasks_pass_inspects_hf_task_model() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai._eval.task.hf import HFTask

    for task in yaml.safe_load(hub_eval.eval_yaml(synthetic=False))["tasks"]:
        HFTask.model_validate(task)
    # the tasks as they were before issue 36 are refused by Inspect, as the Hub refuses them
    with pytest.raises(ValueError, match="field_spec"):
        HFTask.model_validate({"id": "judge", "config": "answers", "split": "core"})


def test_eval_yaml_names_no_metric_a_built_in_scorer_cannot_compute() -> None:
    description = yaml.safe_load(hub_eval.eval_yaml(synthetic=False))["description"]
    assert "kappa" in description and "not Hub tasks" in description
    ids = {t.id for t in hub_eval.TASKS}
    assert "judge" not in ids and "answer" not in ids  # the kappa and anchored-accuracy tasks


def test_eval_yaml_synthetic_says_so() -> None:
    data = yaml.safe_load(hub_eval.eval_yaml(synthetic=True))
    assert data["name"] == "MedQADE (synthetic)"
    assert data["description"].startswith("SYNTHETIC release")
    assert "huggingface.co/spaces" not in data["description"]


def test_build_writes_eval_yaml(built_sample: Path) -> None:
    text = (built_sample / hub_eval.EVAL_YAML).read_text(encoding="utf-8")
    synthetic = json.loads((built_sample / "release.json").read_text(encoding="utf-8"))
    assert text == hub_eval.eval_yaml(synthetic=bool(synthetic["synthetic"]))
    files = build_files(built_sample)
    assert files is not None and hub_eval.EVAL_YAML in files


def test_build_with_space_id_rebuilds_over_itself(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(SAMPLE, out)
    build(SAMPLE, out, space_id=SPACE)  # the earlier build, eval.yaml included, is replaced
    text = (out / hub_eval.EVAL_YAML).read_text(encoding="utf-8")
    assert f"https://huggingface.co/spaces/{SPACE}" in yaml.safe_load(text)["description"]


def test_main_build_space_id_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["build", "--raw", str(SAMPLE), "--out", str(tmp_path / "o"), "--space-id", "x"]
    assert main(argv) == 2
    assert "--space-id 'x': expected ORG/NAME" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# --- .eval_results ------------------------------------------------------------------------------


def _accuracy(record: dict[str, Any]) -> tuple[float, int]:
    """Independently of hub_eval: right / labelled resolved core slots from the confusion."""
    table = record["confusion"]["core"]
    n = sum(row[c] for row in table.values() for c in ("Richtig", "Falsch"))
    return (table["Richtig"]["Richtig"] + table["Falsch"]["Falsch"]) / n, n


def test_eval_results_parse_with_huggingface_hub(records: dict[str, dict[str, Any]]) -> None:
    record = records["judge"]
    text = hub_eval.eval_results_yaml(
        record, DATASET, margin=MARGIN, revision="a" * 40, space_id=SPACE
    )
    assert text.startswith(hub_eval.HEADER)
    (entry,) = _parsed(text)
    accuracy, n = _accuracy(record)
    assert (entry.dataset_id, entry.task_id, entry.dataset_revision) == (
        DATASET,
        "judge-accuracy",
        "a" * 40,
    )
    assert entry.value == pytest.approx(accuracy, abs=5e-5)
    assert entry.value != pytest.approx(record["core"]["kappa"], abs=5e-5)  # not the kappa
    assert entry.date == record["timestamp"][:10]  # no Inspect log: the scoring date
    space = f"https://huggingface.co/spaces/{SPACE}"
    assert entry.source_url == f"{space}?tab=compare&a={record['id']}&b=physicians"
    assert entry.notes is not None
    ci = record["core"]["kappa_ci"]
    assert f"on {n} resolved core answers" in entry.notes
    assert f"core kappa {record['core']['kappa']:.4f} [{ci[0]:.4f}, {ci[1]:.4f}]" in entry.notes
    assert record["id"] not in entry.notes and len(entry.notes) < 200  # a short note
    # the library writes the same entry back: our YAML is its format
    assert eval_result_entries_to_yaml([entry]) == yaml.safe_load(text)


def test_eval_results_of_answers_refused_no_hub_task(records: dict[str, dict[str, Any]]) -> None:
    with pytest.raises(ValueError, match="no Hub task"):
        hub_eval.eval_results_yaml(records["answers"], DATASET, margin=MARGIN)


def test_consensus_accuracy_counts_abstentions_and_missing_labels_wrong() -> None:
    table = {
        "Richtig": {"Richtig": 3, "Falsch": 1, "unresolved": 4},
        "Falsch": {"Richtig": 2, "Falsch": 5, "unresolved": 4},
        "Keine Angabe": {"Richtig": 1, "Falsch": 1, "unresolved": 0},
        "missing": {"Richtig": 0, "Falsch": 2, "unresolved": 9},
    }
    value, n = hub_eval.consensus_accuracy({"kind": "judge", "confusion": {"core": table}})
    assert (value, n) == pytest.approx((8 / 15, 15))


def test_eval_results_tasks_are_the_eval_yaml_tasks(records: dict[str, dict[str, Any]]) -> None:
    tasks = {t["id"] for t in yaml.safe_load(hub_eval.eval_yaml(synthetic=False))["tasks"]}
    used = {
        _parsed(hub_eval.eval_results_yaml(records["judge"], DATASET, margin=MARGIN))[0].task_id
    }
    assert used == tasks


def test_eval_results_partial_names_flag_and_withholds_verdict(
    records: dict[str, dict[str, Any]],
) -> None:
    full = _parsed(hub_eval.eval_results_yaml(records["judge"], DATASET, margin=MARGIN))[0]
    assert full.notes is not None
    assert f"verdict vs physicians: {records['judge']['verdict']}" in full.notes
    record = {**records["judge"], "flags": ["partial_coverage"]}
    (entry,) = _parsed(hub_eval.eval_results_yaml(record, DATASET, margin=MARGIN))
    assert entry.notes is not None
    assert "verdict" in entry.notes and "verdict vs physicians" not in entry.notes
    assert entry.notes.endswith("partial coverage, not ranked, no verdict")
    assert entry.source_url is None


def test_eval_results_date_is_the_inspect_run_date(records: dict[str, dict[str, Any]]) -> None:
    record = records["judge"]
    meta = {**record["meta"], "inspect": {"run_date": "2026-01-31", "version": "0.3.285"}}
    (entry,) = _parsed(hub_eval.eval_results_yaml({**record, "meta": meta}, DATASET, margin=MARGIN))
    assert entry.date == "2026-01-31" != record["timestamp"][:10]


def test_hub_task_ids_are_not_medqades_own_inspect_tasks() -> None:
    """One metric per task id: ``medqade/judge`` reports kappa, the Hub task accuracy."""
    pytest.importorskip("inspect_ai")
    from inspect_ai._util.registry import registry_info

    from medqade.runners import inspect_tasks

    names = {registry_info(inspect_tasks.judge).name, registry_info(inspect_tasks.answer).name}
    tasks = yaml.safe_load(hub_eval.eval_yaml(synthetic=False))["tasks"]
    assert not {f"medqade/{t['id']}" for t in tasks} & names


def test_eval_results_without_resolved_core_labels_refused(
    records: dict[str, dict[str, Any]],
) -> None:
    record = {**records["judge"], "confusion": {"core": None, "all": None}}
    with pytest.raises(ValueError, match="labels no resolved core answer"):
        hub_eval.eval_results_yaml(record, DATASET, margin=MARGIN)


def test_write_eval_results_never_overwrites_a_foreign_file(tmp_path: Path) -> None:
    path = tmp_path / "hle.yaml"
    path.write_text("- dataset: {id: cais/hle, task_id: default}\n  value: 1\n", encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(OutputRefused, match="was not written by medqade"):
        hub_eval.write_eval_results(path, hub_eval.HEADER + "\n[]\n")
    assert path.read_bytes() == before
    own = tmp_path / "own.yaml"
    hub_eval.write_eval_results(own, hub_eval.HEADER + " a\n[]\n")
    hub_eval.write_eval_results(own, hub_eval.HEADER + " b\n[]\n")
    assert own.read_text(encoding="utf-8").startswith(hub_eval.HEADER + " b")


# --- medqade score --eval-results ---------------------------------------------------------------


def _score(tmp_path: Path, built: Path, *extra: str) -> int:
    sub = tmp_path / "labels.csv"
    sub.write_text(LABELS, encoding="utf-8")
    return main(["score", str(sub), "--data", str(built), "--resamples", "20", *extra])


def test_main_score_writes_eval_results(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yaml"
    out = tmp_path / "r.json"
    argv = ["--eval-results", str(path), "--hub-dataset", DATASET, "--out", str(out)]
    assert _score(tmp_path, built_sample, *argv) == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    (entry,) = _parsed(path.read_text(encoding="utf-8"))
    assert record["kind"] == "judge"
    assert entry.value == pytest.approx(_accuracy(record)[0], abs=5e-5)
    assert _accuracy(record) == pytest.approx((4 / 9, 9))  # by hand: the labels above
    assert entry.notes is not None and "partial coverage" not in entry.notes  # the whole core
    assert f"verdict vs physicians: {record['verdict']}" in entry.notes
    assert f"wrote {path}: put it in your model repo's .eval_results/ folder" in (
        capsys.readouterr().out
    )


def test_main_score_eval_results_refuses_foreign_file_before_writing(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("mine\n", encoding="utf-8")
    out = tmp_path / "r.json"
    argv = ["--eval-results", str(path), "--hub-dataset", DATASET, "--out", str(out)]
    assert _score(tmp_path, built_sample, *argv) != 0
    assert "exists and was not written by medqade" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "mine\n"
    assert not out.exists()


def test_main_score_eval_results_needs_a_hub_dataset(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _score(tmp_path, built_sample, "--eval-results", str(tmp_path / "r.yaml")) == 2
    assert "--eval-results needs the benchmark dataset on the Hub" in capsys.readouterr().err
    assert not (tmp_path / "r.yaml").exists()


def test_main_score_eval_results_refuses_another_margin(
    tmp_path: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Constant ``Falsch`` labels at ``--margin 1`` would publish a verdict the leaderboard
    never gives; the Hub entry is refused, before scoring, and nothing is written."""
    sub = tmp_path / "falsch.csv"
    sub.write_text(LABELS.replace("Richtig", "Falsch").replace("Keine Angabe", "Falsch"))
    path, out = tmp_path / "r.yaml", tmp_path / "r.json"
    argv = ["score", str(sub), "--data", str(built_sample), "--resamples", "20", "--margin", "1"]
    hub = ["--eval-results", str(path), "--hub-dataset", DATASET, "--out", str(out)]
    assert main([*argv, *hub]) == 2
    err = capsys.readouterr().err
    assert f"at the leaderboard's margin {MARGIN:g}, not at --margin 1" in err
    assert not path.exists() and not out.exists()
    assert main([*argv, "--out", str(out)]) == 0  # the user's own margin: scored, not published
    assert json.loads(out.read_text(encoding="utf-8"))["settings"]["margin"] == 1.0


def test_eval_results_refuses_a_record_scored_at_another_margin(
    records: dict[str, dict[str, Any]],
) -> None:
    record = records["judge"]
    assert record["settings"]["margin"] == MARGIN
    other = {**record, "settings": {**record["settings"], "margin": 1.0}}
    with pytest.raises(
        ValueError, match=re.escape("scored at margin 1, the leaderboard's is 0.05")
    ):
        hub_eval.eval_results_yaml(other, DATASET, margin=MARGIN)
    unknown = {**record, "settings": {k: v for k, v in record["settings"].items() if k != "margin"}}
    with pytest.raises(ValueError, match="records no non-inferiority margin"):
        hub_eval.eval_results_yaml(unknown, DATASET, margin=MARGIN)
    assert eval_results_text(other, DATASET, SPACE) is None  # the Space offers none either
    # an answers record has no verdict and no margin: only its missing Hub task refuses it
    with pytest.raises(ValueError, match="no Hub task"):
        hub_eval.eval_results_yaml(records["answers"], DATASET, margin=1.0)


@pytest.mark.parametrize(
    ("data", "given", "expected"),
    [("org/bench", None, "org/bench"), ("org/bench", "me/other", "me/other"), (None, "a/b", "a/b")],
)
def test_hub_dataset_from_data_or_option(
    data: str | None, given: str | None, expected: str
) -> None:
    args = argparse.Namespace(data=data, hub_dataset=given, space_id=None)
    assert hub_dataset(args) == expected


def test_hub_dataset_local_data_is_no_hub_id(tmp_path: Path) -> None:
    args = argparse.Namespace(data=str(tmp_path), hub_dataset=None, space_id=None)
    with pytest.raises(ValueError, match="--hub-dataset ORG/NAME"):
        hub_dataset(args)


# --- the Space ----------------------------------------------------------------------------------


def test_space_config_reads_space_and_dataset() -> None:
    config = SpaceConfig.from_env({"SPACE_ID": SPACE, "MEDQADE_DATASET": DATASET})
    assert (config.space_id, config.hub_dataset) == (SPACE, DATASET)
    assert SpaceConfig.from_env({}).hub_dataset is None


def test_space_offers_eval_results_for_a_hub_dataset(records: dict[str, dict[str, Any]]) -> None:
    record = records["judge"]
    text = eval_results_text(record, DATASET, SPACE)
    assert text == hub_eval.eval_results_yaml(record, DATASET, margin=MARGIN, space_id=SPACE)
    assert eval_results_text(record, None, SPACE) is None  # a local release names no dataset
    assert eval_results_text({**record, "confusion": None}, DATASET, SPACE) is None
    assert eval_results_text(records["answers"], DATASET, SPACE) is None  # no Hub task
