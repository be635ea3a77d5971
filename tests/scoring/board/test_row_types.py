"""Typed leaderboard rows (:mod:`medqade.scoring.board.row_types`): the frames' columns are the
rows' export fields with each interval flattened in place, every row of a board reads into its
dataclass and back unchanged, and the display-only fields are never a column."""

from __future__ import annotations

import math
from dataclasses import fields

import pytest

from medqade.dataset.release import Release
from medqade.scoring import (
    JUDGE_COLUMNS,
    MODEL_COLUMNS,
    Interval,
    JudgeRow,
    ModelRow,
    Settings,
    leaderboard,
    reference_records,
)
from medqade.scoring.board.row_types import columns


def _same(a: object, b: object) -> bool:
    return a == b or (
        isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    )


@pytest.mark.parametrize("view", ["core", "full"])
def test_every_board_row_reads_into_its_dataclass_and_back(sample: Release, view: str) -> None:
    board = leaderboard(reference_records(sample, Settings(resamples=10)), view=view)
    judges, models = board.judges_frame(), board.models_frame()
    assert tuple(judges.columns) == JUDGE_COLUMNS == columns(JudgeRow)
    assert tuple(models.columns) == MODEL_COLUMNS == columns(ModelRow)
    assert len(judges) > 3 and len(models) > 0
    for frame, typed, cls in ((judges, board.judges, JudgeRow), (models, board.models, ModelRow)):
        assert len(typed) == len(frame)
        for plain, shown in zip(frame.astype(object).to_dict("records"), typed, strict=True):
            row = cls.from_json(plain)
            back = row.to_json()
            assert list(back) == list(plain)
            assert all(_same(back[k], plain[k]) for k in plain), plain["name"]
            assert shown.to_json().keys() == plain.keys() and shown.name == plain["name"]


def test_an_interval_field_is_its_three_columns_in_place() -> None:
    """One :class:`Interval` per interval column group, flattened where the pair stood; the
    models' bounds keep only the end each column shows (``lower_low``, ``upper_high``)."""
    names = [f.name for f in fields(JudgeRow)]
    assert names.index("kappa") < names.index("pa") < names.index("n")
    at = JUDGE_COLUMNS.index("kappa")
    assert JUDGE_COLUMNS[at : at + 4] == ("kappa", "kappa_low", "kappa_high", "pa")
    at = JUDGE_COLUMNS.index("d")
    assert JUDGE_COLUMNS[at : at + 4] == ("d", "d_low", "d_high", "margin")
    for name in ("self_bias", "caution_vs_physicians", "self_kappa", "d_physicians"):
        assert f"{name}_low" in JUDGE_COLUMNS and f"{name}_low" not in names
    at = MODEL_COLUMNS.index("lower")
    assert MODEL_COLUMNS[at : at + 5] == ("lower", "lower_low", "upper", "upper_high", "coverage")
    plain = {c: None for c in MODEL_COLUMNS} | {"lower": 0.4, "lower_low": 0.3, "upper_high": 0.9}
    row = ModelRow.from_json(plain)
    assert (row.lower.value, row.lower.low) == (0.4, 0.3) and math.isnan(row.lower.high)
    assert isinstance(row.accuracy, Interval) and row.accuracy.value is None
    assert row.upper.high == 0.9 and row.to_json() == plain


def test_display_only_fields_are_no_column() -> None:
    """Verified status, organisation and the models' breakdowns are shown, never exported."""
    display = {"verified", "organisation", "tiers", "exact_match", "no_match"}
    every = {f.name for cls in (JudgeRow, ModelRow) for f in fields(cls)}
    assert display <= every
    assert not display & {*JUDGE_COLUMNS, *MODEL_COLUMNS}
    plain = {c: None for c in JUDGE_COLUMNS} | {"name": "J"}
    row = JudgeRow.from_json(plain)
    assert row.verified is False and row.organisation is None
    assert row.to_json() == plain


def test_a_row_without_a_column_names_it() -> None:
    with pytest.raises(KeyError, match="kappa"):
        JudgeRow.from_json({"name": "x"} | {c: None for c in JUDGE_COLUMNS if c != "kappa"})
