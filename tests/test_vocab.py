"""Tests of medqade.vocab: label aliases, difficulty, tiers and the roster (oracle: the methods
digest, sections 1, 2, 4 and 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from medqade import vocab
from medqade.vocab import DEFAULT_ROSTER, Roster, parse_difficulty, parse_label, tier_of


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Richtig", "Richtig"),
        ("Falsch", "Falsch"),
        ("Keine Angabe", "Keine Angabe"),
        ("correct", "Richtig"),
        ("incorrect", "Falsch"),
        ("abstain", "Keine Angabe"),
        ("true", "Richtig"),
        ("false", "Falsch"),
        ("TRUE", "Richtig"),
        ("  richtig  ", "Richtig"),
        ("FALSCH", "Falsch"),
        ("keine  angabe", "Keine Angabe"),
        ("keine_angabe", "Keine Angabe"),
        ("Keine\tAngabe\n", "Keine Angabe"),
        (True, "Richtig"),
        (False, "Falsch"),
        (1, "Richtig"),
        (0, "Falsch"),
    ],
)
def test_parse_label_aliases(value: object, expected: str) -> None:
    assert parse_label(value) == expected


def test_parse_label_returns_the_vocabulary_constants() -> None:
    assert parse_label("correct") is vocab.RICHTIG
    assert {parse_label(x) for x in ("correct", "incorrect", "abstain")} == set(vocab.LABELS)


@pytest.mark.parametrize("value", ["Richtigg", "maybe", "", "2", None])
def test_parse_label_unknown(value: object) -> None:
    with pytest.raises(ValueError, match=r"unknown label .*: use one of Richtig, Falsch, Keine"):
        parse_label(value)


def test_parse_label_unknown_message_shows_the_value() -> None:
    with pytest.raises(ValueError) as info:
        parse_label("Vielleicht")
    assert "'Vielleicht'" in str(info.value)
    assert "correct / incorrect / abstain" in str(info.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Einfach", "Einfach"),
        ("easy", "Einfach"),
        (" MITTEL ", "Mittel"),
        ("medium", "Mittel"),
        ("hard", "Schwer"),
        ("2", "Schwer"),
        (0, "Einfach"),
    ],
)
def test_parse_difficulty_aliases(value: object, expected: str) -> None:
    assert parse_difficulty(value) == expected


def test_parse_difficulty_unknown() -> None:
    with pytest.raises(ValueError, match=r"unknown difficulty 'sehr schwer': use one of Einfach"):
        parse_difficulty("sehr schwer")


def test_difficulty_scores_match_the_digest() -> None:
    assert dict(vocab.DIFFICULTY_SCORES) == {"Einfach": 0, "Mittel": 1, "Schwer": 2}


def test_label_codes_round_trip() -> None:
    assert dict(vocab.LABEL_CODES) == {"Falsch": 0, "Richtig": 1, "Keine Angabe": 2}
    assert all(vocab.CODE_LABELS[c] == label for label, c in vocab.LABEL_CODES.items())


@pytest.mark.parametrize(
    ("mean", "tier"),
    [
        (0.0, 1),
        (0.5, 1),
        (0.5001, 2),
        (1.0, 2),
        (1.0001, 3),
        (1.5, 3),
        (1.5001, 4),
        (2.0, 4),
        (math.nan, 0),
    ],
)
def test_tier_of_edges(mean: float, tier: int) -> None:
    assert tier_of(mean).item() == tier


def test_tier_of_vector_keeps_shape_and_dtype() -> None:
    got = tier_of([[0.0, 0.5, 0.75], [1.25, 2.0, np.nan]])
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, [[1, 1, 2], [3, 4, 0]])


def test_roster_students_match_the_digest() -> None:
    # methods digest, section 1 (student table)
    expected = [
        ("gemini-2.5-flash", "Gemini 2.5 Flash", "Gemini"),
        ("gpt-5-nano", "GPT-5 Nano", "GPT"),
        ("gemma3:27b", "Gemma 3 27B", "Gemma"),
        ("gemma3:4b", "Gemma 3 4B", "Gemma"),
        ("qwen3:4b", "Qwen3-4B", "Qwen"),
    ]
    assert [(m.id, m.name, m.family) for m in DEFAULT_ROSTER.students] == expected


def test_roster_evaluators_match_the_digest() -> None:
    # methods digest, section 5: the five students plus four more
    extra = {
        "gemini-3-flash-preview": ("Gemini 3 Flash", "Gemini"),
        "gemini-2.5-flash-lite": ("Gemini 2.5 Flash-Lite", "Gemini"),
        "gpt-5.4-nano": ("GPT-5.4 Nano", "GPT"),
        "gpt-5.4-mini": ("GPT-5.4 Mini", "GPT"),
    }
    evaluators = {m.id: (m.name, m.family) for m in DEFAULT_ROSTER.evaluators}
    assert len(DEFAULT_ROSTER.evaluators) == 9
    assert set(evaluators) == set(extra) | set(DEFAULT_ROSTER.student_ids)
    for model_id, name_family in extra.items():
        assert evaluators[model_id] == name_family
    assert DEFAULT_ROSTER.families == ("Gemini", "GPT", "Gemma", "Qwen")


def test_roster_physicians_match_the_digest() -> None:
    # methods digest, section 2: ten physicians, nine primary, the tenth adjudicates
    assert DEFAULT_ROSTER.physicians == tuple(f"P{i:02d}" for i in range(1, 11))
    assert DEFAULT_ROSTER.adjudicator == "P10"
    assert DEFAULT_ROSTER.primary_raters == tuple(f"P{i:02d}" for i in range(1, 10))


def test_roster_family_and_name_lookup() -> None:
    assert DEFAULT_ROSTER.family("gemma3:27b") == "Gemma"
    assert DEFAULT_ROSTER.name("gpt-5.4-mini") == "GPT-5.4 Mini"
    with pytest.raises(KeyError):
        DEFAULT_ROSTER.family("llama3:8b")


def test_roster_to_dict_round_trip() -> None:
    assert Roster.from_dict(DEFAULT_ROSTER.to_dict()) == DEFAULT_ROSTER


def test_roster_from_dict_override_physicians() -> None:
    roster = Roster.from_dict({"physicians": ["A", "B", "C"], "adjudicator": "C"})
    assert roster.physicians == ("A", "B", "C")
    assert roster.primary_raters == ("A", "B")
    assert roster.students == DEFAULT_ROSTER.students  # missing keys fall back to the paper
    assert roster.ensemble_pool == DEFAULT_ROSTER.ensemble_pool


def test_roster_from_dict_override_evaluators() -> None:
    roster = Roster.from_dict({"evaluators": [{"id": "judge-a", "family": "X"}], "synthetic": True})
    assert roster.evaluator_ids == ("judge-a",)
    assert roster.name("judge-a") == "judge-a"  # name defaults to the id
    assert roster.ensemble_pool == ()  # the paper's pool names evaluators no longer present
    assert roster.synthetic is True
    assert roster.families == ("Gemini", "GPT", "Gemma", "Qwen", "X")


def test_roster_from_dict_unknown_key() -> None:
    with pytest.raises(ValueError, match=r"unknown roster keys \['raters'\]"):
        Roster.from_dict({"raters": ["P01"]})


def test_roster_from_dict_adjudicator_not_a_physician() -> None:
    with pytest.raises(ValueError, match="adjudicator 'P11' is not one of the physicians"):
        Roster.from_dict({"adjudicator": "P11"})


def test_roster_from_dict_wrong_number_of_students() -> None:
    with pytest.raises(ValueError, match="exactly 5 students, got 1"):
        Roster.from_dict({"students": [{"id": "a", "family": "A"}]})


def test_roster_from_dict_model_without_family() -> None:
    with pytest.raises(ValueError, match=r"roster evaluators\[0\] needs 'id' and 'family'"):
        Roster.from_dict({"evaluators": [{"id": "judge-a"}]})


def test_roster_from_dict_duplicate_physician() -> None:
    with pytest.raises(ValueError, match="duplicate physician id"):
        Roster.from_dict({"physicians": ["P01", "P01", "P10"]})
