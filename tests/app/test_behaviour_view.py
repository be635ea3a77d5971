"""The Space's behaviour columns and figures (medqade.app.behaviour_view): formatting only."""

from __future__ import annotations

import math

from medqade.app import behaviour_view, views
from medqade.scoring import JUDGE_COLUMNS, JudgeRow
from medqade.scoring.board.behaviour_columns import BEHAVIOUR_COLUMNS, behaviour_columns


def _row(columns: dict[str, object]) -> JudgeRow:
    """A judge row whose behaviour columns are ``columns`` (the library's flat names)."""
    return JudgeRow.from_json({c: None for c in JUDGE_COLUMNS} | columns)


def test_cells_format_the_library_columns_and_older_records_stay_empty() -> None:
    old = behaviour_columns({"kind": "judge"})
    assert set(old) == set(BEHAVIOUR_COLUMNS) and old["caution_sparsest_tier"] == ""
    assert all(math.isnan(v) for k, v in old.items() if k != "caution_sparsest_tier")  # type: ignore[arg-type]
    cells = views.behaviour_cells(_row(old))
    assert cells["caution: sparsest tier"] == ""
    assert cells["caution vs physicians 95% CI"] == "" and math.isnan(cells["self kappa"])
    record = {
        "behaviour": {
            "caution": {
                "tiers": [1, 2, 3, 4],
                "judge": {"slope": 0.004, "questions_by_tier": [90, 67, 32, 11]},
                "slope_difference": -0.021,
                "slope_difference_ci": [-0.04, -0.002],
            },
            "consistency": {
                "kappa": 0.91,
                "kappa_ci": [0.88, 0.93],
                "physicians_rerated": {"kappa": 0.95},
            },
            "position": {"p_value": 0.012},
            "cost": {
                "input_tokens_per_1000": 1000.0,
                "output_tokens_per_1000": 50.0,
                "eur_per_1000": 0.0123,
            },
        }
    }
    cells = views.behaviour_cells(_row(behaviour_columns(record)))
    assert cells["caution slope (pp/tier)"] == 0.4
    assert cells["caution vs physicians (pp/tier)"] == -2.1
    assert cells["caution vs physicians 95% CI"] == "-4.0 – -0.2"
    assert cells["caution: sparsest tier"] == "tier 4: 11 questions"
    assert cells["self kappa 95% CI"] == "0.880 – 0.930"
    assert cells["tokens / 1,000 answers"] == 1050
    assert cells["EUR / 1,000 answers"] == 0.0123


def test_judges_table_has_the_behaviour_groups() -> None:
    row = {c: None for c in JUDGE_COLUMNS} | {"name": "J", "id": "abc", "status": "unverified"}
    table = views.judges_table([JudgeRow.from_json(row)])
    for group in views.BEHAVIOUR_GROUPS.values():
        assert set(group) <= set(table.columns)
    assert set(behaviour_view.figures([])) == {"caution", "breakdown", "cost"}


def test_a_figure_without_data_is_not_drawn_and_says_what_to_submit() -> None:
    """Issue 39: without cost data the cost figure was an empty 500 px box."""
    drawn = behaviour_view.figures([])
    assert drawn == {"caution": None, "breakdown": None, "cost": None}
    assert "Inspect log" in behaviour_view.EMPTY["cost"]
    assert set(behaviour_view.EMPTY) == set(drawn)
