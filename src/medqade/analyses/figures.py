"""The paper's figures from a :class:`~medqade.analyses.report.Report`, as PNG and SVG.

Figure 2: student accuracy by difficulty tier with 95% Wilson intervals. Figure 3: forest plot
of self and family bias with 95% bootstrap intervals. Two supplementary figures: the physician x
physician kappa heatmap on the core items (mean over the five slots) and one risk-coverage
curve per evaluator (definitions in :mod:`medqade.analyses.supplementary`).

Figures are drawn on :class:`matplotlib.figure.Figure` objects with the Agg canvas (no pyplot,
no global backend), and written atomically. The SVG is deterministic: a fixed ``svg.hashsalt``
and no date in the metadata, so the same report gives the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Final

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from medqade import atomic, vocab
from medqade.analyses.report import Report

FORMATS: Final = ("png", "svg")
SVG_SALT: Final = "medqade"
DPI: Final = 150


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _watermark(fig: Figure, report: Report) -> None:
    if report.synthetic:
        fig.suptitle("synthetic data", fontsize=8, color="0.4", x=0.99, ha="right")


def accuracy_by_tier(report: Report) -> Figure:
    """Figure 2: accuracy per tier and student with Wilson intervals."""
    fig = _figure(6.4, 4.0)
    ax = fig.add_subplot()
    by_tier = report.rq2.by_tier
    n = len(by_tier)
    tiers = np.asarray(vocab.TIERS, dtype=float)
    for j, (model, props) in enumerate(by_tier.items()):
        x = tiers + (j - (n - 1) / 2) * 0.09
        acc = np.array([p.acc for p in props.values()])
        low = np.array([p.low for p in props.values()])
        high = np.array([p.high for p in props.values()])
        ax.errorbar(
            x,
            100 * acc,
            yerr=100 * np.vstack([acc - low, high - acc]),
            marker="o",
            markersize=4,
            capsize=2,
            linewidth=1.2,
            label=report.roster.name(model),
        )
    ax.set_xticks(tiers, [f"T{t}" for t in vocab.TIERS])
    ax.set_xlabel("difficulty tier (mean physician difficulty)")
    ax.set_ylabel("accuracy (% of resolved answers)")
    ax.set_ylim(0, 100)
    ax.grid(axis="y", color="0.9")
    ax.legend(fontsize=8, frameon=False)
    _watermark(fig, report)
    return fig


def bias_forest(report: Report) -> Figure:
    """Figure 3: self and family bias in percentage points with 95% intervals."""
    rows = [("self", b) for b in report.rq4.self_bias.values()]
    rows += [("family", b) for b in report.rq4.family]
    fig = _figure(7.2, 0.35 * len(rows) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(rows))[::-1]
    for yi, (kind, b) in zip(y, rows, strict=True):
        colour = "C0" if kind == "self" else "C1"
        d = b.delta
        if np.isfinite(d.low) and np.isfinite(d.high):
            ax.plot([100 * d.low, 100 * d.high], [yi, yi], color=colour, linewidth=1.5)
        ax.plot([100 * d.value], [yi], "o" if kind == "self" else "s", color=colour)
    name = report.roster.name
    labels = [
        f"{name(b.evaluator)} (self)"
        if kind == "self"
        else f"{name(b.evaluator)} on {name(b.student)}"
        for kind, b in rows
    ]
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set_xlabel("bias vs out-of-family peers (percentage points)")
    ax.grid(axis="x", color="0.9")
    _watermark(fig, report)
    return fig


def physician_heatmap(report: Report) -> Figure:
    """Physician x physician Cohen's kappa on the core items (mean over the five slots)."""
    km = report.supplementary.physician_kappa
    fig = _figure(5.6, 4.8)
    ax = fig.add_subplot()
    m = np.ma.masked_invalid(km.matrix)
    image = ax.imshow(m, vmin=0, vmax=1, cmap="viridis")
    n = len(km.raters)
    ax.set_xticks(range(n), km.raters, rotation=90, fontsize=8)
    ax.set_yticks(range(n), km.raters, fontsize=8)
    for i in range(n):
        for j in range(n):
            v = km.matrix[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6, color="w")
    fig.colorbar(image, ax=ax, label="Cohen's kappa, mean over slots")
    ax.set_title("Physician agreement (core)", fontsize=10)
    _watermark(fig, report)
    return fig


def risk_coverage(report: Report) -> Figure:
    """Accuracy vs coverage per evaluator, deferring answers where it disagrees with the rest."""
    fig = _figure(6.4, 4.4)
    ax = fig.add_subplot()
    for ev, curve in report.supplementary.risk_coverage.items():
        if not curve.coverage:
            continue
        ax.step(
            [0.0, *curve.coverage],
            [100 * curve.accuracy[0], *(100 * a for a in curve.accuracy)],
            where="pre",
            linewidth=1.2,
            label=report.roster.name(ev),
        )
    ax.set_xlim(0, 1)
    ax.set_xlabel("coverage (share of the evaluator's answers kept)")
    ax.set_ylabel("accuracy vs consensus (%)")
    ax.grid(color="0.9")
    ax.legend(fontsize=7, frameon=False, ncols=2)
    _watermark(fig, report)
    return fig


FIGURES: Final[dict[str, Callable[[Report], Figure]]] = {
    "figure2_accuracy_by_tier": accuracy_by_tier,
    "figure3_bias_forest": bias_forest,
    "physician_kappa_heatmap": physician_heatmap,
    "risk_coverage": risk_coverage,
}


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """``fig`` rendered as PNG or SVG (deterministic SVG: fixed hash salt, no date)."""
    buf = io.BytesIO()
    metadata: dict[str, str | None] = {"Date": None} if fmt == "svg" else {"Software": None}
    with mpl.rc_context({"svg.hashsalt": SVG_SALT}):
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=metadata)
    return buf.getvalue()


def write_figures(report: Report, out: Path) -> list[Path]:
    """Write every figure as PNG and SVG into ``out``; return the paths written."""
    written = []
    for stem, draw in FIGURES.items():
        fig = draw(report)
        for fmt in FORMATS:
            path = Path(out) / f"{stem}.{fmt}"
            atomic.write_bytes(path, figure_bytes(fig, fmt))
            written.append(path)
    return written
