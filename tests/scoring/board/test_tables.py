"""The leaderboard's tables (:mod:`medqade.scoring.board.tables`): the margins a board offers
and the rows it ranks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from medqade.dataset.release import Release
from medqade.scoring import Settings, reference_records
from medqade.scoring.board.tables import board_margin, board_settings, leaderboard, rows
from medqade.scoring.metrics.records import SCHEMA_VERSION
from medqade.scoring.record.score_record import ScoreRecord

RECORDS = Path(__file__).resolve().parents[2] / "fixtures" / "records"


@pytest.mark.parametrize("value", [0, 0.0, 0.05, 0.07, 0.1, 0.33, 1, 1.0, 0.07000000000000001])
def test_board_margin_takes_the_grid_and_canonicalises(value: float) -> None:
    got = board_margin(value)
    assert got == round(float(value), 2)
    assert repr(got) == repr(round(float(value), 2))  # one key per grid value


@pytest.mark.parametrize("value", [0.015, 0.0701, 0.05 + 1e-4, -0.01, 1.01, math.nan, "0.05", True])
def test_board_margin_refuses_what_the_page_does_not_offer(value: object) -> None:
    with pytest.raises(ValueError, match="margin"):
        board_margin(value)


def test_board_settings_is_the_most_common_bootstrap(sample: Release) -> None:
    """The reference rows share the board's resamples and seed."""
    refs = reference_records(sample, Settings(resamples=10, seed=3))
    assert board_settings(refs) == (10, 3)
    assert board_settings([]) is None


def test_rows_give_none_for_missing_values(sample: Release) -> None:
    judges = leaderboard(
        reference_records(sample, Settings(resamples=10)), view="core"
    ).judges_frame()
    plain = rows(judges)
    assert len(plain) == len(judges) and list(plain[0]) == list(judges.columns)
    for row in plain:
        for value in row.values():
            assert not (isinstance(value, float) and math.isnan(value))


def test_the_fixture_judge_is_shown_unranked(sample: Release) -> None:
    """A submitted, unverified judge is on the board without a rank."""
    stored = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RECORDS.glob("*.json"))]
    judge = next(r for r in stored if r["kind"] == "judge") | {"schema_version": SCHEMA_VERSION}
    frame = leaderboard([ScoreRecord.from_json(judge)], view="core").judges_frame()
    (row,) = frame.astype(object).to_dict("records")
    assert row["name"] == "Fixture judge" and row["status"] == "unverified"
    assert pd.isna(row["rank"]) and pd.isna(row["rank_worst"])
    assert row["kappa"] == judge["core"]["kappa"]
