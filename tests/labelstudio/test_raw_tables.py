"""Tests of medqade.labelstudio.raw_tables: the columns and row order of the tables an importer
writes, appending to an existing table, CSV text and the output policy for the table's path."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest

from medqade import vocab
from medqade.files import atomic
from medqade.files.problems import InputError
from medqade.files.tables import read_table
from medqade.labelstudio.raw_tables import (
    RATING_COLUMNS,
    merge,
    rating_columns,
    sorted_rows,
    table_output,
    to_csv,
)

ROSTER = vocab.DEFAULT_ROSTER
A, B = ROSTER.student_ids[:2]
KEYS = ["question_id", "model", "rater"]


def _ratings(*rows: tuple[str, str, str, str, str]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(RATING_COLUMNS))


def test_rating_columns_add_rated_at_only_for_a_rerating() -> None:
    assert rating_columns([{"label": "Richtig"}]) == list(RATING_COLUMNS)
    assert rating_columns([{"label": "Richtig"}, {"rated_at": "2025-05-12"}]) == [
        *RATING_COLUMNS,
        "rated_at",
    ]


def test_sorted_rows_follow_item_round_roster_model_and_rater() -> None:
    frame = _ratings(
        ("Q2", "P01", A, "Richtig", "primary"),
        ("Q1", "P10", A, "Falsch", "adjudication"),
        ("Q1", "P02", B, "Richtig", "primary"),
        ("Q1", "P01", B, "Falsch", "primary"),
        ("Q1", "P03", A, "Richtig", "primary"),
    )
    out = sorted_rows(frame, ROSTER)
    assert list(out.columns) == list(RATING_COLUMNS)
    assert list(zip(out["question_id"], out["rater"], out["model"], strict=True)) == [
        ("Q1", "P03", A),
        ("Q1", "P01", B),
        ("Q1", "P02", B),
        ("Q1", "P10", A),
        ("Q2", "P01", A),
    ]


def test_merge_keeps_the_table_and_adds_the_rows() -> None:
    existing = _ratings(("Q1", "P01", A, "Richtig", "primary")).assign(note="kept")
    new = _ratings(("Q1", "P02", A, "Falsch", "primary"))
    out = merge(existing, new, KEYS, "ratings.csv", ROSTER)
    assert list(out.columns) == [*RATING_COLUMNS, "note"]
    assert out.to_dict("records") == [
        {
            "question_id": "Q1",
            "rater": "P01",
            "model": A,
            "label": "Richtig",
            "round": "primary",
            "note": "kept",
        },
        {
            "question_id": "Q1",
            "rater": "P02",
            "model": A,
            "label": "Falsch",
            "round": "primary",
            "note": "",
        },
    ]


def test_merge_refuses_a_row_held_twice_and_a_table_of_another_kind() -> None:
    row = ("Q1", "P01", A, "Richtig", "primary")
    with pytest.raises(InputError) as info:
        merge(_ratings(row), _ratings(row), KEYS, "ratings.csv", ROSTER)
    (problem,) = info.value.problems
    assert problem.message == (
        "already holds this rating as round primary (line 2), while the export's row is round "
        "primary"
    )
    assert problem.fix.startswith("this export (or one with the same ratings) is already")
    with pytest.raises(InputError, match="has no column 'rater'"):
        merge(pd.DataFrame({"question_id": ["Q1"]}), _ratings(row), KEYS, "x.csv", ROSTER)


def test_to_csv_is_read_back_by_the_csv_module() -> None:
    frame = _ratings(("Q1", "P01", A, "Keine Angabe", "primary"), ("Q,2", "P02", B, "x", "y"))
    text = to_csv(frame)
    assert "\r" not in text
    assert list(csv.reader(io.StringIO(text))) == [
        list(RATING_COLUMNS),
        ["Q1", "P01", A, "Keine Angabe", "primary"],
        ["Q,2", "P02", B, "x", "y"],
    ]


def test_table_output_needs_append_or_replace_for_an_existing_table(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    assert table_output(path, "ratings", columns=RATING_COLUMNS) == path
    path.write_text(to_csv(_ratings(("Q1", "P01", A, "Richtig", "primary"))), encoding="utf-8")
    with pytest.raises(atomic.OutputRefused):
        table_output(path, "ratings", columns=RATING_COLUMNS)
    assert table_output(path, "ratings", append=True, columns=RATING_COLUMNS) == path
    other = tmp_path / "notes.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(atomic.OutputRefused, match="is not a ratings table"):
        table_output(other, "ratings", replace=True, columns=RATING_COLUMNS)
    with pytest.raises(ValueError, match="exclude each other"):
        table_output(path, "ratings", append=True, replace=True)
    with pytest.raises(ValueError, match="writes CSV"):
        table_output(tmp_path / "ratings.json", "ratings")
    assert read_table(path)["label"].tolist() == ["Richtig"]
