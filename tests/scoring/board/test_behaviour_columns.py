"""The leaderboard's behaviour columns (:mod:`medqade.scoring.board.behaviour_columns`), read from a
judge record's ``behaviour`` block, NaN wherever it says nothing."""

from __future__ import annotations

import math

import pytest

from medqade.scoring.board.behaviour_columns import BEHAVIOUR_COLUMNS, behaviour_columns
from medqade.scoring.record.score_record import ScoreRecord

BEHAVIOUR = {
    "position": {"p_value": 0.02},
    "caution": {
        "judge": {"slope": 0.03},
        "slope_difference": -0.01,
        "slope_difference_ci": [-0.04, 0.02],
    },
    "consistency": {
        "kappa": 0.8,
        "kappa_ci": [0.7, 0.9],
        "physicians_rerated": {"kappa": 0.75},
    },
    "cost": {"input_tokens_per_1000": 1200, "output_tokens_per_1000": 40, "eur_per_1000": 0.5},
}


def test_every_column_from_a_full_block() -> None:
    cols = behaviour_columns({"behaviour": BEHAVIOUR})
    assert list(cols) == list(BEHAVIOUR_COLUMNS)
    assert cols == {
        "caution_slope": 0.03,
        "caution_vs_physicians": -0.01,
        "caution_vs_physicians_low": -0.04,
        "caution_vs_physicians_high": 0.02,
        "caution_sparsest_tier": "",  # the block gives no questions per tier (older record)
        "self_kappa": 0.8,
        "self_kappa_low": 0.7,
        "self_kappa_high": 0.9,
        "physicians_self_kappa": 0.75,
        "position_p": 0.02,
        "tokens_per_1000": 1240.0,
        "eur_per_1000": 0.5,
    }


@pytest.mark.parametrize(
    "record",
    [
        {},
        {"behaviour": None},
        {"behaviour": {"caution": "x", "consistency": {"kappa": True, "kappa_ci": [1]}}},
    ],
)
def test_nan_where_the_block_says_nothing(record: dict[str, object]) -> None:
    cols = behaviour_columns(record)
    assert cols.pop("caution_sparsest_tier") == ""
    assert all(isinstance(v, float) and math.isnan(v) for v in cols.values())


def test_the_sparsest_caution_tier_with_its_questions() -> None:
    """The caution slope's thinnest tier, named with its count ("tier 4: 11 questions")."""
    caution = {**BEHAVIOUR["caution"], "tiers": [1, 2, 3, 4]}
    caution["judge"] = {"slope": 0.03, "questions_by_tier": [90, 67, 32, 11]}
    cols = behaviour_columns({"behaviour": {**BEHAVIOUR, "caution": caution}})
    assert cols["caution_sparsest_tier"] == "tier 4: 11 questions"
    caution["judge"] = {"slope": 0.03, "questions_by_tier": [5, 67, 32, 11]}
    cols = behaviour_columns({"behaviour": {**BEHAVIOUR, "caution": caution}})
    assert cols["caution_sparsest_tier"] == "tier 1: 5 questions"


def test_a_typed_record_reads_the_same() -> None:
    record = {"id": "x", "kind": "judge", "behaviour": BEHAVIOUR}
    typed = ScoreRecord.from_json(record)
    assert behaviour_columns(typed) == behaviour_columns(record)
    only_input = {"behaviour": {"cost": {"input_tokens_per_1000": 900}}}
    assert behaviour_columns(only_input)["tokens_per_1000"] == 900.0
