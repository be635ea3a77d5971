"""``medqade answer`` as a library (:mod:`medqade.runners.student`): which questions are
asked, and the submission rows made from a run and a resumed run's earlier output."""

from __future__ import annotations

import pandas as pd
import pytest

from medqade.runners.student import select_questions, submission_rows

QUESTIONS = pd.DataFrame(
    {
        "question_id": ["C1", "C2", "E1", "E2", "E3"],
        "split": ["core", "core", "extension", "extension", "extension"],
    }
)


def test_select_questions_by_split_and_limit() -> None:
    assert list(select_questions(QUESTIONS)["question_id"]) == ["C1", "C2", "E1", "E2", "E3"]
    assert list(select_questions(QUESTIONS, "core")["question_id"]) == ["C1", "C2"]
    chosen = select_questions(QUESTIONS, "extension", limit=2)
    assert list(chosen["question_id"]) == ["E1", "E2"] and list(chosen.index) == [0, 1]


@pytest.mark.parametrize(
    ("split", "limit", "message"),
    [("Kern", None, "--split must be one of core, extension, all, got 'Kern'"),
     ("all", 0, "--limit must be at least 1, got 0")],
)  # fmt: skip
def test_select_questions_refuses(split: str, limit: int | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        select_questions(QUESTIONS, split, limit)


def test_submission_rows_keep_earlier_answers_and_name_failures() -> None:
    asked = {
        "C2": {"answer": "Femur"},
        "E1": {"answer": None, "raw": "???"},
        "E2": {"error": "timeout", "raw": None},
    }
    earlier = {"C1": {"answer": "Aspirin", "raw": "ignored"}}
    rows = submission_rows(["C1", "C2", "E1", "E2", "E3"], asked, earlier)
    assert rows == [
        {"question_id": "C1", "answer": "Aspirin"},
        {"question_id": "C2", "answer": "Femur"},
        {"question_id": "E1", "answer": None, "error": "invalid output", "raw": "???"},
        {"question_id": "E2", "answer": None, "error": "timeout", "raw": None},
        {
            "question_id": "E3",
            "answer": None,
            "error": "error: not asked (the run stopped)",
            "raw": None,
        },
    ]
