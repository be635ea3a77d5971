"""Tests of medqade.scoring.intake.hub_log: a Hub-task log as judge labels.

Oracle: hand-made samples with known letters; the end-to-end run through Inspect's ``hf/``
loader and ``medqade score`` is tests/runners/test_hub_task.py.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from medqade.files.problems import InputError
from medqade.scoring.intake import hub_log
from medqade.scoring.intake.log_samples import LogSample


def _sample(answer_id: str, letter: str | None, **changes: Any) -> LogSample:
    fields: dict[str, Any] = {
        "id": answer_id,
        "epoch": 1,
        "input": "prompt of " + answer_id,
        "target": "A",
        "metadata": {"answer_id": answer_id},
        "choices": ("Richtig", "Falsch"),
        "answer": letter,
    }
    fields.update(changes)
    return LogSample(**fields)


def _header() -> Any:
    return SimpleNamespace(
        eval=SimpleNamespace(
            model="openai-api/llama/smollm2",
            created="2026-02-01T10:00:00+00:00",
            packages={"inspect_ai": "0.3.285"},
        ),
        status="success",
    )


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("hf/org/bench/judge-accuracy", True),
        ("hf/org/bench", True),  # one task in eval.yaml: Inspect names it as asked
        ("hf/org/bench/other", False),
        ("medqade/judge", False),
        ("judge-accuracy", False),
    ],
)
def test_is_hub_task(task: str, expected: bool) -> None:
    assert hub_log.is_hub_task(task) is expected


def test_letters_become_labels_and_no_letter_a_missing_label() -> None:
    samples = [
        _sample("Q1/a", "A"),
        _sample("Q1/b", "b"),
        _sample("Q1/c", None),
        _sample("Q1/d", "C"),
    ]
    text = hub_log.hub_log_text(_header(), samples, "hf/o/n/judge-accuracy")
    lines = [json.loads(x) for x in text.splitlines()]
    meta = lines[0]["meta"]
    assert meta["model_id"] == "llama/smollm2"
    assert meta["inspect"]["run_date"] == "2026-02-01" and meta["inspect"]["samples"] == 4
    assert meta["inspect"]["data"] == "o/n"  # the repo the task named
    assert lines[1:] == [
        {"answer_id": "Q1/a", "label": "Richtig"},
        {"answer_id": "Q1/b", "label": "Falsch"},
        {"answer_id": "Q1/c", "label": None},
        {"answer_id": "Q1/d", "label": None},  # a letter outside the choices
    ]


def test_a_sample_is_checked_against_the_release_prompt() -> None:
    inputs = {"Q1/a": "prompt of Q1/a"}
    hub_log.check_hub_sample(_sample("Q1/a", "A"), inputs, "run.eval")  # this release's
    cases = [
        (_sample("Q9/z", "A"), "answer id 'Q9/z' is not in this release"),
        (_sample("Q1/a", "A", input="another prompt"), "its input is not this release's prompt"),
        (_sample("Q1/a", "A", choices=("Ja", "Nein")), "its options are not"),
    ]
    for sample, said in cases:
        with pytest.raises(InputError) as caught:
            hub_log.check_hub_sample(sample, inputs, "run.eval")
        text = str(caught.value.problems[0])
        assert said in text and "sample" in text and "inspect eval hf/" in text, text


def test_the_release_prompts_are_the_published_config(sample: Any) -> None:
    """hub_inputs is the ``judge_hub`` config's input for every answer the config holds."""
    from medqade.dataset.hub_config import judge_hub_frame

    inputs = hub_log.hub_inputs(sample)
    frame = judge_hub_frame(sample.questions, sample.answers)
    assert len(frame) > 0
    assert all(inputs[a] == t for a, t in zip(frame["answer_id"], frame["input"], strict=True))
