"""The Gradio Blocks of the Space: five tabs that arrange components and call :class:`SpaceState`.

Public API endpoints (named, documented, callable with ``gradio_client``):

============ =========================================================================
/leaderboard ``(view, search)`` -> judges table, models table
/submit      ``(file, kind, name, model_id, revision, family, organisation, link, prompt,
             prompt_sha256, decoding, notes, validate_only, labels_file)`` -> status text,
             result JSON (``ok``, ``message``, ``record``, ``summary``, ``warnings``),
             problems table
/browse      ``(split, tier, lexical, specialty, filters, judge, search)`` -> count, items
/item        ``(item_id, blind)`` -> header (escaped HTML), answers table, labels table
============ =========================================================================

Every other handler (rendering a result, downloads, tab loads, deep links) is private. Text
from submitters only reaches the page as Dataframe cells, a read-only Textbox or escaped HTML.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import gradio as gr
import pandas as pd

from medqade import scoring
from medqade.app import analysis, text, views
from medqade.app.browse import ALL, FLAGS
from medqade.app.config import SpaceConfig
from medqade.app.state import FAMILY_OTHER, Outcome, SpaceState
from medqade.release import Release

if TYPE_CHECKING:
    from medqade.analyses.report import Report

CSS: Final = """
.mq-banner { background: #fff3cd; color: #5c4400; border: 1px solid #e0c36a;
             padding: 8px 12px; border-radius: 6px; margin-bottom: 6px; }
.mq-item .mq-question { font-size: 1.1em; margin: 6px 0; }
"""
UPLOAD_TYPES: Final = [".csv", ".tsv", ".jsonl", ".json", ".parquet"]
KIND_CHOICES: Final = [("judge labels", "judge"), ("model answers", "answers")]
PROMPT_CHOICES: Final = [("not stated", ""), ("the official prompt", "official"), ("own", "own")]
SAFE_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")
READ_CONCURRENCY: Final = 8
SUBMIT_CONCURRENCY: Final = 4

Table = pd.DataFrame


def _frame(frame: Table) -> Any:
    """A read-only, sortable table (numbers typed as numbers, the name column pinned)."""
    return gr.update(value=frame, datatype=views.datatypes(frame))


def _empty() -> Table:
    return pd.DataFrame()


class _Exports:
    """Files offered for download, written once per content into one temporary folder."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="medqade-space-"))
        self._lock = threading.Lock()

    def write(self, name: str, data: str, replaces: str | None = None) -> str:
        """Write ``data`` as ``name`` (once); ``replaces`` deletes older files with that prefix."""
        if not SAFE_NAME.match(name):
            raise ValueError(f"export name {name!r} is not a plain file name")
        path = self.root / name
        with self._lock:
            if not path.exists():
                tmp = path.with_name(f".{name}.tmp")
                tmp.write_text(data, encoding="utf-8")
                tmp.replace(path)
            if replaces:
                for old in self.root.glob(f"{replaces}*"):
                    if old != path:
                        old.unlink(missing_ok=True)
        return str(path)


class _Plots:
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


def _templates(release: Release, exports: _Exports) -> tuple[str, str]:
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


def build_app(
    release: Release,
    results_dir: Path,
    config: SpaceConfig | None = None,
    *,
    state: SpaceState | None = None,
    background: bool = True,
    analyses: bool = True,
    write_lock: Any = None,
) -> gr.Blocks:
    """The Space over ``release`` with submissions stored in ``results_dir``.

    ``background`` computes the reference records (when not cached on disk), the stored
    judges' labels and the paper's analyses in a thread, so the page serves at once;
    ``analyses=False`` skips :func:`medqade.analyses.reproduce` (tests). ``write_lock`` is held
    around every write into ``results_dir`` (the Hub mirror's lock). The state is reachable
    as ``demo.medqade_state`` for tests and benchmarks.
    """
    config = config or SpaceConfig(results_dir=Path(results_dir))
    plots_cache = _Plots()
    st = state or SpaceState(
        release,
        Path(results_dir),
        config,
        write_lock=write_lock,
        background=background,
        analyses=analyses,
        on_report=plots_cache.warm,
    )
    exports = _Exports()
    judge_template, answers_template = _templates(release, exports)
    browse = st.browse
    families = [*release.roster.families, FAMILY_OTHER]

    # --- handlers: leaderboard ---------------------------------------------------------------

    def leaderboard(view: str, search: str) -> tuple[Table, Table]:
        """The judges and models tables of the leaderboard for `view` ("core": the 200 items
        every physician rated; "full": all items), keeping rows whose name, model id, family,
        source, badge or organisation contain `search`. Numbers are rounded for display."""
        boards = st.boards(view if view in ("core", "full") else "core")
        groups = views.COLUMN_GROUPS
        return (
            views.select(boards.judges_display, views.JUDGE_GROUPS, groups, search or ""),
            views.select(boards.models_display, views.MODEL_GROUPS, groups, search or ""),
        )

    def leaderboard_ui(view: str, search: str, columns: list[str]) -> tuple[Any, ...]:
        view = view if view in ("core", "full") else "core"
        boards = st.boards(view)
        judges = views.select(boards.judges_display, views.JUDGE_GROUPS, columns, search or "")
        models = views.select(boards.models_display, views.MODEL_GROUPS, columns, search or "")
        note = (
            ""
            if st.references_ready
            else (
                "Reference rows (paper evaluators, physicians, baselines, students) are being "
                "computed for this dataset; reload in a few seconds."
            )
        )
        tag = f"{view}-{st.store.version}-{int(st.references_ready)}"
        payload = {
            "view": view,
            "dataset": {"hash": release.data_hash, "synthetic": release.synthetic},
            "judges": json.loads(boards.judges.to_json(orient="records")),
            "models": json.loads(boards.models.to_json(orient="records")),
        }
        return (
            note,
            _frame(judges),
            _frame(models),
            exports.write(
                f"medqade-judges-{tag}.csv",
                scoring.csv_text(boards.judges),
                replaces=f"medqade-judges-{view}-",
            ),
            exports.write(
                f"medqade-models-{tag}.csv",
                scoring.csv_text(boards.models),
                replaces=f"medqade-models-{view}-",
            ),
            exports.write(
                f"medqade-leaderboard-{tag}.json",
                json.dumps(payload, indent=1, ensure_ascii=False),
                replaces=f"medqade-leaderboard-{view}-",
            ),
        )

    # --- handlers: submit --------------------------------------------------------------------

    def submit(
        file: str | None,
        kind: str,
        name: str,
        model_id: str,
        revision: str,
        family: str | None,
        organisation: str,
        link: str,
        prompt: str | None,
        prompt_sha256: str,
        decoding: str,
        notes: str,
        validate_only: bool,
        labels_file: str | None,
        profile: gr.OAuthProfile | None,
    ) -> tuple[str, dict[str, Any], Table]:
        """Check and score one submission file. `kind` is "judge" (labels for the answers) or
        "answers" (one answer per question); the metadata fields describe the run; with
        `validate_only` the file is only checked. `labels_file` (optional, model answers only)
        holds a judge's labels for answers that match no physician-labelled answer. Returns a
        status line, the result (record or summary) and a table of row-level problems."""
        username = None if profile is None else str(profile.username)
        fields = {
            "name": name,
            "model_id": model_id,
            "revision": revision,
            "family": family,
            "organisation": organisation,
            "link": link,
            "prompt": prompt,
            "prompt_sha256": prompt_sha256,
            "decoding": decoding,
            "notes": notes,
        }
        outcome = st.submit(
            file,
            kind if kind in scoring.KINDS else None,
            fields,
            username,
            validate_only=bool(validate_only),
            labels_path=labels_file or None,
        )
        return _outcome(outcome)

    def _outcome(outcome: Outcome) -> tuple[str, dict[str, Any], Table]:
        result = {
            "ok": outcome.ok,
            "message": outcome.message,
            "record": outcome.record,
            "summary": outcome.summary,
            "warnings": list(outcome.warnings),
        }
        prefix = "Accepted" if outcome.ok else "Not accepted"
        return f"{prefix}: {outcome.message}", result, views.problems_table(outcome.problems)

    def render_result(result: dict[str, Any] | None, problems: Any) -> tuple[Any, ...]:
        # the record is looked up in the store by id: what the browser sends back is not trusted
        sent = (result or {}).get("record") or {}
        record = st.store.get(str(sent.get("id", ""))) if isinstance(sent, dict) else None
        frame = problems if isinstance(problems, pd.DataFrame) else pd.DataFrame(problems)
        digest = hashlib.sha256(frame.to_json().encode("utf-8")).hexdigest()[:16]
        problems_file = (
            exports.write(f"medqade-problems-{digest}.csv", scoring.csv_text(frame))
            if len(frame)
            else None
        )
        warnings = "\n".join((result or {}).get("warnings") or [])
        show_problems = gr.update(visible=bool(len(frame)))
        if not record:
            return (
                gr.update(visible=False),
                *(_empty() for _ in range(8)),
                None,
                gr.update(value=problems_file, visible=problems_file is not None),
                warnings,
                show_problems,
            )
        roster = release.roster
        record_file = exports.write(
            f"medqade-result-{str(record['id'])[:16]}.json", views.record_json(record)
        )
        return (
            gr.update(visible=True),
            _frame(views.summary_table(record)),
            _frame(views.slots_table(record, roster)),
            _frame(views.grouped_table(record)),
            _frame(views.confusion_table(record)),
            _frame(views.abstention_table(record)),
            _frame(views.bias_table(record, roster)),
            _frame(views.ensembles_table(record)),
            _frame(views.disagreements_table(record)),
            record_file,
            gr.update(value=None, visible=False),
            warnings,
            show_problems,
        )

    # --- handlers: browse --------------------------------------------------------------------

    def browse_items(
        split: str,
        tier: str,
        lexical: str,
        specialty: str,
        filters: list[str],
        judge: str | None,
        search: str,
    ) -> tuple[str, Table]:
        """Question sets that pass every filter: `split` (core/extension/all), `tier`
        (T1-T4/all), `lexical` (exact match/no match/all), `specialty`, `filters` (any of
        "physicians split", "unresolved", "chosen judge disagrees with consensus", "all judges
        wrong", "physicians abstained"), `judge` (for the judge filter) and a free-text
        `search`. Returns a count line and the first 500 matching items."""
        try:
            keep = browse.mask(split, tier, lexical, specialty, filters or [], judge, search or "")
        except ValueError as exc:
            return str(exc), _empty()
        rows, total = browse.results(keep)
        shown = f" (showing the first {len(rows)})" if total > len(rows) else ""
        return f"{total:,} of {release.n_items:,} question sets{shown}", rows

    def item(item_id: str, blind: bool) -> tuple[str, Table, Table]:
        """One question set by id: its header (question, reference, split, tier, link), the
        five answers with consensus and votes, and every physician's and judge's label.
        With `blind` the models are hidden and the answers shuffled (fixed per item)."""
        try:
            view = browse.view(item_id or "", bool(blind))
        except KeyError:
            return (
                f"<p>No question set with id <code>{views.plain(item_id)}</code>.</p>",
                (_empty()),
                _empty(),
            )
        return view.header_html, view.answers, view.labels

    def item_ui(item_id: str, blind: bool) -> tuple[Any, ...]:
        header, answers, labels = item(item_id, blind)
        return header, _frame(answers), _frame(labels)

    def open_selected(evt: gr.SelectData, blind: bool) -> tuple[Any, ...]:
        row = evt.row_value if isinstance(evt.row_value, list) else []
        item_id = str(row[0]) if row else ""
        return (item_id, *item_ui(item_id, blind))

    def open_disagreement(evt: gr.SelectData, blind: bool) -> tuple[Any, ...]:
        row = evt.row_value if isinstance(evt.row_value, list) else []
        item_id = str(row[1]) if len(row) > 1 else ""
        return (gr.update(selected="browse"), item_id, *item_ui(item_id, blind))

    def judge_choices() -> Any:
        return gr.update(choices=browse.judge_choices())

    # --- handlers: analysis ------------------------------------------------------------------

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
            return gr.update(choices=[], value=None), None, _empty()
        long, table = analysis.judge_tier_frames(records[chosen])
        return gr.update(choices=choices, value=chosen), long, _frame(table)

    def deep_link(request: gr.Request, blind: bool) -> tuple[Any, ...]:
        item_id = str(request.query_params.get("item", "") or "") if request else ""
        if not item_id:
            return (gr.update(), gr.update(), gr.update(), gr.update(), gr.update())
        return (gr.update(selected="browse"), item_id, *item_ui(item_id, blind))

    # --- layout ------------------------------------------------------------------------------

    demo = gr.Blocks(title=text.TITLE, analytics_enabled=False)
    with demo:
        if release.synthetic:
            gr.HTML(text.SYNTHETIC_BANNER, elem_id="mq-synthetic-banner")
        gr.Markdown(text.INTRO)
        with gr.Tabs() as tabs:
            with gr.Tab("Leaderboard", id="leaderboard") as tab_leaderboard:
                gr.Markdown(text.LEADERBOARD_HELP)
                with gr.Row():
                    view = gr.Radio(
                        ["core", "full"], value="core", label="View", scale=1, min_width=160
                    )
                    search = gr.Textbox(
                        label="Search", placeholder="name, model id, family, organisation", scale=3
                    )
                columns = gr.CheckboxGroup(
                    list(views.COLUMN_GROUPS), value=list(views.DEFAULT_GROUPS), label="Columns"
                )
                lb_note = gr.Markdown()
                judges_table = gr.Dataframe(
                    label="Judges (agreement with physician consensus)",
                    interactive=False,
                    pinned_columns=2,
                    max_height=600,
                    elem_id="mq-judges",
                )
                models_table = gr.Dataframe(
                    label="Models (accuracy by physician consensus)",
                    interactive=False,
                    pinned_columns=2,
                    max_height=500,
                    elem_id="mq-models",
                )
                with gr.Row():
                    dl_judges = gr.DownloadButton("Judges CSV", size="sm")
                    dl_models = gr.DownloadButton("Models CSV", size="sm")
                    dl_json = gr.DownloadButton("Leaderboard JSON", size="sm")

            with gr.Tab("Submit", id="submit"):
                gr.Markdown(text.SUBMIT_HELP)
                if config.show_login:
                    gr.LoginButton()
                with gr.Row():
                    with gr.Column(scale=2):
                        upload = gr.File(
                            label=f"Submission file (at most {config.max_upload_mb:g} MiB)",
                            file_types=UPLOAD_TYPES,
                            type="filepath",
                            elem_id="mq-upload",
                        )
                        kind = gr.Radio(KIND_CHOICES, value="judge", label="Kind")
                        labels_upload = gr.File(
                            label="Optional, model answers only: a judge's labels for "
                            "unmatched answers",
                            file_types=UPLOAD_TYPES,
                            type="filepath",
                        )
                    with gr.Column(scale=3):
                        with gr.Row():
                            f_name = gr.Textbox(label="Display name", max_length=300)
                            f_model = gr.Textbox(label="Model id", max_length=300)
                            f_revision = gr.Textbox(label="Revision / access date", max_length=300)
                        with gr.Row():
                            f_family = gr.Dropdown(families, value=None, label="Family")
                            f_org = gr.Textbox(label="Organisation", max_length=300)
                            f_link = gr.Textbox(label="Link (https://...)", max_length=300)
                        with gr.Row():
                            f_prompt = gr.Dropdown(PROMPT_CHOICES, value="", label="Prompt")
                            f_prompt_sha = gr.Textbox(label="Prompt SHA-256", max_length=64)
                        f_decoding = gr.Textbox(
                            label="Decoding settings", placeholder="temperature 0", max_length=300
                        )
                        f_notes = gr.Textbox(label="Notes", lines=2, max_length=2000)
                with gr.Row():
                    validate = gr.Checkbox(label="validate only (dry run, nothing stored)")
                    submit_btn = gr.Button("Check and score", variant="primary")
                status = gr.Textbox(label="Status", interactive=False, elem_id="mq-status", lines=2)
                warnings_box = gr.Textbox(label="Warnings", interactive=False, lines=2)
                result_json = gr.JSON(label="Result record", visible=False)
                problems = gr.Dataframe(
                    label="Problems", interactive=False, elem_id="mq-problems", visible=False
                )
                problems_file = gr.DownloadButton("Problems CSV", visible=False, size="sm")
                with gr.Column(visible=False) as result_box:
                    summary = gr.Dataframe(label="Summary", interactive=False, elem_id="mq-summary")
                    slots = gr.Dataframe(label="Per answer slot (core)", interactive=False)
                    grouped = gr.Dataframe(
                        label="By difficulty tier and lexical stratum", interactive=False
                    )
                    confusion = gr.Dataframe(
                        label="Confusion matrix (judge label x consensus)", interactive=False
                    )
                    abstention = gr.Dataframe(label="Abstention by tier", interactive=False)
                    bias = gr.Dataframe(
                        label="Self and family bias (vs out-of-family evaluators)",
                        interactive=False,
                    )
                    ensembles = gr.Dataframe(
                        label="Majority-vote panels with and without the submission (core)",
                        interactive=False,
                    )
                    disagreements = gr.Dataframe(
                        label="Answers where the judge contradicts a unanimous physician panel",
                        interactive=False,
                    )
                    record_file = gr.DownloadButton("Result record (JSON)", size="sm")

            with gr.Tab("Browse", id="browse") as tab_browse:
                gr.Markdown(text.BROWSE_HELP)
                with gr.Row():
                    b_split = gr.Dropdown(browse.split_choices(), value=ALL, label="Split")
                    b_tier = gr.Dropdown(browse.tier_choices(), value=ALL, label="Tier")
                    b_lexical = gr.Dropdown(browse.lexical_choices(), value=ALL, label="Lexical")
                    b_specialty = gr.Dropdown(
                        browse.specialty_choices(),
                        value=ALL,
                        label="Specialty",
                        visible=browse.has_specialty,
                    )
                with gr.Row():
                    b_flags = gr.CheckboxGroup(list(FLAGS), label="Filters", scale=3)
                    b_judge = gr.Dropdown(
                        browse.judge_choices(), value=None, label="Judge (for its filter)", scale=1
                    )
                b_search = gr.Textbox(label="Search text", placeholder="question, answer or id")
                b_count = gr.Markdown(elem_id="mq-count")
                b_results = gr.Dataframe(
                    label="Question sets (select a row to open it)",
                    interactive=False,
                    max_height=400,
                    pinned_columns=1,
                    elem_id="mq-items",
                )
                with gr.Row():
                    b_item = gr.Textbox(label="Item id", scale=2)
                    b_blind = gr.Checkbox(label="blind (hide models, shuffle)", scale=1)
                    b_open = gr.Button("Open", scale=1)
                b_header = gr.HTML(elem_id="mq-item")
                b_answers = gr.Dataframe(label="Answers", interactive=False, wrap=True)
                b_labels = gr.Dataframe(label="Labels", interactive=False, pinned_columns=1)

            with gr.Tab("Analysis", id="analysis") as tab_analysis:
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
                a_judge_plot = gr.LinePlot(
                    x="tier", y="value", color="metric", title="Agreement by tier"
                )
                a_judge_table = gr.Dataframe(label="Agreement by tier", interactive=False)

            with gr.Tab("About", id="about"):
                gr.Markdown(
                    text.about(
                        release.synthetic,
                        config.max_upload_mb,
                        config.rate_limit,
                        config.rate_window_days,
                    )
                )
                with gr.Row():
                    gr.DownloadButton("Template: judge labels (CSV)", value=judge_template)
                    gr.DownloadButton("Template: model answers (CSV)", value=answers_template)

        # --- events ----------------------------------------------------------------------------

        lb_outputs = [lb_note, judges_table, models_table, dl_judges, dl_models, dl_json]
        lb_inputs = [view, search, columns]
        hidden: dict[str, Any] = {"api_visibility": "private", "queue": False}
        reads: dict[str, Any] = {"concurrency_limit": READ_CONCURRENCY}
        gr.on(
            [view.change, columns.change, search.submit, tab_leaderboard.select],
            leaderboard_ui,
            lb_inputs,
            lb_outputs,
            **hidden,
        )
        lb_api = gr.Button(visible=False)
        lb_api.click(
            leaderboard,
            [view, search],
            [judges_table, models_table],
            api_name="leaderboard",
            api_description=leaderboard.__doc__,
            api_visibility="public",
            **reads,
        )

        form = [
            upload,
            kind,
            f_name,
            f_model,
            f_revision,
            f_family,
            f_org,
            f_link,
            f_prompt,
            f_prompt_sha,
            f_decoding,
            f_notes,
            validate,
            labels_upload,
        ]
        result_outputs = [
            result_box,
            summary,
            slots,
            grouped,
            confusion,
            abstention,
            bias,
            ensembles,
            disagreements,
            record_file,
            problems_file,
            warnings_box,
            problems,
        ]
        submit_btn.click(
            submit,
            form,
            [status, result_json, problems],
            api_name="submit",
            api_description=submit.__doc__,
            api_visibility="public",
            concurrency_limit=SUBMIT_CONCURRENCY,
            concurrency_id="submit",
        ).then(
            render_result, [result_json, problems], result_outputs, api_visibility="private"
        ).then(leaderboard_ui, lb_inputs, lb_outputs, api_visibility="private").then(
            judge_choices, None, b_judge, api_visibility="private"
        )

        browse_inputs = [b_split, b_tier, b_lexical, b_specialty, b_flags, b_judge, b_search]
        gr.on(
            [
                b_split.change,
                b_tier.change,
                b_lexical.change,
                b_specialty.change,
                b_flags.change,
                b_judge.change,
                b_search.submit,
                tab_browse.select,
            ],
            browse_items,
            browse_inputs,
            [b_count, b_results],
            **hidden,
        )
        browse_api = gr.Button(visible=False)
        browse_api.click(
            browse_items,
            browse_inputs,
            [b_count, b_results],
            api_name="browse",
            api_description=browse_items.__doc__,
            api_visibility="public",
            **reads,
        )
        item_outputs = [b_header, b_answers, b_labels]
        gr.on(
            [b_open.click, b_item.submit, b_blind.change],
            item_ui,
            [b_item, b_blind],
            item_outputs,
            **hidden,
        )
        item_api = gr.Button(visible=False)
        item_api.click(
            item,
            [b_item, b_blind],
            item_outputs,
            api_name="item",
            api_description=item.__doc__,
            api_visibility="public",
            **reads,
        )
        b_results.select(open_selected, [b_blind], [b_item, *item_outputs], **hidden)
        disagreements.select(open_disagreement, [b_blind], [tabs, b_item, *item_outputs], **hidden)

        analysis_outputs: list[Any] = [
            a_status,
            *plots,
            a_abstention,
            a_judge,
            a_judge_plot,
            a_judge_table,
        ]
        tab_analysis.select(analysis_ui, [a_judge], analysis_outputs, api_visibility="private")
        a_judge.input(judge_ui, [a_judge], [a_judge, a_judge_plot, a_judge_table], **hidden)

        demo.load(leaderboard_ui, lb_inputs, lb_outputs, api_visibility="private")
        demo.load(browse_items, browse_inputs, [b_count, b_results], api_visibility="private")
        demo.load(deep_link, [b_blind], [tabs, b_item, *item_outputs], api_visibility="private")

    demo.medqade_state = st  # type: ignore[attr-defined]
    return demo


def launch_kwargs(config: SpaceConfig) -> dict[str, Any]:
    """The ``Blocks.launch`` settings of the Space (upload limit, CSS, no analytics)."""
    return {
        "server_name": config.host,
        "server_port": config.port,
        "max_file_size": config.max_upload_bytes,
        "css": CSS,
        "show_error": False,
    }


__all__: Sequence[str] = ["build_app", "launch_kwargs"]
