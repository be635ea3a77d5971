"""Typed leaderboard rows (:mod:`medqade.scoring.board.row_types`): the frames' columns are the
rows' fields, and every row of a board reads into its dataclass and back unchanged."""

from __future__ import annotations

import math
from dataclasses import fields

import pytest

from medqade.dataset.release import Release
from medqade.scoring import (
    JUDGE_COLUMNS,
    MODEL_COLUMNS,
    JudgeRow,
    ModelRow,
    Settings,
    leaderboard,
    reference_records,
)
from medqade.scoring.board.row_types import rated_n
from medqade.scoring.record.score_record import read_record


def _same(a: object, b: object) -> bool:
    return a == b or (
        isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    )


@pytest.mark.parametrize("view", ["core", "full"])
def test_every_board_row_reads_into_its_dataclass_and_back(sample: Release, view: str) -> None:
    judges, models = leaderboard(reference_records(sample, Settings(resamples=10)), view=view)
    assert tuple(judges.columns) == JUDGE_COLUMNS == tuple(f.name for f in fields(JudgeRow))
    assert tuple(models.columns) == MODEL_COLUMNS == tuple(f.name for f in fields(ModelRow))
    assert len(judges) > 3 and len(models) > 0
    for frame, cls in ((judges, JudgeRow), (models, ModelRow)):
        for plain in frame.astype(object).to_dict("records"):
            row = cls.from_json(plain)
            back = row.to_json()
            assert list(back) == list(plain)
            assert all(_same(back[k], plain[k]) for k in plain), plain["name"]


def test_a_row_without_a_column_names_it() -> None:
    with pytest.raises(KeyError, match="kappa"):
        JudgeRow.from_json({"name": "x"} | {c: None for c in JUDGE_COLUMNS if c != "kappa"})


def test_rated_n_is_the_count_of_the_rows_scope() -> None:
    record = read_record({"core": {"n": 983, "rated": {"n": 165}}, "full": {"rated": {"n": 7}}})
    assert rated_n(record, "core") == 165 and rated_n(record, "full") == 7
    assert rated_n(read_record({"core": {"n": 3}}), "core") is None
    assert rated_n(None, "core") is None
