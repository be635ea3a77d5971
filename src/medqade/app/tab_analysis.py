"""The Analysis tab: the paper's figures, abstention by tier and one judge's agreement by tier.

Every plot is a matplotlib figure from :mod:`medqade.analyses.figures` (one style, CIs on every
estimate), with its title and caption outside the image. The Space serves once the figures are
drawn (:func:`medqade.app.serve.wait_for_figures`); where it was started without waiting (tests,
benchmarks) the first visit waits for them instead of asking the visitor to come back. The tab is
filled the first time it is opened and never again unless the judges changed: reopening it sends
nothing. Choosing a judge redraws only the two figures that depend on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import gradio as gr
from gradio.components.plot import PlotData

from medqade.app import analysis, behaviour_view, text
from medqade.app.context import HIDDEN, TabContext, empty, frame
from medqade.scoring.record import ScoreRecord

if TYPE_CHECKING:
    from medqade.analyses.report import Report
    from medqade.app.figure_cache import FigureCache

N_FIGURES = len(analysis.FIGURES)
REPORT_WAIT_S = 300.0
"""How long a first visit waits for the analyses when the Space serves before they are ready."""


def judge_records(records: list[ScoreRecord]) -> dict[str, ScoreRecord]:
    """The judge records with per-tier numbers by display name (the first of a name wins)."""
    out: dict[str, ScoreRecord] = {}
    for rec in records:
        if rec.kind != "judge" or not rec.by_tier:
            continue
        name = str((rec.meta and rec.meta.name) or str(rec.id)[:12])
        out.setdefault(name, rec)
    return out


class Plots:
    """Figures encoded for ``gr.Plot`` once per report and judge (drawing and encoding one
    takes 0.1-0.5 s, so none is drawn while a visitor waits once the Space serves)."""

    def __init__(self, disk: FigureCache | None = None) -> None:
        self._encoder = gr.Plot(render=False, format="png")
        self._cache: dict[tuple[int, str, str | None], Any] = {}
        self._judges: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()
        self.records: Callable[[], list[ScoreRecord]] | None = None
        """The Space's records (set once the state exists): :meth:`warm` draws the first
        judge's figures too."""
        self.disk = disk
        """The figures on disk (:mod:`medqade.app.figure_cache`): :meth:`load` reads them,
        :meth:`warm` writes them after computing a report it did not load."""
        self._loaded: int | None = None

    def load(self) -> Report | None:
        """The report and its encoded figures from the disk cache (``None``: compute them)."""
        cached = self.disk.load() if self.disk is not None else None
        if cached is None:
            return None
        with self._lock:
            for (name, highlight), value in cached.figures.items():
                self._cache[(id(cached.report), name, highlight)] = PlotData(
                    type="matplotlib", plot=value["plot"]
                )
            self._loaded = id(cached.report)
        return cached.report

    def get(self, report: Report, key: str, highlight: str | None = None) -> Any:
        highlight = highlight if key == "risk" else None
        with self._lock:
            cached = self._cache.get((id(report), key, highlight))
            if cached is None:
                cached = self._encoder.postprocess(analysis.figure(report, key, highlight))
                self._cache[(id(report), key, highlight)] = cached
            return cached

    def encode(self, fig: Any) -> Any:
        return self._encoder.postprocess(fig)

    def judge(self, record: ScoreRecord, name: str) -> Any:
        """One judge's agreement-by-tier figure, encoded once per record and name."""
        key = (str(record.id), name)
        with self._lock:
            cached = self._judges.get(key)
        if cached is None:
            cached = self.encode(analysis.judge_figure(record, name))
            with self._lock:
                self._judges[key] = cached
        return cached

    def warm(self, report: Report) -> None:
        """Draw every figure of ``report``, and the figures of the judge the tab shows first."""
        for key, _, _ in analysis.FIGURES:
            self.get(report, key)
        judges = judge_records(self.records()) if self.records is not None else {}
        for name, record in list(judges.items())[:1]:
            self.get(report, "risk", name)
            self.judge(record, name)
        if self.disk is not None and self._loaded != id(report):
            with self._lock:
                drawn = {k[1:]: v for k, v in self._cache.items() if k[0] == id(report)}
            self.disk.save(report, drawn)


@dataclass(frozen=True)
class AnalysisTab:
    """The tab's components and handlers; :meth:`wire` adds its events once the tabs exist."""

    tab: gr.Tab
    status: gr.Markdown
    judge: gr.Dropdown
    plots: dict[str, gr.Plot]
    judge_plot: gr.Plot
    judge_table: gr.Dataframe
    filled: gr.State
    analysis_ui: Callable[[str | None, str], tuple[Any, ...]]
    judge_ui: Callable[[str | None], tuple[Any, ...]]
    panel: gr.Dataframe
    panel_ui: Callable[[str], tuple[Any, ...]]
    panel_filled: gr.State

    @property
    def outputs(self) -> list[Any]:
        return [
            self.status,
            *self.plots.values(),
            self.judge,
            self.judge_plot,
            self.judge_table,
            self.filled,
        ]

    def wire(self) -> None:
        """Fill the tab when it is first opened; redraw the judge's figures on a new choice."""
        # each shows its progress on a line or the choice, not on the figures and tables:
        # Gradio reads every progress target back at each later event (issue 39)
        self.tab.select(
            self.panel_ui,
            [self.panel_filled],
            [self.panel, self.panel_filled],
            show_progress_on=self.status,
            **HIDDEN,
        )
        self.tab.select(
            self.analysis_ui,
            [self.judge, self.filled],
            self.outputs,
            show_progress="hidden",
            show_progress_on=self.status,
            **HIDDEN,
        )
        self.judge.input(
            self.judge_ui,
            [self.judge],
            [self.judge, self.plots["risk"], self.judge_plot, self.judge_table],
            show_progress="minimal",
            show_progress_on=self.judge,
            **HIDDEN,
        )


@dataclass(frozen=True)
class AnalysisHandlers:
    """The tab's handlers: the whole tab on opening, one judge's figures, the panel table."""

    ctx: TabContext
    plots_cache: Plots

    def ready_report(self) -> Report | str:
        try:
            return self.ctx.state.report.result(timeout=REPORT_WAIT_S)
        except FutureTimeout:
            return "The analyses are still being computed; they appear here once ready."
        except Exception as exc:  # a failed reproduce is shown, not raised
            return f"The analyses are not available: {exc}"

    def analysis_ui(self, judge_name: str | None, filled: str) -> tuple[Any, ...]:
        report = self.ready_report()
        state = self.ctx.state  # the judges change with the store and the reference rows
        ready = int(state.references_ready)  # (a restart serves before these: figure cache)
        key = "" if isinstance(report, str) else f"{id(report)}-{state.store.version}-{ready}"
        if key and key == filled:
            return tuple(gr.skip() for _ in range(N_FIGURES + 5))
        if isinstance(report, str):
            return (report, *(gr.skip() for _ in range(N_FIGURES + 3)), filled)
        banner = "Synthetic data: simulated ratings." if report.synthetic else ""
        choice, risk, judge_plot, table = self.judge_ui(judge_name)
        figures = [self.plots_cache.get(report, k) for k, _, _ in analysis.FIGURES if k != "risk"]
        return (banner, *figures, risk, choice, judge_plot, table, key)

    def judge_ui(self, judge_name: str | None) -> tuple[Any, ...]:
        records = judge_records(self.ctx.state.records())
        choices = list(records)
        chosen = judge_name if judge_name in records else (choices[0] if choices else None)
        report = self.ready_report()
        risk = (
            gr.skip() if isinstance(report, str) else self.plots_cache.get(report, "risk", chosen)
        )
        if chosen is None:
            return gr.update(choices=[], value=None), risk, None, empty()
        record = records[chosen]
        return (
            gr.update(choices=choices, value=chosen),
            risk,
            self.plots_cache.judge(record, chosen),
            frame(analysis.judge_tier_table(record)),
        )

    def panel_ui(self, done: str) -> tuple[Any, ...]:
        report = self.ready_report()
        if isinstance(report, str) or done == str(id(report)):
            return gr.skip(), done
        return frame(analysis.panel_frame(report)), str(id(report))


def add_figure(title: str, caption: str) -> gr.Plot:
    """One figure of the tab: its title and caption above, the image (filled on opening)."""
    gr.Markdown(f"### {title}\n{caption}", elem_classes="mq-caption")
    return gr.Plot(show_label=False, format="png", elem_classes="mq-plot")


JUDGE_CAPTION: Final = (
    "Cohen's kappa, percent agreement (PA) and PABAK with the physician consensus per tier, "
    "with 95% bootstrap intervals (coefficients from 0 to 1)."
)
PANEL_CAPTION: Final = (
    "Beside the mean pairwise kappa, Fleiss' kappa and Gwet's AC1 over all ten physicians per "
    "student slot, Krippendorff's alpha, and for difficulty the ICC(2,1) beside alpha; 95% "
    "intervals from the same question resamples (Table 1)."
)


def add_analysis_tab(ctx: TabContext, plots_cache: Plots) -> AnalysisTab:
    """Lay out the Analysis tab (inside ``gr.Tabs``); figures come from ``plots_cache``. Each
    figure of :data:`analysis.FIGURES` is one :func:`add_figure` (the risk-coverage curves
    last, below the judge they highlight)."""
    handlers = AnalysisHandlers(ctx, plots_cache)
    with gr.Tab("Analysis", id="analysis", elem_id="mq-analysis", render_children=True) as tab:
        gr.Markdown(text.ANALYSIS_HELP)
        a_status = gr.Markdown()
        a_judge = gr.Dropdown(
            [], label="Judge (highlighted in the risk-coverage curves)", value=None
        )
        plots = {
            key: add_figure(title, caption)
            for key, title, caption in analysis.FIGURES
            if key != "risk"
        }
        _, risk_title, risk_caption = analysis.FIGURES[-1]
        plots["risk"] = add_figure(risk_title, risk_caption)
        a_judge_plot = add_figure("Agreement of the chosen judge by difficulty tier", JUDGE_CAPTION)
        a_judge_table = gr.Dataframe(
            label="Agreement by tier (coefficients, 3 decimals)", interactive=False
        )
        gr.Markdown(
            f"### The physician ceiling: the whole panel (core)\n{PANEL_CAPTION}",
            elem_classes="mq-caption",
        )
        panel = gr.Dataframe(label="Physician panel reliability", interactive=False)
        panel_filled = gr.State("")
        behaviour_view.add_section(tab, ctx.state, plots_cache.encode)
        filled = gr.State("")
    return AnalysisTab(
        tab=tab,
        status=a_status,
        judge=a_judge,
        plots=plots,
        judge_plot=a_judge_plot,
        judge_table=a_judge_table,
        filled=filled,
        analysis_ui=handlers.analysis_ui,
        judge_ui=handlers.judge_ui,
        panel=panel,
        panel_ui=handlers.panel_ui,
        panel_filled=panel_filled,
    )
