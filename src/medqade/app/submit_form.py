"""The Submit tab's layout: the upload form (one component per ``/submit`` parameter, in
:data:`FORM` order) and the result area (status, warnings, problems, and the result box with
its tables and downloads). Its handlers are in :mod:`medqade.app.tab_submit`.
"""

from __future__ import annotations

from typing import Any, Final

import gradio as gr

from medqade.app.context import TabContext
from medqade.app.state import FAMILY_OTHER
from medqade.scoring.intake import FORM_KEYS, PRICES

UPLOAD_TYPES: Final = [".csv", ".tsv", ".jsonl", ".json", ".parquet", ".eval"]


KIND_CHOICES: Final = [("judge labels", "judge"), ("model answers", "answers")]


PROMPT_CHOICES: Final = [("not stated", ""), ("the official prompt", "official"), ("own", "own")]


RESULT_KEPT_S: Final = 3600
"""How long a session's last result stays on the server for the page to show it."""


def form_components(ctx: TabContext) -> dict[str, Any]:
    """The upload, its kind, the optional labels file and the metadata fields, keyed by the
    ``/submit`` parameter each one fills."""
    config = ctx.config
    families = [*ctx.release.roster.families, FAMILY_OTHER]
    out: dict[str, Any] = {}
    with gr.Row():
        with gr.Column(scale=2):
            out["file"] = gr.File(
                label=f"Submission file (at most {config.max_upload_mb:g} MiB)",
                file_types=UPLOAD_TYPES,
                type="filepath",
                elem_id="mq-upload",
            )
            out["kind"] = gr.Radio(KIND_CHOICES, value="judge", label="Kind")
            out["labels_file"] = gr.File(
                label="Optional, model answers only: a judge's labels for unmatched answers",
                file_types=UPLOAD_TYPES,
                type="filepath",
            )
        with gr.Column(scale=3):
            with gr.Row():
                out["name"] = gr.Textbox(label="Display name", max_length=300)
                out["model_id"] = gr.Textbox(label="Model id", max_length=300)
                out["revision"] = gr.Textbox(label="Revision / access date", max_length=300)
            with gr.Row():
                out["family"] = gr.Dropdown(families, value=None, label="Family")
                out["organisation"] = gr.Textbox(label="Organisation", max_length=300)
                out["link"] = gr.Textbox(label="Link (https://...)", max_length=300)
            with gr.Row():
                out["prompt"] = gr.Dropdown(PROMPT_CHOICES, value="", label="Prompt")
                out["prompt_sha256"] = gr.Textbox(label="Prompt SHA-256", max_length=64)
                out["decoding"] = gr.Textbox(
                    label="Decoding settings", placeholder="temperature 0", max_length=300
                )
            with gr.Row():  # text, not gr.Number: an empty field is no price, not 0
                for key, tokens in PRICES.items():
                    out[key] = gr.Textbox(
                        label=f"Price per million {tokens} tokens (EUR)",
                        placeholder="optional, e.g. 0.15",
                        max_length=40,
                        elem_id=f"mq-{key.replace('_', '-')}",
                    )
            out["notes"] = gr.Textbox(label="Notes", lines=2, max_length=2000)
    with gr.Row():
        out["validate_only"] = gr.Checkbox(label="validate only (dry run: scored, nothing stored)")
        out["button"] = gr.Button("Check and score", variant="primary")
    return out


def result_components() -> dict[str, Any]:
    """The status, warnings, problems and the result box with its tables and downloads, keyed
    in the order :meth:`medqade.app.tab_submit.SubmitHandlers.render_result` fills them."""
    out: dict[str, Any] = {}
    out["status"] = gr.Textbox(label="Status", interactive=False, elem_id="mq-status", lines=2)
    out["warnings"] = gr.Textbox(label="Warnings", interactive=False, lines=2)
    out["result_json"] = gr.JSON(label="Result record", visible=False)
    out["shown"] = gr.State(None, time_to_live=RESULT_KEPT_S)
    out["problems"] = gr.Dataframe(
        label="Problems", interactive=False, elem_id="mq-problems", visible=False
    )
    out["problems_file"] = gr.DownloadButton("Problems CSV", visible=False, size="sm")
    with gr.Column(visible=False) as out["box"]:
        out["summary"] = gr.Dataframe(label="Summary", interactive=False, elem_id="mq-summary")
        for key, label in RESULT_TABLES:
            out[key] = gr.Dataframe(label=label, interactive=False)
        with gr.Row():
            out["record_file"] = gr.DownloadButton("Result record (JSON)", size="sm")
            out["eval_file"] = gr.DownloadButton(
                "For your model repo's .eval_results/ (YAML)", size="sm", visible=False
            )
    return out


RESULT_TABLES: Final = (
    ("slots", "Per answer slot (core)"),
    ("grouped", "By difficulty tier and lexical stratum"),
    ("confusion", "Confusion matrix (judge label x consensus)"),
    ("abstention", "Abstention by tier"),
    ("bias", "Self and family bias (percentage points, vs out-of-family evaluators)"),
    ("fidelity", "Ranking fidelity: each student's accuracy, judge vs physicians, and tau"),
    ("cells", "Where it fails: kappa by specialty and tier, judge vs physicians (core)"),
    ("ensembles", "Majority-vote panels with and without the submission (core)"),
    ("disagreements", "Answers where the judge contradicts a unanimous physician panel"),
)
"""The result's tables below the summary, in the order they are filled, with their labels."""


FORM: Final = (
    "file",
    "kind",
    *FORM_KEYS,
    "prompt_sha256",
    "decoding",
    "notes",
    "validate_only",
    "labels_file",
    *PRICES,
)
"""The ``/submit`` parameters in order (the form's components are keyed by them); the prices
came last, so a caller that gives the earlier ones by position is unchanged."""
