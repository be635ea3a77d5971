"""The cost-agreement Pareto frontier figure (medqade.analyses.cost_frontier)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.analyses import cost_frontier as cf
from medqade.analyses.figures import figure_bytes
from medqade.dataset.release import Release


def _record(name: str, kappa: float, tokens: float, eur: float | None) -> dict[str, Any]:
    return {
        "kind": "judge",
        "meta": {"name": name},
        "core": {"kappa": kappa, "kappa_ci": [kappa - 0.05, kappa + 0.05]},
        "behaviour": {
            "cost": {
                "input_tokens_per_1000": tokens,
                "output_tokens_per_1000": 0.0,
                "eur_per_1000": eur,
            }
        },
    }


def _step_line(fig: Any) -> Any:
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "Pareto frontier"]
    return line


def test_points_in_euros_when_two_judges_are_priced_else_tokens() -> None:
    records = [
        _record("A", 0.5, 1e4, 0.01),
        _record("B", 0.7, 1e5, 0.2),
        _record("C", 0.6, 1e6, None),
        {"kind": "judge", "core": {"kappa": 0.9}},  # no cost: not a point
        _record("M", 0.9, 1e4, 0.01) | {"kind": "model"},
    ]
    found = cf.record_points(records)
    assert found.unit == cf.EUR
    assert [p.name for p in found.points] == ["A", "B"] and found.left_out == ("C",)
    tokens = cf.record_points([records[0], records[2]])
    assert tokens.unit == cf.TOKENS and [p.cost for p in tokens.points] == [1e4, 1e6]
    assert not cf.record_points(records[:1]).drawn and found.drawn


def test_the_frontier_is_a_named_step_line_on_a_log_axis_when_costs_span_decades() -> None:
    records = [
        _record("cheap", 0.5, 1e3, None),
        _record("mid", 0.7, 1e4, None),
        _record("dominated", 0.6, 1e5, None),
        _record("best", 0.8, 1e6, None),
    ]
    found = cf.record_points(records)
    assert [p.name for p in found.frontier] == ["cheap", "mid", "best"]
    fig = cf.frontier_figure(found, synthetic=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    line = _step_line(fig)
    assert line.get_drawstyle() == "steps-post"
    assert list(line.get_ydata()) == [0.5, 0.7, 0.8, 0.8]
    assert "Pareto frontier" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert figure_bytes(fig, "png")[:4] == b"\x89PNG"
    close = cf.record_points([_record("a", 0.5, 100.0, None), _record("b", 0.6, 300.0, None)])
    assert cf.frontier_figure(close).axes[0].get_xscale() == "linear"


def _core_kappa(release: Release, e: int) -> float:
    """Macro over the slots of sklearn's kappa on the core, an abstention or missing label
    counted as the label opposite to the consensus (the headline's rule)."""
    core = np.asarray(release.is_core, dtype=bool)
    labels = release.evaluator_labels[e][core]
    ref = release.consensus[core]
    values = []
    for s in range(vocab.N_SLOTS):
        keep = ref[:, s] != vocab.MISSING_CODE
        r = ref[keep, s]
        j = labels[keep, s].astype(int)
        other = (j != vocab.RICHTIG_CODE) & (j != vocab.FALSCH_CODE)
        j[other] = np.where(r[other] == vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.RICHTIG_CODE)
        values.append(cohen_kappa_score(j, r))
    return float(np.mean(values))


def test_reproduce_draws_the_frontier_only_when_the_release_has_cost(
    release: Release, tmp_path: Path
) -> None:
    written, why = cf.write_figure(release, tmp_path, 20, 3)
    assert written == [] and "no token counts" in why
    ids = release.roster.evaluator_ids
    usage = {
        ids[0]: {"input_tokens": 4e6, "output_tokens": 1e5, "price_in": 0.1, "price_out": 0.4},
        ids[1]: {"input_tokens": 5e6, "output_tokens": 2e5, "price_in": 2.0, "price_out": 8.0},
    }
    costed = dataclasses.replace(
        release, meta=dataclasses.replace(release.meta, other={"usage": usage})
    )
    found = cf.release_points(costed, 20, 3)
    assert found.unit == cf.EUR and len(found.points) == 2
    for e, point in enumerate(found.points):
        assert math.isclose(point.kappa, _core_kappa(release, e), abs_tol=1e-12)
        answers = int((release.evaluator_labels[e] != vocab.MISSING_CODE).sum())
        u = usage[ids[e]]
        eur = (u["input_tokens"] * u["price_in"] + u["output_tokens"] * u["price_out"]) / 1e6
        assert math.isclose(point.cost, 1000 * eur / answers)
        assert point.low <= point.kappa <= point.high
    written, why = cf.write_figure(costed, tmp_path, 20, 3)
    assert why == "" and sorted(p.name for p in written) == [
        "figure_cost_frontier.png",
        "figure_cost_frontier.svg",
    ]
    one = dataclasses.replace(
        release, meta=dataclasses.replace(release.meta, other={"usage": {ids[0]: usage[ids[0]]}})
    )
    written, why = cf.write_figure(one, tmp_path / "one", 20, 3)
    assert written == [] and "only 1 evaluator" in why
