"""``detect_kind``: the kind and format of a submission from its normalised column names."""

from __future__ import annotations

import pytest

from medqade.files.problems import InputError
from medqade.scoring.intake.kinds import ANSWERS, JUDGE, KINDS, PER_QUESTION, ROWS, detect_kind


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (["question_id", "model", "label"], (JUDGE, ROWS)),
        (["answer_id", "label"], (JUDGE, ROWS)),
        (["question_id", "order", "resp_1", "resp_2"], (JUDGE, PER_QUESTION)),
        (["question_id", "resp_3"], (JUDGE, PER_QUESTION)),
        (["question_id", "answer"], (ANSWERS, ANSWERS)),
        (["question_id", "answer", "extra"], (ANSWERS, ANSWERS)),
    ],
)
def test_detects_kind_and_format(columns: list[str], expected: tuple[str, str]) -> None:
    assert detect_kind(columns, "sub.csv") == expected
    assert expected[0] in KINDS


def test_mixed_formats_are_refused() -> None:
    with pytest.raises(InputError, match="mixes per-question columns") as err:
        detect_kind(["question_id", "order", "model", "label"], "sub.csv")
    assert err.value.what == "sub.csv" and len(err.value.problems) == 1


def test_labels_without_answers_point_to_score_labels() -> None:
    with pytest.raises(InputError, match="--labels") as err:
        detect_kind(["question_id", "label"], "labels.csv")
    assert "without the answers" in err.value.problems[0].message


def test_unknown_columns_are_named() -> None:
    with pytest.raises(InputError, match="cannot tell the kind") as err:
        detect_kind(["foo", "bar"], "x.csv")
    assert err.value.problems[0].value == "bar, foo"
    with pytest.raises(InputError) as none:
        detect_kind([], "x.csv")
    assert none.value.problems[0].value == "(none)"


def test_resp_needs_a_number() -> None:
    """``resp_x`` is not a per-question column; with nothing else the kind is unknown."""
    with pytest.raises(InputError, match="cannot tell the kind"):
        detect_kind(["question_id", "resp_x"], "x.csv")
