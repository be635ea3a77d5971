"""The metrics the Inspect tasks report (:mod:`medqade.runners.inspect_metrics`): the
submission text made from the samples' metadata, and the numbers of a record shown in a log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from medqade.runners.inspect_metrics import (
    answer_submission_text,
    answer_values,
    judge_submission_text,
    judge_values,
)

STORED = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def _stored(kind: str) -> dict[str, Any]:
    for path in sorted(STORED.glob("*.json")):
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if record["kind"] == kind:
            return record
    raise AssertionError(kind)


def test_judge_submission_text_is_medqade_judge_s_rows() -> None:
    metas = [
        {"question_id": "S-C01", "order": ["a", "b"], "labels": ["Richtig", None], "difficulty": 1},
        {"question_id": "S-C02", "order": ["b", "a"]},
    ]
    rows = [json.loads(line) for line in judge_submission_text(metas).splitlines()]
    assert rows == [
        {"question_id": "S-C01", "order": ["a", "b"], "resp_1": "Richtig", "resp_2": None,
         "difficulty": 1},
        {"question_id": "S-C02", "order": ["b", "a"], "resp_1": None, "resp_2": None,
         "difficulty": None},
    ]  # fmt: skip


def test_answer_submission_text_with_and_without_a_grader() -> None:
    metas = [
        {"question_id": "S-C01", "answer": "Femur", "label": "Richtig"},
        {"question_id": "S-C02", "answer": None, "label": "Falsch"},
    ]
    text, labels = answer_submission_text(metas)
    assert [json.loads(x) for x in text.splitlines()] == [
        {"question_id": "S-C01", "answer": "Femur"},
        {"question_id": "S-C02", "answer": None},
    ]
    assert labels == '{"question_id": "S-C01", "label": "Richtig", "answer": "Femur"}\n'
    assert answer_submission_text([{"question_id": "S-C01", "answer": "x"}])[1] is None


def test_judge_values_are_the_record_s_numbers() -> None:
    record = _stored("judge")
    values = judge_values(record)
    assert values["core_kappa"] == record["core"]["kappa"]
    low, high = record["core"]["kappa_ci"]
    assert (values["core_kappa_ci_low"], values["core_kappa_ci_high"]) == (low, high)
    assert values["full_pabak"] == record["full"]["pabak"]
    assert values[f"verdict_{record['verdict'].replace('-', '_')}"] == 1.0
    assert all(isinstance(v, float) for v in values.values())


def test_answer_values_are_the_record_s_numbers() -> None:
    record = _stored("answers")
    values = answer_values(record)
    assert values["core_anchored"] == record["accuracy_core"]["anchored"]
    assert values["all_coverage"] == record["accuracy"]["coverage"]
    assert values["all_anchored_ci_low"] == record["accuracy"]["ci"][0]
    assert answer_values({}) == {}
