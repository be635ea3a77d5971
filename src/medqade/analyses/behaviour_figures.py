"""Figures of the judges' behaviour beyond agreement, drawn from score records.

Each takes judge result records (the JSON of :func:`medqade.scoring.score`, e.g. the
leaderboard's) and reads their ``behaviour`` block (:mod:`medqade.measures.judge_behaviour`);
records without one are skipped. Same style as :mod:`medqade.analyses.figures`:

- :func:`caution_figure`: every judge's abstention slope per difficulty tier with its 95% CI,
  beside the physicians' mean slope (the paper's contrast: physicians abstain more on harder
  items), the core's questions per tier under the axis (:func:`tier_note`);
- :func:`breakdown_heatmap`: kappa per group of a dimension (specialty by default) x judge;
- :func:`cost_kappa`: core kappa against the cost (EUR per 1,000 answers, or tokens when fewer
  than two judges were priced), one point per judge and the Pareto frontier
  (:mod:`medqade.analyses.cost_frontier`), drawn from two judges with a cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from medqade.analyses import cost_frontier
from medqade.analyses.figures import STYLE, WIDTH, new_figure, watermark
from medqade.measures import MIN_TIER_QUESTIONS

Record = Mapping[str, Any]


def _name(r: Record) -> str:
    meta = r.get("meta") or {}
    return str(meta.get("name") or meta.get("model_id") or str(r.get("id", ""))[:12])


def _num(x: Any) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def _with(records: Iterable[Record], key: str) -> list[Record]:
    return [r for r in records if r.get("kind") == "judge" and (r.get("behaviour") or {}).get(key)]


def plotted(records: Iterable[Record]) -> dict[str, int]:
    """How many judges each figure draws (``caution``, ``breakdown``, ``cost``): 0 means the
    figure would be an empty box that only says so (the cost frontier needs two judges with
    a cost in one unit: :data:`medqade.analyses.cost_frontier.MIN_POINTS`)."""
    records = list(records)
    costed = cost_frontier.record_points(records)
    return {
        "caution": len(_with(records, "caution")),
        "breakdown": len(
            [
                r
                for r in _with(records, "breakdowns")
                if r["behaviour"]["breakdowns"].get("specialty")
            ]
        ),
        "cost": len(costed.points) if costed.drawn else 0,
    }


def _synthetic(records: list[Record]) -> bool:
    return any((r.get("dataset") or {}).get("synthetic") for r in records)


def _empty(ax: Any, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_axis_off()


def tier_note(side: Record) -> str:
    """The questions each tier's rate rests on (``questions_by_tier`` of a caution side), as a
    second axis line that names the tiers under 20 questions; empty for older records."""
    questions = side.get("questions_by_tier")
    if not isinstance(questions, list) or not questions:
        return ""
    note = "\ncore questions per tier 1-4: " + ", ".join(str(n) for n in questions)
    few = [f"tier {t}" for t, n in enumerate(questions, start=1) if n < MIN_TIER_QUESTIONS]
    if few:
        note += f" ({', '.join(few)}: fewer than {MIN_TIER_QUESTIONS}, a wide interval)"
    return note


def caution_figure(records: Iterable[Record]) -> Figure:
    """Abstention slope per tier (percentage points per tier) of every judge, 95% CIs, and
    the physicians' mean slope with its CI as a grey band (core)."""
    chosen = _with(records, "caution")
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 0.8 + 0.32 * max(len(chosen), 3))
        ax = fig.add_subplot()
        if not chosen:
            _empty(ax, "no judge record with caution")
            return fig
        phys = chosen[0]["behaviour"]["caution"]["physicians"]
        lo, hi = (_num(x) for x in phys["slope_ci"])
        if not (math.isnan(lo) or math.isnan(hi)):
            ax.axvspan(100 * lo, 100 * hi, color="0.88", linewidth=0)
        ax.axvline(100 * _num(phys["slope"]), color="0.2", linewidth=2, label="physicians (mean)")
        ax.axvline(0, color="0.5", linewidth=0.8, linestyle=":")
        y = np.arange(len(chosen), dtype=float)
        est = np.array([_num(r["behaviour"]["caution"]["judge"]["slope"]) for r in chosen])
        ci = np.array(
            [[_num(x) for x in r["behaviour"]["caution"]["judge"]["slope_ci"]] for r in chosen]
        )
        ax.errorbar(
            100 * est,
            y,
            xerr=100 * np.abs(np.vstack([est - ci[:, 0], ci[:, 1] - est])),
            fmt="o",
            label="judge",
        )
        ax.set_yticks(y, [_name(r) for r in chosen])
        ax.invert_yaxis()
        ax.set_xlabel("abstention slope (pp per difficulty tier)" + tier_note(phys))
        ax.grid(axis="y", visible=False)
        fig.legend(loc="outside lower center", ncols=2)
        watermark(fig, _synthetic(chosen))
    return fig


def breakdown_heatmap(records: Iterable[Record], dimension: str = "specialty") -> Figure:
    """Kappa (abstentions as disagreements) per group of ``dimension`` (rows) and judge
    (columns); empty cells where a group has no defined kappa."""
    chosen = [r for r in _with(records, "breakdowns") if dimension in r["behaviour"]["breakdowns"]]
    groups = sorted({g for r in chosen for g in r["behaviour"]["breakdowns"][dimension]})
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH + 1.5, 1.2 + 0.28 * max(len(groups), 4))
        ax = fig.add_subplot()
        if not chosen or not groups:
            _empty(ax, f"no judge record with a breakdown by {dimension}")
            return fig
        cells = [
            [r["behaviour"]["breakdowns"][dimension].get(g) or {} for r in chosen] for g in groups
        ]
        matrix = np.array([[_num(c.get("kappa")) for c in row] for row in cells])
        finite = matrix[np.isfinite(matrix)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        image = ax.imshow(matrix, aspect="auto", cmap="viridis", vmin=low, vmax=high)
        ax.set_yticks(np.arange(len(groups)), groups)
        ax.set_xticks(np.arange(len(chosen)), [_name(r) for r in chosen], rotation=45, ha="right")
        ax.grid(visible=False)
        fig.colorbar(image, ax=ax, label="kappa")
        watermark(fig, _synthetic(chosen))
    return fig


def cost_kappa(records: Iterable[Record]) -> Figure:
    """Core kappa (with its CI) against the cost per 1,000 answers and the judges' Pareto
    frontier (:func:`medqade.analyses.cost_frontier.frontier_figure`); a figure that says so
    when fewer than two judges have a cost."""
    records = list(records)
    found = cost_frontier.record_points(records)
    if found.drawn:
        return cost_frontier.frontier_figure(found, _synthetic(records))
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.2)
        _empty(fig.add_subplot(), "fewer than two judge records with a cost")
    return fig
