"""The answer and judgment checks the benchmark and the pool both run
(:mod:`medqade.raw.table_checks`): one answer per student and question, judgments' order lists
and labels, the long form of judgments, and the empty judgments table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from medqade import vocab
from medqade.files.problems import ProblemLog
from medqade.files.tables import LINE
from medqade.raw.check import Checker
from medqade.raw.table_checks import check_answers, check_judgments, empty_judgments, parse_order

ROSTER = vocab.DEFAULT_ROSTER
STUDENTS = list(ROSTER.student_ids)
EVALUATOR = ROSTER.evaluator_ids[0]


def _checker(name: str, rows: list[dict[str, object]]) -> tuple[Checker, ProblemLog]:
    frame = pd.DataFrame(rows)
    frame.insert(0, LINE, range(2, 2 + len(rows)))
    log = ProblemLog()
    return Checker(log, Path(name), frame), log


@pytest.mark.parametrize(
    ("value", "order"),
    [
        (["a", " b "], ["a", "b"]),
        (np.array(["a", "b"]), ["a", "b"]),
        ('["a", "b"]', ["a", "b"]),
        ("a; b, c", ["a", "b", "c"]),
        ("[not json", None),
    ],
)
def test_parse_order(value: object, order: list[str] | None) -> None:
    assert parse_order(value) == order


def test_empty_judgments_has_the_columns_and_types() -> None:
    frame = empty_judgments()
    assert list(frame.columns) == [
        "question_id", "model", "evaluator", "label", "difficulty", "position",
    ]  # fmt: skip
    assert len(frame) == 0 and str(frame["position"].dtype) == "int64"


def test_check_answers_wants_one_answer_per_student_and_question() -> None:
    rows = [{"question_id": " q1 ", "model": m} for m in STUDENTS]
    rows += [{"question_id": "q2", "model": m} for m in STUDENTS[:3]]
    rows += [{"question_id": "q2", "model": STUDENTS[0]}, {"question_id": "q3", "model": "x"}]
    c, log = _checker("answers.csv", rows)
    frame = check_answers(c, {"q1", "q2", "q4"}, ROSTER)
    assert frame["question_id"].iloc[0] == "q1"  # stripped
    messages = [(p.row, p.message) for p in log.errors]
    assert (11, "question id not in the questions table") in messages
    assert (11, "unknown student model") in messages
    assert (10, "duplicate answer") in messages
    assert (7, "question q2 has 3 answers, expected 5 (one per student model)") in messages
    assert (None, "question q4 has 0 answers, expected 5 (one per student model)") in messages
    assert not any("q1 has" in m for _, m in messages)


def test_check_judgments_turns_the_wide_rows_long_in_the_given_order() -> None:
    order = list(reversed(STUDENTS))
    labels = ["richtig", "falsch", "abstain", "", "richtig"]
    good = {"question_id": "q1", "evaluator": EVALUATOR, "order": json.dumps(order)}
    good.update({f"resp_{k}": labels[k - 1] for k in range(1, 6)})
    bad = dict(good, question_id="q2", order=json.dumps(STUDENTS[:4]))
    c, log = _checker("judgments.csv", [good, bad])
    long = check_judgments(c, {"q1", "q2"}, ROSTER)
    assert [(p.row, p.message) for p in log.errors] == [
        (3, "order must list the five student ids, each once")
    ]
    assert len(long) == 5 and set(long["question_id"]) == {"q1"}
    by_position = long.sort_values("position")
    assert by_position["model"].tolist() == order
    assert by_position["label"].tolist() == [vocab.parse_label(v) if v else "" for v in labels]
    assert by_position["position"].tolist() == [1, 2, 3, 4, 5]
    assert set(long["difficulty"]) == {""} and set(long["evaluator"]) == {EVALUATOR}
