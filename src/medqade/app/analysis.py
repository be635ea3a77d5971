"""The Analysis tab's inputs: the paper's figures and one judge's figure, drawn by the library.

Figures come from :mod:`medqade.analyses.figures` (drawn once per report, and per highlighted
judge for the risk-coverage curves, then cached); the per-tier table of a judge is the numbers
:func:`medqade.scoring.score` computed, formatted (three decimals, CIs as text).
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from medqade.app.cells import ci_text, number

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from medqade.analyses.report import Report
    from medqade.scoring.record import ScoreRecord

FIGURES: Final = (
    (
        "accuracy",
        "Student accuracy by difficulty tier",
        "Share of resolved answers the physician consensus labelled correct, per student model "
        "and tier; bars are 95% Wilson intervals.",
    ),
    (
        "bias",
        "Self and family bias of the evaluators",
        "How much more often an evaluator calls its own (self) or its family's answers correct "
        "than out-of-family evaluators do, in percentage points; bars are 95% bootstrap "
        "intervals, 0 = no bias.",
    ),
    (
        "abstention",
        "Abstention by difficulty tier",
        "Share of answers labelled Keine Angabe, in percent: every evaluator with 95% Wilson "
        "intervals; the physicians' median with the range over the physicians as a grey band.",
    ),
    (
        "heatmap",
        "Physician x physician agreement on the core",
        "Cohen's kappa of each pair of physicians on the 200 core items, mean over the five "
        "answer slots (point estimates; the pairwise intervals are in the report).",
    ),
    (
        "position",
        "Position bias of the evaluators",
        "Share of Richtig among each evaluator's labels by the position (1-5) at which the "
        "answer was shown, with 95% bootstrap intervals; the legend gives the p-value of the "
        "permutation test within questions (Table S7).",
    ),
    (
        "risk",
        "Risk-coverage curves of the evaluators",
        "Accuracy against the consensus when each evaluator keeps only the answers where the "
        "other evaluators disagree with it least; bands are 95% Wilson intervals. The judge "
        "chosen above is drawn in colour.",
    ),
)
"""(key, title, caption) of every figure, in page order."""

_cache: dict[tuple[int, str, str | None], Figure] = {}
_cache_lock = threading.Lock()


def figure(report: Report, name: str, highlight: str | None = None) -> Figure:
    """One of the figures (``accuracy``, ``bias``, ``abstention``, ``heatmap``, ``risk``),
    cached; ``highlight`` (a judge's display name) matters only for ``risk``."""
    from medqade.analyses import figures

    if name != "risk":
        highlight = None
    key = (id(report), name, highlight)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is None:
        if name == "risk":
            cached = figures.risk_coverage(report, highlight)
        else:
            draw = {
                "accuracy": figures.accuracy_by_tier,
                "bias": figures.bias_forest,
                "abstention": figures.abstention_by_tier,
                "heatmap": figures.physician_heatmap,
                "position": figures.position_bias,
            }[name]
            cached = draw(report)
        with _cache_lock:
            _cache[key] = cached
    return cached


def judge_figure(record: ScoreRecord, name: str) -> Figure:
    """A judge record's kappa, PA and PABAK per tier with CIs (drawn by the library)."""
    from medqade.analyses import figures

    synthetic = bool(record.dataset and record.dataset.synthetic)
    return figures.tier_agreement(record.by_tier or {}, name, synthetic)


def judge_tier_table(record: ScoreRecord) -> pd.DataFrame:
    """A judge record's agreement per tier with CIs (fixed three decimals, as text)."""
    rows = []
    for tier, block in (record.by_tier or {}).items():
        block = block or {}
        row: dict[str, Any] = {"tier": f"T{tier}"}
        for key, name in (("kappa", "kappa"), ("pa", "PA"), ("pabak", "PABAK")):
            value = number(block.get(key))
            row[name] = "" if math.isnan(value) else f"{value:.3f}"
            ci = block.get(f"{key}_ci") or (None, None)
            row[f"{name} 95% CI"] = ci_text(ci[0], ci[1])
        row["n"] = block.get("n")
        rows.append(row)
    return pd.DataFrame(rows)


def panel_frame(report: Report) -> pd.DataFrame:
    """Table 1's whole-panel view of the physician ceiling: per student slot the mean pairwise
    kappa, Fleiss' kappa, Gwet's AC1 and Krippendorff's alpha of the ten physicians (core),
    with 95% intervals, then the difficulty row: its alpha and, in a column of its own, its
    ICC(2,1) (every value under the header that names it). Formatting only."""
    rq1 = report.rq1
    rows = []
    for model_id, s in rq1.slots.items():
        rows.append(
            {
                "student slot": report.roster.name(model_id),
                "mean pairwise kappa": ci_cell(s.kappa.value, s.kappa.low, s.kappa.high),
                "Fleiss kappa": ci_cell(s.fleiss.value, s.fleiss.low, s.fleiss.high),
                "Gwet AC1": ci_cell(s.ac1.value, s.ac1.low, s.ac1.high),
                "alpha": ci_cell(s.alpha.value, s.alpha.low, s.alpha.high),
                "ICC(2,1)": "",
            }
        )
    a, i = rq1.difficulty_alpha, rq1.difficulty_icc
    rows.append(
        {
            "student slot": "difficulty (0/1/2)",
            "mean pairwise kappa": "",
            "Fleiss kappa": "",
            "Gwet AC1": "",
            "alpha": ci_cell(a.value, a.low, a.high),
            "ICC(2,1)": ci_cell(i.value, i.low, i.high),
        }
    )
    return pd.DataFrame(rows)


def ci_cell(value: float, low: float, high: float) -> str:
    """``0.612 [0.570 – 0.650]``; the bracket left out when the interval is undefined."""
    shown = number(value)
    if shown != shown:
        return ""
    interval = ci_text(low, high)
    return f"{shown:.3f} [{interval}]" if interval else f"{shown:.3f}"
