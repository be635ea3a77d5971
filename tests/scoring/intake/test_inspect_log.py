"""scoring.inspect_log: an Inspect ``.eval`` log as a submission, and the logs it refuses.

The happy paths (judge and answer logs scored like the equivalent label file, epochs, errors)
run the real tasks in tests/runners/test_inspect_tasks.py; here the refusals, each with the
file named and what to do: logs that would make the reader allocate without bound (ZIP bombs,
run in a child process under an address-space cap), logs of another task or dataset, and
logs whose samples were doctored. Every hostile log is a real log of ``medqade/judge`` or
``medqade/answer`` (mock model) rewritten member by member (``eval_zip.py`` beside this file).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")


from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import parse_submission

from ..eval_zip import (
    Member,
    edit_json,
    members_of,
    write_zip,
)


def _refusal(data: bytes, release: Release, name: str = "run.eval") -> str:
    with pytest.raises(InputError) as caught:
        parse_submission(data, name, release)
    text = "\n".join(str(p) for p in caught.value.problems)
    assert name in text and "Traceback" not in text
    return text


# --- the logs read as before -------------------------------------------------------------------


def test_a_rewritten_log_reads_as_the_original(judge_log: bytes, sample: Release) -> None:
    """The test's ZIP writer (Zstandard members, true sizes) makes logs the reader takes."""
    again = write_zip(members_of(judge_log))
    assert (
        parse_submission(again, "run.eval", sample).content_hash
        == parse_submission(judge_log, "run.eval", sample).content_hash
    )


def test_the_record_keeps_the_task_and_the_dataset_the_log_named(
    judge_log: bytes, sample: Release, sample_dir: Path
) -> None:
    run = parse_submission(judge_log, "run.eval", sample).meta["inspect"]
    assert run["task"] == "medqade/judge" and run["data"] == str(sample_dir)


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("openai/gpt-5.4-mini", "GPT"),  # a roster evaluator: its family
        ("ollama/gemma3:12b", "Gemma"),  # not in the roster: the family its name starts with
        ("openai-api/llama/smollm2", None),  # no family known: the submitter says it
    ],
)
def test_the_model_family_is_taken_from_the_log(
    judge_log: bytes, sample: Release, model: str, family: str | None
) -> None:
    """Issue 39: a log's model names its family where the roster knows it; a family given
    with the submission wins (explicit metadata overrides the header)."""

    def rename(header: dict) -> None:
        header["eval"]["model"] = model

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), rename)
    )
    meta = parse_submission(data, "run.eval", sample).meta
    assert meta.get("family") == family


def test_a_family_given_with_the_submission_wins_over_the_log(
    judge_log: bytes, sample: Release
) -> None:
    from medqade.scoring.policy import policy

    def rename(header: dict) -> None:
        header["eval"]["model"] = "openai/gpt-5.4-mini"

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), rename)
    )
    settings = policy.Settings(resamples=0)
    for form, family in (({"family": "Qwen"}, "Qwen"), ({"family": ""}, "GPT")):
        upload = policy.Upload(data, "run.eval", ".eval")
        outcome = policy.submit(sample, [upload], None, {"name": "N", **form}, settings)
        assert outcome.ok and outcome.record is not None, outcome.message
        assert outcome.record.to_json()["meta"]["family"] == family


def test_family_of_model_reads_ids_and_names() -> None:
    from medqade.scoring.intake.meta import family_of_model

    models = [("gpt-5.4-mini", "GPT"), ("gemma3:27b", "Gemma"), ("qwen3:4b", "Qwen")]
    assert family_of_model("GPT-5.4-Mini", models) == "GPT"
    assert family_of_model("google/gemma-3-4b-it", models) == "Gemma"
    assert family_of_model("qwen2.5-72b-instruct", models) == "Qwen"
    assert family_of_model("mistral-large", models) is None
    assert family_of_model("gpt-qwen-merge", models) is None  # two families: not guessed


# --- the log must be of this release's task and texts ----------------------------------------


def test_a_log_of_another_package_s_judge_task_is_refused(
    judge_log: bytes, sample: Release
) -> None:
    def rename(header: dict) -> None:
        header["eval"]["task_registry_name"] = "other_pkg/judge"
        header["eval"]["task"] = "other_pkg/judge"

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), rename)
    )
    text = _refusal(data, sample)
    assert "'other_pkg/judge'" in text and "medqade/judge" in text


def test_a_log_run_on_another_hub_dataset_is_refused(judge_log: bytes, sample: Release) -> None:
    def other(header: dict) -> None:
        header["eval"]["task_args"]["data"] = "org/other-benchmark"

    data = write_zip(
        edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), other)
    )
    for release in (sample, replace(sample, hub_id="medqade/medqade")):
        text = _refusal(data, release)
        assert "'org/other-benchmark'" in text and "this release" in text


def test_a_log_naming_no_dataset_ran_on_the_synthetic_default(
    judge_log: bytes, sample: Release
) -> None:
    def none(header: dict) -> None:
        header["eval"]["task_args"]["data"] = None

    data = write_zip(edit_json(members_of(judge_log), ("header.json", "_journal/start.json"), none))
    real = replace(sample, meta=replace(sample.meta, synthetic=False))
    assert "no -T data" in _refusal(data, real)
    if sample.synthetic:  # the same texts on a synthetic release: scored
        assert "data" not in parse_submission(data, "run.eval", sample).meta["inspect"]


def test_a_judge_sample_that_asked_other_texts_is_refused_by_name(
    judge_log: bytes, sample: Release
) -> None:
    members = members_of(judge_log)
    victim = next(m for m in members if m.name.startswith("samples/"))

    def swap(obj: dict) -> None:
        student = sorted(obj["metadata"]["answers"])[1]
        obj["metadata"]["answers"][student] = "Eine andere Antwort"

    data = write_zip(edit_json(members, (victim.name,), swap))
    text = _refusal(data, sample)
    qid = json.loads(victim.data)["id"]
    assert f"sample {qid!r} (epoch 1)" in text and "answer of" in text
    assert "Eine andere Antwort" in text and "-T data" in text


def test_an_answer_sample_that_asked_another_question_is_refused(
    answer_log: bytes, sample: Release
) -> None:
    members = members_of(answer_log)
    victim = next(m for m in members if m.name.startswith("samples/"))

    def swap(obj: dict) -> None:
        obj["input"] = "Welches Organ produziert Insulin? ___"

    text = _refusal(write_zip(edit_json(members, (victim.name,), swap)), sample)
    assert "question (the input)" in text and "Insulin" in text


# --- messages: a doctored sample or an answer log without epoch 1 -----------------------------


def test_an_answer_log_without_epoch_1_says_so(answer_log: bytes, sample: Release) -> None:
    moved = []
    for m in members_of(answer_log):
        if m.name.startswith("samples/"):
            obj = json.loads(m.data)
            obj["epoch"] = 2
            m = Member(m.name.replace("_epoch_1.json", "_epoch_2.json"), json.dumps(obj).encode())
        moved.append(m)
    text = _refusal(write_zip(moved), sample)
    assert "no epoch-1 samples" in text and "epoch 2" in text and "no data rows" not in text
