"""The German prompts, the user messages and the judge's JSON Schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.runners.prompts import (
    JUDGE_SYSTEM_PROMPT,
    STUDENT_SYSTEM_PROMPT,
    judge_schema,
    judge_user_message,
    load_prompt,
    response_keys,
    student_user_message,
)
from medqade.vocab import DIFFICULTIES, EMPTY_ANSWER, LABELS


def test_student_prompt_states_the_four_rules() -> None:
    text = STUDENT_SYSTEM_PROMPT
    assert "genau einer Lücke" in text
    assert "nur das Wort oder den kurzen Fachbegriff" in text
    assert "Fachterminologie" in text
    assert "genau eine Lösung" in text
    assert "Erklärungen" in text and "Satzzeichen" in text


def test_judge_prompt_names_every_label_and_difficulty() -> None:
    for word in (*LABELS, *DIFFICULTIES):
        assert word in JUDGE_SYSTEM_PROMPT
    for part in ("# Ihre Rolle", "# Kategorien", "# Beispiele", "# Schwierigkeit"):
        assert part in JUDGE_SYSTEM_PROMPT


def test_judge_schema_is_strict_enum_of_the_vocabulary() -> None:
    rf = judge_schema()
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["strict"] is True
    schema = rf["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == [*response_keys(5), "difficulty"]
    for key in response_keys(5):
        assert schema["properties"][key]["enum"] == list(LABELS)
    assert schema["properties"]["difficulty"]["enum"] == list(DIFFICULTIES)


def test_judge_user_message_numbers_answers_and_marks_empty_ones() -> None:
    text = judge_user_message("Frage ___.", "Ref", ["A", None, " ", "D", "E"])
    assert "Frage: Frage ___." in text
    assert "Musterlösung (nur zur Orientierung): Ref" in text
    assert "Antwort 1: A\n" in text
    assert f"Antwort 2: {EMPTY_ANSWER}\n" in text
    assert f"Antwort 3: {EMPTY_ANSWER}\n" in text
    assert "Antwort 5: E\n" in text
    assert "resp_1, resp_2, resp_3, resp_4, resp_5 und difficulty" in text


def test_student_user_message_is_the_question() -> None:
    assert student_user_message("  Das Antidot ist ___.\n") == "Das Antidot ist ___."


def test_load_prompt_reads_utf8(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("Prüfung", encoding="utf-8")
    assert load_prompt(path) == "Prüfung"


def test_load_prompt_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("  \n", encoding="utf-8")
    with pytest.raises(ValueError, match="the file is empty"):
        load_prompt(path)


def test_load_prompt_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes("Prüfung".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8 text"):
        load_prompt(path)
