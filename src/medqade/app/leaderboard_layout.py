"""The Leaderboard tab's layout: its controls (view, search, column groups, ranking metric and
margin, the phone's judge cards) and its tables (the judges and models boards, the
per-physician entry, the glossary and the downloads). Its handlers are in
:mod:`medqade.app.tab_leaderboard`.
"""

from __future__ import annotations

from typing import Any, Final

import gradio as gr

from medqade.app import glossary, prose, text, views
from medqade.app.board_table import BOARD_JS
from medqade.app.context import TabContext
from medqade.scoring.board import MARGIN_STEP

SEARCH_MAX: Final = 200
"""The longest search text the page's refresh takes (longer: every row, and a note): what the
page shows is remembered per session, so a visitor's text must stay small."""


def controls_components(ctx: TabContext) -> dict[str, Any]:
    """The view, search, column groups, ranking metric and margin (in this order on the page,
    the phone's judge cards above them)."""
    out: dict[str, Any] = {}
    prose.block(text.LEADERBOARD_LEAD, elem_id="mq-lead")
    with gr.Accordion("How to read these tables", open=False, elem_id="mq-help"):
        gr.Markdown(text.LEADERBOARD_HELP)
    with gr.Row():
        out["view"] = gr.Radio(
            ["core", "full"], value="core", label="View", scale=1, min_width=160, elem_id="mq-view"
        )
        out["search"] = gr.Textbox(
            label="Search",
            placeholder="name, model id, family, organisation",
            max_length=SEARCH_MAX,
            scale=3,
            elem_id="mq-search",
        )
    # phone only (CSS): the judge cards, below View and Search (which filter them)
    out["cards"] = gr.HTML(elem_id="mq-cards", elem_classes="mq-phone-only")
    # folded, side by side, so the judges start on the first screen (issue 27)
    with gr.Row(equal_height=False):
        with gr.Accordion("Columns", open=False, elem_id="mq-columns-fold"):
            out["columns"] = gr.CheckboxGroup(
                list(views.COLUMN_GROUPS),
                value=list(views.DEFAULT_GROUPS),
                show_label=False,
                elem_id="mq-columns",
            )
        with gr.Accordion("Rank and verdict", open=False, elem_id="mq-rank-fold"):
            gr.Markdown(text.RANK_HELP)
            out["metric"] = gr.Radio(
                ["kappa", "PA", "PABAK"], value="kappa", label="Rank judges on", elem_id="mq-metric"
            )
            out["margin"] = gr.Number(
                value=ctx.config.margin,
                label="Non-inferiority margin (verdict)",
                minimum=0,
                maximum=1,
                step=MARGIN_STEP,
                elem_id="mq-margin",
            )
    return out


def board(**kwargs: Any) -> gr.HTML:
    """An empty leaderboard board (:func:`medqade.app.board_table.board_html` fills it)."""
    return gr.HTML(
        js_on_load=BOARD_JS, show_label=False, padding=False, apply_default_css=False, **kwargs
    )


def table_components() -> dict[str, Any]:
    """The note line, the judges table, the per-physician entry and table, the models table
    and the three downloads."""
    out: dict[str, Any] = {"note": prose.block()}
    out["judges"] = board(elem_id="mq-judges", elem_classes="mq-inpage")
    out["physicians_button"] = gr.Button(
        "Per-physician agreement", size="sm", variant="secondary", elem_id="mq-physicians-open"
    )
    out["physicians_note"] = gr.Markdown(visible=False, elem_id="mq-physicians-note")
    out["physicians"] = board(visible=False, elem_id="mq-physicians")
    out["models"] = board(elem_id="mq-models")
    with gr.Accordion("What the columns mean", open=False, elem_id="mq-glossary"):
        gr.Markdown(glossary.markdown())
    with gr.Row():
        out["downloads"] = (
            gr.DownloadButton("Judges CSV", size="sm"),
            gr.DownloadButton("Models CSV", size="sm"),
            gr.DownloadButton("Leaderboard JSON", size="sm"),
        )
    return out
