"""Figures from the behaviour block of score records (medqade.analyses.behaviour_figures)."""

from __future__ import annotations

from typing import Any

import numpy as np

from medqade.analyses import behaviour_figures as figs
from medqade.analyses.figures import figure_bytes


def _record(name: str, kappa: float, slope: float, eur: float | None) -> dict[str, Any]:
    return {
        "kind": "judge",
        "meta": {"name": name},
        "dataset": {"synthetic": True},
        "core": {"kappa": kappa, "kappa_ci": [kappa - 0.05, kappa + 0.05]},
        "behaviour": {
            "caution": {
                "judge": {"slope": slope, "slope_ci": [slope - 0.01, slope + 0.01]},
                "physicians": {"slope": 0.03, "slope_ci": [0.02, 0.04]},
            },
            "breakdowns": {
                "specialty": {"A": {"kappa": kappa}, "B": {"kappa": kappa - 0.1}, "C": None}
            },
            "cost": {
                "input_tokens_per_1000": 1e5,
                "output_tokens_per_1000": 2e3,
                "eur_per_1000": eur,
            },
        },
    }


def test_figures_draw_one_mark_per_judge_and_skip_older_records() -> None:
    records = [_record("J1", 0.6, 0.0, 0.5), _record("J2", 0.7, 0.02, 1.0), {"kind": "judge"}]
    caution = figs.caution_figure(records)
    assert [t.get_text() for t in caution.axes[0].get_yticklabels()] == ["J1", "J2"]
    heat = figs.breakdown_heatmap(records)
    image = heat.axes[0].get_images()[0].get_array()
    assert np.ma.getdata(image).shape == (3, 2)
    assert np.isnan(np.ma.getdata(image)[2]).all()  # group C: no kappa
    cost = figs.cost_kappa(records)
    assert cost.axes[0].get_xlabel().startswith("EUR")
    assert figs.cost_kappa([records[0], _record("J3", 0.5, 0.0, None)]).axes[0].get_xlabel() == (
        "tokens per 1,000 answers"
    )
    one = figs.cost_kappa(records[:1]).axes[0]  # one judge with a cost: no frontier
    assert not one.axison and "fewer than two" in one.texts[0].get_text()
    for fig in (caution, heat, cost, figs.caution_figure([])):
        assert figure_bytes(fig, "png")[:4] == b"\x89PNG"


def test_plotted_counts_the_judges_each_figure_draws() -> None:
    with_cost = _record("J1", 0.6, 0.0, 0.5)
    without = _record("J2", 0.7, 0.02, 1.0)
    del without["behaviour"]["cost"]
    assert figs.plotted([with_cost, without, {"kind": "judge"}]) == {
        "caution": 2,
        "breakdown": 2,
        "cost": 0,  # a frontier needs two judges with a cost
    }
    assert figs.plotted([with_cost, _record("J3", 0.5, 0.0, 0.1)])["cost"] == 2
    assert figs.plotted([without]) == {"caution": 1, "breakdown": 1, "cost": 0}
    assert figs.plotted([]) == {"caution": 0, "breakdown": 0, "cost": 0}


def test_the_caution_figure_names_the_questions_per_tier() -> None:
    """The slope rests on unequal tiers (tier 4 of the core: 11 questions): the axis says so."""
    record = _record("J1", 0.6, 0.0, 0.5)
    record["behaviour"]["caution"]["physicians"]["questions_by_tier"] = [90, 67, 32, 11]
    label = figs.caution_figure([record]).axes[0].get_xlabel()
    assert label.splitlines() == [
        "abstention slope (pp per difficulty tier)",
        "core questions per tier 1-4: 90, 67, 32, 11 (tier 4: fewer than 20, a wide interval)",
    ]
    old = figs.caution_figure([_record("J1", 0.6, 0.0, 0.5)]).axes[0].get_xlabel()
    assert old == "abstention slope (pp per difficulty tier)"  # an older record: no counts
