"""The figures of ``medqade reproduce`` and the Analysis tab: every text fits on the image."""

from __future__ import annotations

from matplotlib.figure import Figure

from medqade.analyses import figures
from medqade.analyses.report import Report


def _drawn(report: Report) -> dict[str, Figure]:
    out = {stem: draw(report) for stem, draw in figures.FIGURES.items()}
    out["abstention_by_tier"] = figures.abstention_by_tier(report)
    first = report.roster.name(report.roster.evaluator_ids[0])
    out["risk_coverage (highlighted)"] = figures.risk_coverage(report, first)
    return out


def test_figure_text_not_clipped_on_default_release(report: Report) -> None:
    """Matplotlib's tight bbox of each figure (every drawn text: labels, ticks, legend,
    watermark) lies inside the figure, so nothing is cut off when it is saved or shown
    (figure 3's x label ran past the right edge: "...(percentage poi")."""
    for name, fig in _drawn(report).items():
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        fig.draw_without_rendering()
        tight = fig.get_tightbbox(renderer)
        box = fig.bbox_inches
        tol = 1e-3
        assert tight.x0 >= box.x0 - tol and tight.y0 >= box.y0 - tol, (name, tight, box)
        assert tight.x1 <= box.x1 + tol and tight.y1 <= box.y1 + tol, (name, tight, box)
    # bias is in percentage points here as on the Leaderboard and Submit tabs
    assert "percentage points" in figures.bias_forest(report).axes[0].get_xlabel()
