"""Tests of medqade.scoring.hub_log: a Hub-task log as judge labels.

Oracle: hand-made samples with known letters; the end-to-end run through Inspect's ``hf/``
loader and ``medqade score`` is tests/runners/test_hub_task.py.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from medqade.scoring import hub_log


def _sample(answer_id: str, letter: str | None) -> Any:
    score = SimpleNamespace(answer=letter, value="C")
    return SimpleNamespace(
        metadata={"answer_id": answer_id},
        choices=["Richtig", "Falsch"],
        scores={"choice": score},
    )


def _log(task: str, samples: list[Any]) -> Any:
    return SimpleNamespace(
        eval=SimpleNamespace(
            model="openai-api/llama/smollm2",
            created="2026-02-01T10:00:00+00:00",
            task=task,
            packages={"inspect_ai": "0.3.285"},
        ),
        status="success",
        samples=samples,
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
    lines = [json.loads(x) for x in hub_log.log_submission(_log("hf/o/n", samples)).splitlines()]
    meta = lines[0]["meta"]
    assert meta["model_id"] == "llama/smollm2"
    assert meta["inspect"]["run_date"] == "2026-02-01" and meta["inspect"]["samples"] == 4
    assert lines[1:] == [
        {"answer_id": "Q1/a", "label": "Richtig"},
        {"answer_id": "Q1/b", "label": "Falsch"},
        {"answer_id": "Q1/c", "label": None},
        {"answer_id": "Q1/d", "label": None},  # a letter outside the choices
    ]


def test_other_files_are_not_hub_logs() -> None:
    assert hub_log.hub_log_submission(b"question_id,answer\n", "a.csv") is None
    assert hub_log.hub_log_submission(b"{}", "run.eval") is None  # no ZIP inside
