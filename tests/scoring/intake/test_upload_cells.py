"""scoring.upload_cells: the raw cells of an uploaded table, normalised column names and a
cell's text."""

from __future__ import annotations

import numpy as np
import pandas as pd

from medqade.scoring.intake.upload_cells import (
    LINE,
    NOT_TEXT,
    RawTable,
    cell_text,
    column_key,
    looks_like_formula,
)


def test_column_key_normalises_case_spaces_dashes_and_a_bom() -> None:
    assert column_key("\ufeff Question ID ") == "question_id"
    assert column_key('"Model-Name"') == "model_name"
    assert column_key("resp_1") == "resp_1"


def test_looks_like_formula() -> None:
    assert looks_like_formula('=HYPERLINK("x")')
    assert looks_like_formula("@SUM(A1)")
    assert looks_like_formula("=1")
    assert not looks_like_formula("-1")
    assert not looks_like_formula("Femur")


def test_cell_text_of_every_kind_of_value() -> None:
    assert cell_text("Richtig") == "Richtig"
    assert cell_text("  ") is None and cell_text(None) is None
    assert cell_text(np.bool_(True)) == "true"
    assert cell_text(np.int64(7)) == "7"
    assert cell_text(3.0) == "3" and cell_text(0.25) == "0.25"
    assert cell_text(float("nan")) is None
    assert cell_text([1, 2]) is NOT_TEXT and cell_text({"a": 1}) is NOT_TEXT


def test_raw_table_columns_leave_out_the_line() -> None:
    frame = pd.DataFrame({"question_id": ["Q1"], LINE: [2]})
    assert RawTable("a.csv", "csv", frame).columns == ["question_id"]
    assert RawTable("a.csv", "csv", frame).row_kind == "line"
    assert RawTable("a.parquet", "parquet", frame).row_kind == "row"
