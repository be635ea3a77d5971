"""The About tab: the benchmark, rules and limits in prose, and the two template CSVs."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from medqade import scoring
from medqade.app import glossary, text
from medqade.app.context import TabContext
from medqade.app.exports import Exports
from medqade.dataset.release import Release


def templates(release: Release, exports: Exports) -> tuple[str, str]:
    """Template CSVs: every answer slot for judge labels, every question for model answers."""
    ids = release.item_ids
    students = release.roster.student_ids
    judge = pd.DataFrame(
        {
            "question_id": [q for q in ids for _ in students],
            "model": [m for _ in ids for m in students],
            "label": "",
        }
    )
    answers = pd.DataFrame({"question_id": ids, "answer": ""})
    return (
        exports.write("medqade-template-judge-labels.csv", scoring.csv_text(judge)),
        exports.write("medqade-template-model-answers.csv", scoring.csv_text(answers)),
    )


def add_about_tab(ctx: TabContext, judge_template: str, answers_template: str) -> None:
    """Lay out the About tab (inside ``gr.Tabs``), offering the templates' files for download."""
    release, config = ctx.release, ctx.config
    with gr.Tab("About", id="about", elem_id="mq-about"):
        gr.Markdown(
            text.about(
                release.synthetic,
                config.max_upload_mb,
                config.rate_limit,
                config.rate_window_days,
            )
        )
        gr.Markdown(glossary.markdown(), elem_id="mq-about-glossary")
        with gr.Row():
            gr.DownloadButton("Template: judge labels (CSV)", value=judge_template)
            gr.DownloadButton("Template: model answers (CSV)", value=answers_template)
