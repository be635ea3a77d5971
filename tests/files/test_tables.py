"""Tests of medqade.files.tables: the three formats agree, BOM and encodings, editor line
numbers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from medqade.files.problems import InputError
from medqade.files.tables import CSV_LINE, LINE, find_table, read_csv_text, read_table

ROWS = [
    {"question_id": "Q1", "question": "Der ___ ist groß.", "reference_answer": "Femur"},
    {"question_id": "Q2", "question": "Größe, Maß und Übel", "reference_answer": "Straße"},
    {"question_id": "Q3", "question": 'Ein "Zitat", mit Komma', "reference_answer": ""},
]


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    pd.DataFrame(rows).to_csv(path, index=False, encoding="utf-8")


def _write_jsonl(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )


def _write_parquet(path: Path, rows: list[dict[str, str]]) -> None:
    pq.write_table(pa.Table.from_pylist(rows), path)


def test_read_table_formats_agree(tmp_path: Path) -> None:
    frames = {}
    for ext, write in (("csv", _write_csv), ("jsonl", _write_jsonl), ("parquet", _write_parquet)):
        path = tmp_path / f"questions.{ext}"
        write(path, ROWS)
        frames[ext] = read_table(path)
    data = {ext: f.drop(columns=[LINE]) for ext, f in frames.items()}
    expected = pd.DataFrame(ROWS)
    for ext, frame in data.items():
        assert list(frame.columns) == list(expected.columns), ext
        assert frame.astype(object).to_dict("records") == expected.to_dict("records"), ext
    # line numbers: CSV counts the header, JSONL counts lines, Parquet counts rows
    assert frames["csv"][LINE].tolist() == [2, 3, 4]
    assert frames["jsonl"][LINE].tolist() == [1, 2, 3]
    assert frames["parquet"][LINE].tolist() == [1, 2, 3]


def test_read_table_jsonl_scalars_become_strings(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    path.write_text('{"a": 1, "b": true, "c": null, "d": ["x", "y"]}\n', encoding="utf-8")
    row = read_table(path).iloc[0]
    assert (row["a"], row["b"], row["c"]) == ("1", "true", "")
    assert row["d"] == ["x", "y"]


def test_read_table_csv_accepts_bom(tmp_path: Path) -> None:
    path = tmp_path / "questions.csv"
    path.write_bytes(b"\xef\xbb\xbfquestion_id,question\nQ1,Gr\xc3\xb6\xc3\x9fe\n")
    frame = read_table(path)
    assert list(frame.columns) == ["question_id", "question", LINE]
    assert frame.loc[0, "question"] == "Größe"


def test_read_table_jsonl_accepts_bom(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"question_id": "Q1"}\n')
    assert read_table(path)["question_id"].tolist() == ["Q1"]


def test_read_table_latin1_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "questions.csv"
    path.write_bytes("question_id,question\nQ1,ok\nQ2,Größe\n".encode("latin-1"))
    with pytest.raises(InputError) as info:
        read_table(path)
    text = str(info.value)
    assert "questions.csv, line 3: not UTF-8" in text
    assert "save the file as UTF-8" in text


def test_read_csv_text_multiline_quoted_fields() -> None:
    text = (
        "question_id,question\n"
        'Q1,"erste Zeile\nzweite Zeile"\n'
        "Q2,einzeilig\n"
        'Q3,"a\nb\nc"\n'
        "Q4,ende\n"
    )
    frame = read_csv_text(text, "questions.csv")
    assert frame["question_id"].tolist() == ["Q1", "Q2", "Q3", "Q4"]
    assert frame[CSV_LINE].tolist() == [2, 4, 5, 8]
    assert frame.loc[0, "question"] == "erste Zeile\nzweite Zeile"


def test_read_csv_text_blank_lines_keep_editor_numbers() -> None:
    frame = read_csv_text("question_id\nQ1\n\nQ2\n", "questions.csv")
    assert frame["question_id"].tolist() == ["Q1", "Q2"]
    assert frame[CSV_LINE].tolist() == [2, 4]


def test_read_csv_text_strips_header_whitespace() -> None:
    frame = read_csv_text(" question_id , split\nQ1,core\n", "questions.csv")
    assert list(frame.columns) == ["question_id", "split", CSV_LINE]


def test_read_csv_text_extra_field_names_the_line() -> None:
    # unquoted comma: pandas alone would shift the row into the index
    text = "question_id,split,specialty\nQ1,core,Anatomie\nQ2,core,Größe, Maß\n"
    with pytest.raises(InputError) as info:
        read_csv_text(text, "questions.csv")
    assert str(info.value).endswith(
        "questions.csv, line 3: 4 fields, but the header has 3; "
        "quote fields that contain commas or line breaks"
    )


def test_read_csv_text_extra_field_in_the_first_row() -> None:
    with pytest.raises(
        InputError, match=re.escape("questions.csv, line 2: 3 fields, but the header has 2")
    ):
        read_csv_text("question_id,specialty\nQ1,Größe, Maß\nQ2,x\n", "questions.csv")


def test_read_csv_text_missing_field_names_the_line() -> None:
    with pytest.raises(
        InputError, match=re.escape("ratings.csv, line 3: 4 fields, but the header has 5")
    ):
        read_csv_text("a,b,c,d,e\n1,2,3,4,5\n1,2,3,4\n", "ratings.csv")


def test_read_csv_text_empty_file() -> None:
    with pytest.raises(InputError, match=re.escape("questions.csv: the file is empty")):
        read_csv_text("", "questions.csv")


def test_read_table_jsonl_malformed_line(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    path.write_text('{"a": "1"}\n{"a": \n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_table(path)
    text = str(info.value)
    assert "judgments.jsonl, line 2: malformed JSON" in text
    assert "judgments.jsonl, line 3: expected a JSON object" in text
    assert "2 problems found" in text


def test_read_table_parquet_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "ratings.parquet"
    path.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match=re.escape("ratings.parquet: not a readable Parquet file")):
        read_table(path)


def test_find_table_two_formats(tmp_path: Path) -> None:
    (tmp_path / "ratings.csv").write_text("a\n", encoding="utf-8")
    (tmp_path / "ratings.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError, match=re.escape("found ratings.csv, ratings.jsonl")):
        find_table(tmp_path, "ratings")


def test_find_table_missing(tmp_path: Path) -> None:
    assert find_table(tmp_path, "judgments") is None
