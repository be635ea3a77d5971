"""The Analysis tab's inputs: the paper's figures and plot frames from a finished report.

Figures come from :mod:`medqade.analyses.figures` (drawn once per report and cached); the
abstention and per-tier agreement plots are long DataFrames of numbers that
:func:`medqade.analyses.reproduce` and :func:`medqade.scoring.score` computed, reshaped for
``gr.BarPlot`` / ``gr.LinePlot``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from medqade import vocab
from medqade.app.views import ci_text, number

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from medqade.analyses.report import Report

FIGURES: Final = (
    ("accuracy", "Student accuracy by difficulty tier (95% Wilson CIs)"),
    ("bias", "Self and family bias of the evaluators (95% bootstrap CIs)"),
    ("heatmap", "Physician x physician agreement on the core (Cohen's kappa)"),
    ("risk", "Risk-coverage curves of the evaluators"),
)

_cache: dict[tuple[int, str], Figure] = {}
_cache_lock = threading.Lock()


def figure(report: Report, name: str) -> Figure:
    """One of the paper's figures (``accuracy``, ``bias``, ``heatmap``, ``risk``), cached."""
    from medqade.analyses import figures

    draw = {
        "accuracy": figures.accuracy_by_tier,
        "bias": figures.bias_forest,
        "heatmap": figures.physician_heatmap,
        "risk": figures.risk_coverage,
    }[name]
    key = (id(report), name)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is None:
        cached = draw(report)
        with _cache_lock:
            _cache[key] = cached
    return cached


def abstention_frame(report: Report) -> pd.DataFrame:
    """Abstention (%) per tier: the physicians' median and every evaluator (RQ5)."""
    rq5 = report.to_dict()["rq5"]
    rows = [
        {"rater": "Physicians (median)", "tier": f"T{t}", "abstention %": 100 * (v or 0.0)}
        for t, v in zip(vocab.TIERS, rq5["physicians"]["median_by_tier"], strict=True)
    ]
    for ev, block in rq5["evaluators"].items():
        name = report.roster.name(ev)
        rows += [
            {"rater": name, "tier": f"T{t}", "abstention %": 100 * (v or 0.0)}
            for t, v in zip(vocab.TIERS, block["by_tier"], strict=True)
        ]
    return pd.DataFrame(rows)


def judge_tier_frames(record: Mapping[str, Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A judge record's agreement per tier: a long frame to plot and a table with CIs."""
    by_tier = record.get("by_tier") or {}
    long_rows, table_rows = [], []
    for tier, block in by_tier.items():
        block = block or {}
        label = f"T{tier}"
        row: dict[str, Any] = {"tier": label}
        for key, name in (("kappa", "kappa"), ("pa", "PA"), ("pabak", "PABAK")):
            value = number(block.get(key))
            long_rows.append({"tier": label, "metric": name, "value": value})
            row[name] = value
            ci = block.get(f"{key}_ci") or (None, None)
            row[f"{name} 95% CI"] = ci_text(ci[0], ci[1])
        row["n"] = block.get("n")
        table_rows.append(row)
    return (
        pd.DataFrame(long_rows, columns=["tier", "metric", "value"]),
        pd.DataFrame(table_rows),
    )
