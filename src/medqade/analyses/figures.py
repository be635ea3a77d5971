"""The paper's figures from a :class:`~medqade.analyses.report.Report`, as PNG and SVG.

Figure 2: student accuracy by difficulty tier with 95% Wilson intervals. Figure 3: forest plot
of self and family bias with 95% bootstrap intervals. Two supplementary figures: the physician x
physician kappa heatmap on the core items (mean over the five slots) and one risk-coverage
curve per evaluator (definitions in :mod:`medqade.analyses.supplementary`) with 95% Wilson
bands, abstention by tier (RQ5) and position bias (S7: the share of Richtig by presentation
position). :func:`tier_agreement` draws one judge's agreement per
tier from a result record. Every figure uses :data:`STYLE`, keeps its legend below the axes
and carries no title (the caption is the page's or the paper's).

Figures are drawn on :class:`matplotlib.figure.Figure` objects with the Agg canvas (no pyplot,
no global backend), and written atomically. The SVG is deterministic: a fixed ``svg.hashsalt``
and no date in the metadata, so the same report gives the same bytes.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from medqade import vocab
from medqade.analyses.report import Report
from medqade.files import atomic
from medqade.stats.intervals import wilson_interval

FORMATS: Final = ("png", "svg")
SVG_SALT: Final = "medqade"
DPI: Final = 150
WIDTH: Final = 6.0
"""Inches; at :data:`DPI` a figure is 900 px wide, so 11 pt text stays legible when the
image is scaled down to a 360 px phone column (about 10 px) and sharp on a desktop."""
STYLE: Final[dict[Any, Any]] = {
    "font.size": 11,
    "axes.titlesize": 11,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "0.9",
    "grid.linewidth": 0.8,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "errorbar.capsize": 3,
    "legend.frameon": False,
}
"""One look for every figure: the same fonts, grid, spines and markers."""
HIGHLIGHT: Final = "#c2410c"
OTHERS: Final = "0.6"


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def watermark(fig: Figure, report: Report | bool) -> None:
    synthetic = report if isinstance(report, bool) else report.synthetic
    if synthetic:
        fig.suptitle("synthetic data", fontsize=9, color="0.4", x=0.99, ha="right")


def _legend_below(fig: Figure, ax: Axes, ncols: int = 3) -> None:
    """The legend under the axes (outside the plot area, never over a curve or a row)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols)


def accuracy_by_tier(report: Report) -> Figure:
    """Figure 2: accuracy per tier and student with Wilson intervals."""
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.6)
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
                label=report.roster.name(model),
            )
        ax.set_xticks(tiers, [f"T{t}" for t in vocab.TIERS])
        ax.set_xlabel("difficulty tier (mean physician difficulty)")
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(0, 100)
        ax.grid(axis="x", visible=False)
        _legend_below(fig, ax)
        watermark(fig, report)
    return fig


def bias_forest(report: Report) -> Figure:
    """Figure 3: self and family bias in percentage points with 95% intervals."""
    rows = [("self", b) for b in report.rq4.self_bias.values()]
    rows += [("family", b) for b in report.rq4.family]
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 0.34 * len(rows) + 1.6)
        ax = fig.add_subplot()
        y = np.arange(len(rows))[::-1]
        for yi, (kind, b) in zip(y, rows, strict=True):
            colour = "C0" if kind == "self" else "C1"
            d = b.delta
            if np.isfinite(d.low) and np.isfinite(d.high):
                ax.plot([100 * d.low, 100 * d.high], [yi, yi], color=colour)
            ax.plot([100 * d.value], [yi], "o" if kind == "self" else "s", color=colour)
        name = report.roster.name
        labels = [
            f"{name(b.evaluator)} (self)"
            if kind == "self"
            else f"{name(b.evaluator)} on {name(b.student)}"
            for kind, b in rows
        ]
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.axvline(0, color="0.3", linewidth=0.8)
        # two lines: beside the long evaluator names the axes are narrower than one line of label
        ax.set_xlabel("bias vs out-of-family peers\n(percentage points, pp)")
        ax.grid(axis="y", visible=False)
        watermark(fig, report)
    return fig


def physician_heatmap(report: Report) -> Figure:
    """Physician x physician Cohen's kappa on the core items (mean over the five slots)."""
    km = report.supplementary.physician_kappa
    with mpl.rc_context(STYLE | {"axes.grid": False}):
        fig = new_figure(WIDTH, 5.2)
        ax = fig.add_subplot()
        m = np.ma.masked_invalid(km.matrix)
        image = ax.imshow(m, vmin=0, vmax=1, cmap="viridis")
        n = len(km.raters)
        ax.set_xticks(range(n), km.raters, rotation=90)
        ax.set_yticks(range(n), km.raters)
        for i in range(n):
            for j in range(n):
                v = km.matrix[i, j]
                if np.isfinite(v):
                    colour = "k" if v > 0.6 else "w"
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9, color=colour)
        fig.colorbar(image, ax=ax, label="Cohen's kappa, mean over slots")
        watermark(fig, report)
    return fig


def risk_coverage(report: Report, highlight: str | None = None) -> Figure:
    """Accuracy vs coverage per evaluator, deferring answers where it disagrees with the rest.

    Every curve carries a 95% Wilson band (accuracy = correct / kept at each coverage);
    ``highlight`` (an evaluator id or display name) is drawn in colour over the others in grey.
    """
    curves = report.supplementary.risk_coverage
    name = report.roster.name
    chosen = next((ev for ev in curves if highlight in (ev, name(ev))), None)
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.6)
        ax = fig.add_subplot()
        order = [ev for ev in curves if ev != chosen] + ([chosen] if chosen else [])
        for k, ev in enumerate(order):
            curve = curves[ev]
            if not curve.coverage:
                continue
            coverage = np.asarray(curve.coverage)
            acc = np.asarray(curve.accuracy)
            kept = np.rint(coverage * curve.n)
            low, high = _wilson(acc, kept)
            x = np.r_[0.0, coverage]
            mine = ev == chosen
            colour = HIGHLIGHT if mine else (f"C{k % 10}" if chosen is None else OTHERS)
            ax.fill_between(
                x,
                100 * np.r_[low[0], low],
                100 * np.r_[high[0], high],
                step="pre",
                color=colour,
                alpha=0.25 if mine else 0.08,
                linewidth=0,
            )
            ax.step(
                x,
                100 * np.r_[acc[0], acc],
                where="pre",
                color=colour,
                linewidth=2.4 if mine else 1.0,
                label=name(ev) if mine or chosen is None else None,
                zorder=3 if mine else 2,
            )
        if chosen is not None:
            ax.plot([], [], color=OTHERS, linewidth=1.0, label="other evaluators")
        ax.set_xlim(0, 1)
        ax.set_xlabel("coverage (share of the evaluator's answers kept)")
        ax.set_ylabel("accuracy vs consensus (%)")
        _legend_below(fig, ax, ncols=2 if chosen is not None else 3)
        watermark(fig, report)
    return fig


def abstention_by_tier(report: Report) -> Figure:
    """Abstention (%) per difficulty tier: every evaluator with 95% Wilson intervals, and the
    physicians' median with the range over the physicians as a band (RQ5, Table 4)."""
    rq5 = report.rq5
    tiers = np.asarray(vocab.TIERS, dtype=float)
    slots = np.asarray(rq5.tier_slots, dtype=float)
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.8)
        ax = fig.add_subplot()
        rates = np.array([list(r) for r in rq5.physician_rates.values()], dtype=float)
        if rates.size:
            with warnings.catch_warnings():  # a tier no physician rated stays empty
                warnings.simplefilter("ignore", RuntimeWarning)
                lo = np.nanmin(rates, axis=0)
                hi = np.nanmax(rates, axis=0)
            ax.fill_between(tiers, 100 * lo, 100 * hi, color="0.85", linewidth=0)
        ax.plot(
            tiers,
            100 * np.asarray(rq5.physician_median, dtype=float),
            color="0.2",
            marker="D",
            linewidth=2.2,
            label="physicians (median; band: range)",
        )
        n = len(rq5.evaluators)
        for j, (ev, a) in enumerate(rq5.evaluators.items()):
            rate = np.asarray(a.by_tier, dtype=float)
            low, high = _wilson(rate, slots)
            x = tiers + (j - (n - 1) / 2) * 0.05
            ax.errorbar(
                x,
                100 * rate,
                yerr=100 * np.vstack([rate - low, high - rate]),
                marker="o",
                linewidth=1.0,
                label=report.roster.name(ev),
            )
        ax.set_xticks(tiers, [f"T{t}" for t in vocab.TIERS])
        ax.set_xlabel("difficulty tier")
        ax.set_ylabel("abstention (% of answers)")
        ax.set_ylim(bottom=0)
        ax.grid(axis="x", visible=False)
        _legend_below(fig, ax, ncols=2)
        watermark(fig, report)
    return fig


def position_bias(report: Report) -> Figure:
    """Share of Richtig (%) by presentation position 1-5 for every evaluator with its 95%
    bootstrap interval, the permutation p-value in the legend (S7)."""
    found = report.positions or {}
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.8)
        ax = fig.add_subplot()
        x = np.arange(1, 6, dtype=float)
        n = len(found)
        for j, (ev, b) in enumerate(found.items()):
            est = np.array([e.value for e in b.richtig], dtype=float)
            low = np.array([e.low for e in b.richtig], dtype=float)
            high = np.array([e.high for e in b.richtig], dtype=float)
            p = b.p_value
            tag = "n/a" if p != p else ("<0.001" if p < 0.001 else f"{p:.2f}")
            ax.errorbar(
                x + (j - (n - 1) / 2) * 0.05,
                100 * est,
                yerr=100 * np.vstack([est - low, high - est]),
                marker="o",
                linewidth=1.0,
                label=f"{report.roster.name(ev)} (p {tag})",
            )
        ax.set_xticks(x, [str(k) for k in range(1, 6)])
        ax.set_xlabel("position at which the answer was shown")
        ax.set_ylabel("Richtig (% of substantive labels)")
        ax.grid(axis="x", visible=False)
        _legend_below(fig, ax, ncols=2)
        watermark(fig, report)
    return fig


def tier_agreement(
    by_tier: Mapping[str, Mapping[str, object] | None], name: str, synthetic: bool = False
) -> Figure:
    """One judge's kappa, PA and PABAK per difficulty tier with their 95% intervals, from a
    result record's ``by_tier`` block (as :func:`medqade.scoring.score` wrote it)."""
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.0)
        ax = fig.add_subplot()
        labels = [f"T{t}" for t in by_tier]
        x = np.arange(len(labels), dtype=float)
        for j, (key, label) in enumerate((("kappa", "kappa"), ("pa", "PA"), ("pabak", "PABAK"))):
            est, low, high = [], [], []
            for block in by_tier.values():
                block = block or {}
                ci = block.get(f"{key}_ci") or (None, None)
                est.append(_float(block.get(key)))
                low.append(_float(ci[0]))  # type: ignore[index]
                high.append(_float(ci[1]))  # type: ignore[index]
            e, lo, hi = np.array(est), np.array(low), np.array(high)
            ax.errorbar(
                x + (j - 1) * 0.1,
                e,
                yerr=np.vstack([e - lo, hi - e]),
                marker="os^"[j],
                label=label,
            )
        ax.set_xticks(x, labels)
        ax.set_xlabel("difficulty tier")
        ax.set_ylabel(f"{name}: agreement (0-1)")
        ax.set_ylim(min(0.0, ax.get_ylim()[0]), 1.0)
        ax.grid(axis="x", visible=False)
        _legend_below(fig, ax)
        watermark(fig, synthetic)
    return fig


def _wilson(rate: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson bounds of proportions ``rate`` of ``n`` trials (NaN where undefined)."""
    n = np.asarray(n, dtype=float)
    rate = np.asarray(rate, dtype=float)
    ok = np.isfinite(rate) & (n > 0)
    k = np.clip(np.rint(np.where(ok, rate, 0.0) * n), 0, n)
    low, high = wilson_interval(k, np.where(ok, n, 1.0))
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float("nan")
    return float(value)


FIGURES: Final[dict[str, Callable[[Report], Figure]]] = {
    "figure2_accuracy_by_tier": accuracy_by_tier,
    "figure3_bias_forest": bias_forest,
    "physician_kappa_heatmap": physician_heatmap,
    "risk_coverage": risk_coverage,
    "position_bias": position_bias,
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
