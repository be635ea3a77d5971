"""The Leaderboard tab's pool panel: each model's accuracy on the whole item pool.

For a chosen judge with published pool labels, one row per student model: the
prediction-powered (PPI++) estimate with its 95% CI, the physician-only and judge-only
estimates beside it and the effective-sample-size gain (:mod:`medqade.measures.pool`). The
numbers are computed once per judge and kept; the panel exists only when the release has a pool.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from medqade.app.context import HIDDEN
from medqade.dataset.pool_data import load_pool_labels, pool_evaluators
from medqade.dataset.release import Release
from medqade.dataset.sources import resolve_data
from medqade.measures import estimate_pool

POOL_NOTE = (
    "**Accuracy on the whole pool** ({n_pool} items, {n_lab} of them rated by physicians), "
    "judge {judge}. *PPI* combines the judge's labels of every pool answer with the "
    "physicians' labels of the benchmark sample: unbiased for the physician consensus however "
    "biased the judge is, and narrower than the physicians alone (the *ESS gain*). "
    "*Judge-only* is the judge's own figure, shown for contrast: it carries the judge's bias."
)


def _pct(x: float) -> float | None:
    return None if math.isnan(x) else round(100 * x, 1)


class PoolView:
    """Pool tables of one build folder, per judge (cached)."""

    def __init__(self, folder: Path, release: Release) -> None:
        self.folder = folder
        self.release = release
        self.judges = tuple(
            e for e in release.roster.evaluator_ids if e in set(pool_evaluators(folder))
        )
        self.table = lru_cache(maxsize=16)(self._table)

    def _table(self, judge: str) -> tuple[str, pd.DataFrame]:
        pl = load_pool_labels(self.folder, judge)
        lab = pl.labelled
        est = estimate_pool(pl)
        rows = []
        for model, e in est.items():
            rows.append(
                {
                    "model": self.release.roster.name(model),
                    "pool accuracy (PPI) %": _pct(e.ppi.estimate),
                    "95% CI low": _pct(e.ppi.low),
                    "95% CI high": _pct(e.ppi.high),
                    "physician-only %": _pct(e.physician_only.estimate),
                    "judge-only % (biased)": _pct(e.judge_only.estimate),
                    "ESS gain": None if math.isnan(e.ess_gain) else round(e.ess_gain, 2),
                }
            )
        note = POOL_NOTE.format(
            n_pool=len(pl.judge_pool), n_lab=int(lab.sum()), judge=self.release.roster.name(judge)
        )
        return note, pd.DataFrame(rows)


def pool_view(data: str | None, release: Release) -> PoolView | None:
    """The view for ``--data``, or ``None`` when the release publishes no pool judgments."""
    if not release.meta.has_pool_judgments:
        return None
    view = PoolView(resolve_data(data), release)
    return view if view.judges else None


def add_pool_panel(view: PoolView) -> None:
    """The judge choice, the note and the table (inside the Leaderboard tab's layout)."""
    first = view.judges[0]
    note, table = view.table(first)
    with gr.Accordion("Models on the whole pool (prediction-powered)", open=False):
        judge = gr.Dropdown(
            choices=[(view.release.roster.name(e), e) for e in view.judges],
            value=first,
            label="Judge whose pool labels are used",
            elem_id="mq-pool-judge",
        )
        shown_note = gr.Markdown(note)
        shown = gr.Dataframe(value=table, interactive=False, elem_id="mq-pool")

    def choose(selected: str) -> tuple[Any, Any]:
        if selected not in view.judges:
            return gr.skip(), gr.skip()
        n, t = view.table(selected)
        return n, t

    judge.change(
        choose, [judge], [shown_note, shown], show_progress_on=shown_note, **HIDDEN
    )  # on the note, not the table: Gradio reads every progress target back (issue 39)
