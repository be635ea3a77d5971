"""The optional ``reviews`` table of a raw release: validated at the boundary."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.files.problems import InputError
from medqade.raw.reader import load_raw_release

CopySample = Callable[[], Path]
HEADER = "question_id,model,reviewer,codes,note\n"


def _reviews(raw: Path, *lines: str) -> None:
    (raw / "reviews.csv").write_text(HEADER + "".join(f"{x}\n" for x in lines), encoding="utf-8")


def _error(raw: Path) -> str:
    with pytest.raises(InputError) as info:
        load_raw_release(raw)
    return str(info.value)


def test_reviews_are_read_with_codes_in_codebook_order(copy_sample: CopySample) -> None:
    raw = copy_sample()
    _reviews(raw, 'S-C01,gemma3:4b,R1,"dosis; unscharf",zu vage', "S-C01,qwen3:4b,R2,treffend,")
    reviews = load_raw_release(raw).reviews
    assert reviews is not None
    rows = reviews.frame[["question_id", "model", "reviewer", "codes", "note"]].values.tolist()
    assert rows == [
        ["S-C01", "gemma3:4b", "R1", ["unscharf", "dosis"], "zu vage"],
        ["S-C01", "qwen3:4b", "R2", ["treffend"], ""],
    ]


def test_release_without_reviews_has_none(copy_sample: CopySample) -> None:
    assert load_raw_release(copy_sample()).reviews is None


def test_review_breaking_the_codebook_names_file_line_and_value(copy_sample: CopySample) -> None:
    raw = copy_sample()
    _reviews(raw, "S-C01,gemma3:4b,R1,unscharf;verfehlt,", "S-C01,qwen3:4b,R1,dosis,")
    text = _error(raw)
    assert "reviews.csv, line 2, column 'codes': codes unscharf, verfehlt of the group" in text
    assert "(value 'unscharf; verfehlt'); choose one of them" in text
    assert "reviews.csv, line 3, column 'codes': no code of the group" in text


def test_review_of_an_unknown_answer_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    _reviews(raw, "S-C99,gemma3:4b,R1,treffend,")
    text = _error(raw)
    assert "reviews.csv, line 2, column 'question_id/model': no answer S-C99/gemma3:4b" in text


def test_duplicate_review_and_empty_reviewer_are_problems(copy_sample: CopySample) -> None:
    raw = copy_sample()
    _reviews(
        raw,
        "S-C01,gemma3:4b,R1,treffend,",
        "S-C01,gemma3:4b,R1,verfehlt,",
        "S-C01,qwen3:4b,,treffend,",
    )
    text = _error(raw)
    assert "line 3, column 'question_id/model/reviewer': duplicate review" in text
    assert "line 4, column 'reviewer': empty reviewer" in text


def test_unknown_reviews_column_is_a_problem(copy_sample: CopySample) -> None:
    raw = copy_sample()
    (raw / "reviews.csv").write_text(
        "question_id,model,reviewer,codes,severity\nS-C01,gemma3:4b,R1,treffend,hoch\n",
        encoding="utf-8",
    )
    assert "unknown column 'severity'" in _error(raw)


def test_codebook_json_in_the_release_replaces_the_default(copy_sample: CopySample) -> None:
    raw = copy_sample()
    book = {
        "name": "eigen",
        "groups": [
            {"id": "art", "title": "Art", "exclusive": True, "codes": [{"id": "a1", "label": "E"}]}
        ],
    }
    (raw / "codebook.json").write_text(json.dumps(book), encoding="utf-8")
    _reviews(raw, "S-C01,gemma3:4b,R1,a1,")
    reviews = load_raw_release(raw).reviews
    assert reviews is not None and reviews.codebook.name == "eigen"
    _reviews(raw, "S-C01,gemma3:4b,R1,treffend,")
    assert "unknown code 'treffend'" in _error(raw)


def test_codebook_json_malformed_without_reviews_table(copy_sample: CopySample) -> None:
    raw = copy_sample()
    (raw / "codebook.json").write_text('{"groups": [', encoding="utf-8")
    text = _error(raw)
    assert "codebook.json, line 1: malformed JSON" in text


def test_codebook_mismatch_says_copy_it_to_raw_codebook_json(copy_sample: CopySample) -> None:
    raw = copy_sample()
    _reviews(raw, "S-C01,qwen3:4b,R1,eigen_a,", "S-C02,qwen3:4b,R1,eigen_b,")
    text = _error(raw)
    assert "reviews.csv, column 'codes': 2 code(s) are not in the codebook " in text
    assert (
        "the package's default codebook (the release has no codebook.json): eigen_a, eigen_b"
        in text
    )
    assert (
        "copy it to RAW/codebook.json (the file given to medqade import-reviews --codebook)" in text
    )
