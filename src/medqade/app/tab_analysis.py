"""The Analysis tab: the paper's figures, abstention by tier and one judge's agreement by tier."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gradio as gr

from medqade.app import analysis, text
from medqade.app.context import HIDDEN, TabContext, empty, frame

if TYPE_CHECKING:
    from medqade.analyses.report import Report


class Plots:
    """The paper's figures encoded for ``gr.Plot`` once per report (encoding takes ~0.1 s)."""

    def __init__(self) -> None:
        self._encoder = gr.Plot(render=False)
        self._cache: dict[tuple[int, str], Any] = {}
        self._lock = threading.Lock()

    def get(self, report: Report, key: str) -> Any:
        with self._lock:
            cached = self._cache.get((id(report), key))
            if cached is None:
                cached = self._encoder.postprocess(analysis.figure(report, key))
                self._cache[(id(report), key)] = cached
            return cached

    def warm(self, report: Report) -> None:
        for key, _ in analysis.FIGURES:
            self.get(report, key)


@dataclass(frozen=True)
class AnalysisTab:
    """The tab's components and handlers; :meth:`wire` adds its events once the tabs exist."""

    tab: gr.Tab
    status: gr.Markdown
    plots: list[gr.Plot]
    abstention: gr.LinePlot
    judge: gr.Dropdown
    judge_plot: gr.LinePlot
    judge_table: gr.Dataframe
    analysis_ui: Callable[[str | None], tuple[Any, ...]]
    judge_ui: Callable[[str | None], tuple[Any, ...]]

    def wire(self) -> None:
        """Fill the tab when it is opened; redraw the judge's curves when another is chosen."""
        analysis_outputs: list[Any] = [
            self.status,
            *self.plots,
            self.abstention,
            self.judge,
            self.judge_plot,
            self.judge_table,
        ]
        self.tab.select(self.analysis_ui, [self.judge], analysis_outputs, api_visibility="private")
        self.judge.input(
            self.judge_ui,
            [self.judge],
            [self.judge, self.judge_plot, self.judge_table],
            **HIDDEN,
        )


def add_analysis_tab(ctx: TabContext, plots_cache: Plots) -> AnalysisTab:
    """Lay out the Analysis tab (inside ``gr.Tabs``); figures come from ``plots_cache``."""
    st = ctx.state

    def analysis_ui(judge_name: str | None) -> tuple[Any, ...]:
        try:
            report = st.report.result(timeout=0.05)
        except FutureTimeout:
            message = "The analyses are being computed; open this tab again in a few seconds."
            return (message, *(None for _ in analysis.FIGURES), None, *judge_ui(judge_name))
        except Exception as exc:  # a failed reproduce is shown, not raised
            return (
                f"The analyses are not available: {exc}",
                None,
                None,
                None,
                None,
                None,
                *judge_ui(judge_name),
            )
        banner = "Synthetic data: simulated ratings." if report.synthetic else ""
        return (
            banner,
            *(plots_cache.get(report, key) for key, _ in analysis.FIGURES),
            analysis.abstention_frame(report),
            *judge_ui(judge_name),
        )

    def judge_records() -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for r in st.records():
            if r.get("kind") != "judge" or not r.get("by_tier"):
                continue
            name = str((r.get("meta") or {}).get("name") or str(r.get("id"))[:12])
            out.setdefault(name, r)
        return out

    def judge_ui(judge_name: str | None) -> tuple[Any, ...]:
        records = judge_records()
        choices = list(records)
        chosen = judge_name if judge_name in records else (choices[0] if choices else None)
        if chosen is None:
            return gr.update(choices=[], value=None), None, empty()
        long, table = analysis.judge_tier_frames(records[chosen])
        return gr.update(choices=choices, value=chosen), long, frame(table)

    with gr.Tab("Analysis", id="analysis") as tab:
        gr.Markdown(text.ANALYSIS_HELP)
        a_status = gr.Markdown()
        plots = [gr.Plot(label=title, format="png") for _, title in analysis.FIGURES]
        a_abstention = gr.LinePlot(
            x="tier",
            y="abstention %",
            color="rater",
            title="Abstention by tier: physicians (median) and evaluators",
        )
        a_judge = gr.Dropdown([], label="Judge", value=None)
        a_judge_plot = gr.LinePlot(x="tier", y="value", color="metric", title="Agreement by tier")
        a_judge_table = gr.Dataframe(label="Agreement by tier", interactive=False)

    return AnalysisTab(
        tab=tab,
        status=a_status,
        plots=plots,
        abstention=a_abstention,
        judge=a_judge,
        judge_plot=a_judge_plot,
        judge_table=a_judge_table,
        analysis_ui=analysis_ui,
        judge_ui=judge_ui,
    )
