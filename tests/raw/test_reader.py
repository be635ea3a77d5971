"""Tests of medqade.raw.reader: every bad-input rule names the file, the line and the value.

Each test copies ``data/sample`` to ``tmp_path``, breaks one thing, and checks the message.
Line numbers are editor lines (CSV header = line 1).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from medqade import vocab
from medqade.files.problems import InputError
from medqade.raw.reader import exact_match_items, load_raw_release, release_hash

CopySample = Callable[[], Path]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _set_line(path: Path, lineno: int, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` on editor line ``lineno`` (which must contain it)."""
    lines = _lines(path)
    assert old in lines[lineno - 1], f"{path.name}:{lineno} has no {old!r}"
    lines[lineno - 1] = lines[lineno - 1].replace(old, new, 1)
    path.write_text("".join(lines), encoding="utf-8")


def _delete_line(path: Path, lineno: int) -> str:
    lines = _lines(path)
    removed = lines.pop(lineno - 1)
    path.write_text("".join(lines), encoding="utf-8")
    return removed


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line if line.endswith("\n") else line + "\n")


def _error(raw: Path) -> InputError:
    with pytest.raises(InputError) as info:
        load_raw_release(raw)
    return info.value


# --- the clean sample ---------------------------------------------------------------------


def test_load_raw_release_sample_counts(copy_sample: CopySample) -> None:
    raw = load_raw_release(copy_sample())
    assert len(raw.questions) == 6
    assert len(raw.answers) == 30
    assert len(raw.ratings) == 150
    assert len(raw.difficulty) == 30
    assert len(raw.judgments) == 6 * 9 * 5  # long: evaluator x item x position
    assert raw.extra_columns == ("specialty",)
    assert raw.warnings == ()
    assert set(raw.ratings["label"]) == set(vocab.LABELS)


def test_load_raw_release_judgments_are_unpivoted_by_order(copy_sample: CopySample) -> None:
    raw = load_raw_release(copy_sample())
    j = raw.judgments
    # first line of judgments.jsonl: order starts with qwen3:4b, resp_1 "Richtig"
    row = j[
        (j["evaluator"] == "gemini-3-flash-preview")
        & (j["question_id"] == "S-C01")
        & (j["position"] == 1)
    ]
    assert row["model"].tolist() == ["qwen3:4b"]
    assert row["label"].tolist() == ["Richtig"]
    assert row["difficulty"].tolist() == ["Einfach"]


def test_load_raw_release_labels_aliases_are_canonicalised(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 2, "Richtig", "correct")
    _set_line(raw_dir / "ratings.csv", 32, "Falsch", " FALSE ")
    _set_line(raw_dir / "difficulty.csv", 2, "Einfach", "easy")
    raw = load_raw_release(raw_dir)
    assert raw.ratings.loc[0, "label"] == "Richtig"
    assert raw.ratings.loc[30, "label"] == "Falsch"
    assert raw.difficulty.loc[0, "difficulty"] == "Einfach"


def test_load_raw_release_formats_agree(copy_sample: CopySample) -> None:
    csv_dir, other = copy_sample(), copy_sample()
    ratings = pd.read_csv(other / "ratings.csv", dtype=str, keep_default_na=False)
    (other / "ratings.csv").unlink()
    pq.write_table(pa.Table.from_pandas(ratings, preserve_index=False), other / "ratings.parquet")
    questions = pd.read_csv(other / "questions.csv", dtype=str, keep_default_na=False)
    (other / "questions.csv").unlink()
    (other / "questions.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in questions.to_dict("records")),
        encoding="utf-8",
    )
    a, b = load_raw_release(csv_dir), load_raw_release(other)
    pd.testing.assert_frame_equal(a.ratings.astype(object), b.ratings.astype(object))
    pd.testing.assert_frame_equal(a.questions.astype(object), b.questions.astype(object))
    assert a.source_hash != b.source_hash


def test_release_hash_changes_with_any_table_byte(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    before = release_hash(raw_dir)
    assert release_hash(raw_dir) == before
    _set_line(raw_dir / "difficulty.csv", 2, "Einfach", "Mittel")
    assert release_hash(raw_dir) != before


def test_exact_match_items_strict_equality(copy_sample: CopySample) -> None:
    raw = load_raw_release(copy_sample())
    # S-C01 Femur, S-E01 Nervus medianus, S-E03 McBurney-Punkt, S-E04 Pneumokokken;
    # S-C02 (Acetylcystein vs N-Acetylcystein) and S-E02 (0 negativ vs 0 Rh-negativ) do not
    assert exact_match_items(raw.questions, raw.answers) == {"S-C01", "S-E01", "S-E03", "S-E04"}


# --- one test per bad-input rule -----------------------------------------------------------


def test_load_raw_release_unknown_label(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 5, "Richtig", "Richtigg")
    err = _error(raw_dir)
    assert len(err.problems) == 1
    text = str(err)
    assert "ratings.csv, line 5, column 'label': unknown label 'Richtigg'" in text
    assert "(value 'Richtigg')" in text


def test_load_raw_release_unknown_model(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 12, "gpt-5-nano", "gpt-4o")
    text = str(_error(raw_dir))
    assert "ratings.csv, line 12, column 'model': unknown student model (value 'gpt-4o')" in text
    assert "use one of gemini-2.5-flash" in text


def test_load_raw_release_unknown_model_in_answers(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "answers.csv", 3, "gpt-5-nano", "gpt-4o")
    text = str(_error(raw_dir))
    assert "answers.csv, line 3, column 'model': unknown student model (value 'gpt-4o')" in text


def test_load_raw_release_unknown_rater(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 2, "P01", "P11")
    text = str(_error(raw_dir))
    assert "ratings.csv, line 2, column 'rater': unknown rater (value 'P11')" in text


def test_load_raw_release_unknown_rater_in_difficulty(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "difficulty.csv", 4, "P03", "Dr. X")
    text = str(_error(raw_dir))
    assert "difficulty.csv, line 4, column 'rater': unknown rater (value 'Dr. X')" in text


def test_load_raw_release_rating_question_not_in_questions(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 102, "S-E01", "S-E99")
    text = str(_error(raw_dir))
    assert (
        "ratings.csv, line 102, column 'question_id': question id not in the questions table "
        "(value 'S-E99')"
    ) in text


def test_load_raw_release_answer_question_not_in_questions(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "answers.csv", 16, "S-E01", "S-E99")
    err = _error(raw_dir)
    text = str(err)
    assert "answers.csv, line 16, column 'question_id': question id not in the questions" in text
    assert "(value 'S-E99')" in text
    # the item that lost its answer is reported too
    assert "question S-E01 has 4 answers, expected 5" in text


def test_load_raw_release_duplicate_rating(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    ratings = raw_dir / "ratings.csv"
    n_lines = len(_lines(ratings))
    _append(ratings, "S-C02,P03,gpt-5-nano,Falsch,primary")
    text = str(_error(raw_dir))
    assert f"ratings.csv, line {n_lines + 1}, column 'question_id/model/rater': " in text
    assert "duplicate rating (value 'S-C02/gpt-5-nano/P03')" in text


def test_load_raw_release_duplicate_difficulty(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _append(raw_dir / "difficulty.csv", "S-E03,P05,Schwer")
    text = str(_error(raw_dir))
    assert "difficulty.csv, line 32" in text
    assert "duplicate difficulty rating (value 'S-E03/P05')" in text


def test_load_raw_release_item_with_four_answers(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    removed = _delete_line(raw_dir / "answers.csv", 16)
    assert removed.startswith("S-E01,qwen3:4b")
    err = _error(raw_dir)
    assert len(err.problems) == 1
    text = str(err)
    assert "answers.csv, line 12, column 'question_id': question S-E01 has 4 answers" in text
    assert "(value 'S-E01')" in text


def test_load_raw_release_core_item_missing_rating_is_a_warning(
    copy_sample: CopySample,
) -> None:
    raw_dir = copy_sample()
    _delete_line(raw_dir / "ratings.csv", 14)  # S-C01, P03, gpt-5-nano
    raw = load_raw_release(raw_dir)
    assert len(raw.ratings) == 149
    assert [str(w) for w in raw.warnings] == [
        "ratings.csv, column 'question_id': core answer S-C01/gpt-5-nano has 9 of 10 physician "
        "ratings (value 'S-C01'); missing ratings are excluded from every statistic"
    ]


def test_load_raw_release_question_without_ratings(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    ratings = raw_dir / "ratings.csv"
    kept = [line for line in _lines(ratings) if not line.startswith("S-E03,")]
    ratings.write_text("".join(kept), encoding="utf-8")
    text = str(_error(raw_dir))
    assert "question S-E03 has no physician ratings (value 'S-E03')" in text


def test_load_raw_release_malformed_judgments_line(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    path = raw_dir / "judgments.jsonl"
    lines = _lines(path)
    lines[4] = lines[4].rstrip("\n")[:-1] + "\n"  # drop the closing brace of line 5
    path.write_text("".join(lines), encoding="utf-8")
    err = _error(raw_dir)
    assert len(err.problems) == 1
    text = str(err)
    assert "judgments.jsonl, line 5: malformed JSON" in text
    assert '(value \'{"evaluator": "gpt-5.4-nano", "question_id": "S-C01"' in text


def test_load_raw_release_latin1_questions(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    path = raw_dir / "questions.csv"
    path.write_bytes(path.read_text(encoding="utf-8").encode("latin-1"))
    err = _error(raw_dir)
    text = str(err)
    # line 2 ("Der längste Röhrenknochen ...") holds the first non-ASCII byte
    assert "questions.csv, line 2: not UTF-8: byte b'\\xe4'" in text
    assert "save the file as UTF-8" in text


def test_load_raw_release_lexical_match_column_agrees(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    q = pd.read_csv(raw_dir / "questions.csv", dtype=str, keep_default_na=False)
    q["lexical_match"] = ["true", "false", "true", "false", "true", "true"]
    q.to_csv(raw_dir / "questions.csv", index=False)
    raw = load_raw_release(raw_dir)
    assert "lexical_match" not in raw.questions.columns  # computed by the build, never passed on
    assert "lexical_match" not in raw.extra_columns


def test_load_raw_release_lexical_match_column_disagrees(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    q = pd.read_csv(raw_dir / "questions.csv", dtype=str, keep_default_na=False)
    # truth: S-C01, S-E01, S-E03, S-E04 match; S-C02 and S-E02 do not
    q["lexical_match"] = ["true", "true", "true", "true", "false", "true"]
    q.to_csv(raw_dir / "questions.csv", index=False)
    err = _error(raw_dir)
    assert len(err.problems) == 3
    text = str(err)
    assert "questions.csv, line 3, column 'lexical_match': item S-C02: " in text
    assert "questions.csv, line 5, column 'lexical_match': item S-E02: " in text
    assert "questions.csv, line 6, column 'lexical_match': item S-E03: " in text
    assert "item S-C02: lexical_match says True but the answers say False (value 'true')" in text
    assert "item S-E03: lexical_match says False but the answers say True (value 'false')" in text


def test_load_raw_release_adjudication_by_non_adjudicator(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 122, "P10", "P05")
    err = _error(raw_dir)
    assert len(err.problems) == 1
    text = str(err)
    assert "ratings.csv, line 122, column 'rater': only the adjudicator P10 rates" in text
    assert "(value 'P05')" in text


def test_load_raw_release_unknown_round(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 2, "primary", "erste")
    text = str(_error(raw_dir))
    assert "ratings.csv, line 2, column 'round': unknown round (value 'erste')" in text


def test_load_raw_release_bad_order_in_judgments(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "judgments.jsonl", 3, '"gemma3:4b", "qwen3:4b"', '"gemma3:4b", "gemma3:4b"')
    err = _error(raw_dir)
    assert len(err.problems) == 1
    text = str(err)
    assert "judgments.jsonl, line 3, column 'order': order must list the five student ids" in text
    assert "gemma3:4b', 'gemma3:4b'" in text


def test_load_raw_release_unknown_evaluator(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "judgments.jsonl", 7, '"gemma3:27b"', '"llama3:70b"')
    text = str(_error(raw_dir))
    assert (
        "judgments.jsonl, line 7, column 'evaluator': unknown evaluator (value 'llama3:70b')"
        in (text)
    )


def test_load_raw_release_bad_judge_label(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "judgments.jsonl", 9, '"resp_1": "Falsch"', '"resp_1": "Teilweise"')
    text = str(_error(raw_dir))
    assert "judgments.jsonl, line 9, column 'resp_1': unknown label 'Teilweise'" in text


def test_load_raw_release_judgments_optional(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    (raw_dir / "judgments.jsonl").unlink()
    raw = load_raw_release(raw_dir)
    assert raw.judgments.empty
    assert list(raw.judgments.columns) == [
        "question_id",
        "model",
        "evaluator",
        "label",
        "difficulty",
        "position",
    ]


def test_load_raw_release_missing_table(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    (raw_dir / "difficulty.csv").unlink()
    text = str(_error(raw_dir))
    assert "difficulty.csv: table 'difficulty' not found in the release" in text


def test_load_raw_release_missing_column(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 1, ",round", ",runde")
    text = str(_error(raw_dir))
    assert "ratings.csv: missing required column(s) round" in text


def test_load_raw_release_reserved_question_column(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    q = pd.read_csv(raw_dir / "questions.csv", dtype=str, keep_default_na=False)
    q["canary"] = "x"
    q.to_csv(raw_dir / "questions.csv", index=False)
    text = str(_error(raw_dir))
    assert "questions.csv, column 'canary': an extra column may not have the name" in text
    assert "rename it (e.g. to source_canary)" in text


def test_load_raw_release_several_problems_in_one_message(copy_sample: CopySample) -> None:
    raw_dir = copy_sample()
    _set_line(raw_dir / "ratings.csv", 5, "Richtig", "Jein")
    _set_line(raw_dir / "ratings.csv", 2, "P01", "P11")
    _set_line(raw_dir / "answers.csv", 3, "gpt-5-nano", "gpt-4o")
    _set_line(raw_dir / "difficulty.csv", 2, "Einfach", "trivial")
    _set_line(raw_dir / "judgments.jsonl", 3, '"gemma3:4b", "qwen3:4b"', '"gemma3:4b", "x"')
    err = _error(raw_dir)
    text = str(err)
    assert text.startswith(f"raw release {raw_dir.name}: 5 problems found\n")
    for needle in (
        "ratings.csv, line 5, column 'label': unknown label 'Jein'",
        "ratings.csv, line 2, column 'rater': unknown rater (value 'P11')",
        "answers.csv, line 3, column 'model': unknown student model (value 'gpt-4o')",
        "difficulty.csv, line 2, column 'difficulty': unknown difficulty 'trivial'",
        "judgments.jsonl, line 3, column 'order': order must list the five student ids",
    ):
        assert needle in text
    assert len(err.problems) == 5
    assert {p.file for p in err.problems} == {
        "ratings.csv",
        "answers.csv",
        "difficulty.csv",
        "judgments.jsonl",
    }


def test_load_raw_release_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        load_raw_release(tmp_path / "nope")


# --- roster.json types (issue 23) -----------------------------------------------------------


def _roster_error(copy_sample: CopySample, roster: object) -> str:
    raw = copy_sample()
    (raw / "roster.json").write_text(json.dumps(roster), encoding="utf-8")
    return str(_error(raw))


def test_roster_students_as_number(copy_sample: CopySample) -> None:
    text = _roster_error(copy_sample, {"students": 5})
    assert text.endswith(
        "1 problem found\n  - roster.json: roster 'students' must be a list of models "
        '({"id": ..., "name": ..., "family": ...}), got a number'
    )


def test_roster_physicians_null(copy_sample: CopySample) -> None:
    text = _roster_error(copy_sample, {"physicians": None})
    assert "roster.json: roster 'physicians' must be a list of ids (text), got null" in text


def test_roster_physicians_as_string(copy_sample: CopySample) -> None:
    text = _roster_error(copy_sample, {"physicians": "P01", "adjudicator": "P01"})
    assert text.endswith(
        "1 problem found\n  - roster.json: roster 'physicians' must be a list of ids (text), "
        "got text: 'P01'"
    )
    assert "unknown rater" not in text


def test_roster_synthetic_as_string(copy_sample: CopySample) -> None:
    text = _roster_error(copy_sample, {"synthetic": "false"})
    assert (
        "roster.json: roster 'synthetic' must be true or false (a JSON boolean), got text "
        "'false'" in text
    )


def test_roster_evaluator_id_physicians_reserved(copy_sample: CopySample) -> None:
    evaluators = [m.__dict__ for m in vocab.DEFAULT_ROSTER.evaluators]
    evaluators.append({"id": "physicians", "name": "Panel", "family": "X"})
    text = _roster_error(copy_sample, {"evaluators": evaluators})
    assert "roster evaluators[9]: the id 'physicians' is reserved" in text
