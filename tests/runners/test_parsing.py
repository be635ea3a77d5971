"""Reply text -> student answer or judge verdict, or InvalidOutput; never a guess."""

from __future__ import annotations

import json

import pytest

from medqade.runners.parsing import (
    InvalidOutput,
    parse_judge_output,
    parse_student_output,
    strip_reasoning,
)
from medqade.vocab import FALSCH, KEINE_ANGABE, MITTEL, RICHTIG, SCHWER

VALID = {
    "resp_1": RICHTIG,
    "resp_2": FALSCH,
    "resp_3": KEINE_ANGABE,
    "resp_4": RICHTIG,
    "resp_5": FALSCH,
    "difficulty": MITTEL,
}


def test_parse_judge_output_valid() -> None:
    verdict = parse_judge_output(json.dumps(VALID))
    assert verdict.labels == (RICHTIG, FALSCH, KEINE_ANGABE, RICHTIG, FALSCH)
    assert verdict.difficulty == MITTEL
    assert verdict.to_dict() == VALID


def test_parse_judge_output_code_fence_and_reasoning() -> None:
    text = "<think>hmm</think>\n```json\n" + json.dumps(VALID) + "\n```"
    assert parse_judge_output(text).to_dict() == VALID


def test_parse_judge_output_canonicalises_through_vocab() -> None:
    data = dict(VALID, resp_1="richtig", difficulty="schwer", comment="extra keys are ignored")
    verdict = parse_judge_output(json.dumps(data))
    assert verdict.labels[0] == RICHTIG
    assert verdict.difficulty == SCHWER


def test_parse_judge_output_no_json() -> None:
    with pytest.raises(InvalidOutput, match="no JSON object in the reply"):
        parse_judge_output("Antwort 1 ist richtig.")


def test_parse_judge_output_not_an_object() -> None:
    with pytest.raises(InvalidOutput, match="expected a JSON object, got list"):
        parse_judge_output("[1, 2]")


def test_parse_judge_output_missing_key() -> None:
    data = {k: v for k, v in VALID.items() if k != "resp_4"}
    with pytest.raises(InvalidOutput, match="missing keys: resp_4"):
        parse_judge_output(json.dumps(data))


def test_parse_judge_output_label_outside_the_set() -> None:
    with pytest.raises(InvalidOutput, match="resp_2: label 'Vielleicht' is not one of"):
        parse_judge_output(json.dumps(dict(VALID, resp_2="Vielleicht")))


def test_parse_judge_output_null_label() -> None:
    with pytest.raises(InvalidOutput, match="resp_3: label None"):
        parse_judge_output(json.dumps(dict(VALID, resp_3=None)))


def test_parse_judge_output_difficulty_outside_the_set() -> None:
    with pytest.raises(InvalidOutput, match="difficulty 'Extrem' is not a difficulty"):
        parse_judge_output(json.dumps(dict(VALID, difficulty="Extrem")))


def test_parse_student_output_strips_reasoning_and_space() -> None:
    assert parse_student_output("<think>\nHmm.\n</think>\n  Femur \n") == "Femur"
    assert strip_reasoning("Femur") == "Femur"


def test_parse_student_output_empty() -> None:
    with pytest.raises(InvalidOutput, match="empty answer"):
        parse_student_output("<think>only thoughts</think>  ")
