"""When two answers are the same (:mod:`medqade.scoring.intake.normalize`): one key, and the
similarities the anchoring reports."""

from __future__ import annotations

import pytest

from medqade.scoring.intake.normalize import (
    char_ngram_dice,
    char_ngrams,
    fuzzy_ratio,
    normalise,
    token_f1,
    tokens,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Fußpilz", "FUSSPILZ"),
        ("  „Nervus   medianus.“ ", "nervus medianus"),
        ("ＡＳＳ", "ass"),  # fullwidth letters (NFKC)
        ("Femur!", "femur"),
    ],
)
def test_the_same_answer_has_one_key(a: str, b: str) -> None:
    assert normalise(a) == normalise(b)


def test_articles_are_stripped_only_when_asked_and_never_to_nothing() -> None:
    assert normalise("Der Nervus medianus", strip_articles=True) == "nervus medianus"
    assert normalise("Der Nervus medianus") == "der nervus medianus"
    assert normalise("die", strip_articles=True) == "die"


def test_similarities() -> None:
    assert tokens("Der N. medianus") == ["der", "n", "medianus"]
    assert token_f1("Nervus medianus", "der Nervus medianus") == pytest.approx(0.8)
    assert token_f1("", "Femur") == 0.0 and token_f1("Tibia", "Femur") == 0.0
    assert char_ngrams("ab") == {" ab": 1, "ab ": 1}
    assert char_ngram_dice("Femur", "femur") == 1.0
    assert 0.0 < char_ngram_dice("Femur", "Femurs") < 1.0
    assert char_ngram_dice("abc", "xyz") == 0.0
    assert fuzzy_ratio("Aspirin", "ASPIRIN") == 1.0
    assert fuzzy_ratio("abcd", "abxy") == pytest.approx(0.5)
