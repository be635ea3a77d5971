"""scoring.upload: uploaded bytes in, a table of raw cells out (CSV, JSON Lines, Parquet), with
its size, row and line limits checked before anything is parsed."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from medqade.files.problems import InputError
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.upload import read_upload
from medqade.scoring.intake.upload_cells import LINE


def test_csv_columns_normalised_and_every_row_with_its_line() -> None:
    table = read_upload(b"Question ID,Label\nQ1,Richtig\n\nQ2,Falsch\n", "a.csv", 10_000)
    assert table.format == "csv"
    assert table.columns == ["question_id", "label"]
    assert table.frame[LINE].tolist() == [2, 4]
    assert table.frame["label"].tolist() == ["Richtig", "Falsch"]


def test_jsonl_keeps_its_meta_header_apart() -> None:
    data = b'{"meta": {"model_id": "m"}}\n{"question_id": "Q1", "answer": "Femur"}\n'
    table = read_upload(data, "a.jsonl", 10_000)
    assert table.format == "jsonl"
    assert table.header_meta == {"model_id": "m"} and table.header_line == 1
    assert table.frame["answer"].tolist() == ["Femur"]
    assert table.frame[LINE].tolist() == [2]


def test_parquet_rows_are_numbered_from_one() -> None:
    buf = io.BytesIO()
    pd.DataFrame({"question_id": ["Q1", "Q2"], "answer": ["a", None]}).to_parquet(buf)
    table = read_upload(buf.getvalue(), "a.parquet", 1_000_000)
    assert table.format == "parquet" and table.row_kind == "row"
    assert table.frame["answer"].tolist() == ["a", None]
    assert table.frame[LINE].tolist() == [1, 2]


def test_limits_are_checked_before_parsing() -> None:
    data = b"question_id,label\n" + b"Q1,Richtig\n" * 20
    with pytest.raises(InputError, match="more than the limit of 100"):
        read_upload(data, "a.csv", 100)
    with pytest.raises(InputError, match="rows"):
        read_upload(data, "a.csv", 10_000, limits=Limits(max_rows=10))
    with pytest.raises(InputError, match="the file is empty"):
        read_upload(b"", "a.csv", 10_000)
