"""The Submit tab: the upload form, ``/submit`` and the scored result's tables and downloads.

An upload is deleted from Gradio's upload folder as soon as it has been read (accepted or
not), except after a successful dry run, when the same file is usually submitted next; what
is left is removed by Gradio's ``delete_cache`` (:attr:`SpaceConfig.delete_cache`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import gradio as gr
from gradio import utils as gradio_utils

from medqade import scoring
from medqade.app import result_views, text, views
from medqade.app.context import TabContext, Table, empty, frame
from medqade.app.state import Outcome
from medqade.app.submit_form import (
    FORM,
    RESULT_TABLES,
    form_components,
    result_components,
)
from medqade.dataset import hub_eval
from medqade.files.problems import Problem
from medqade.measures import DEFAULT_MARGIN
from medqade.scoring.record import ScoreRecord

if TYPE_CHECKING:
    from medqade.app.tab_browse import BrowseTab
    from medqade.app.tab_leaderboard import LeaderboardTab

WARNINGS_KEPT: Final = 50
"""The warnings a session's last result keeps on the server (then a line counting the rest)."""


@dataclass(frozen=True)
class Shown:
    """What the page shows of a session's last submission, held on the server (a ``gr.State``:
    a client cannot send one), small whatever the upload: the stored record's id (``None``:
    nothing stored), the warnings (the first :data:`WARNINGS_KEPT`) and the problems CSV the
    submission wrote (``None``: no problems)."""

    record_id: str | None
    warnings: tuple[str, ...] = ()
    problems_file: str | None = None


@dataclass(frozen=True)
class SubmitTab:
    """The tab's components and handlers; :meth:`wire` adds its events once the tabs exist."""

    form: list[Any]
    """The inputs of ``/submit``, in the order of its parameters."""
    button: gr.Button
    status: gr.Textbox
    result_json: gr.JSON
    problems: gr.Dataframe
    shown: gr.State
    """The session's last result (:class:`Shown`), kept on the server for :attr:`render_result`."""
    result_outputs: list[Any]
    """What :attr:`render_result` fills: the result box, its tables, downloads and warnings."""
    disagreements: gr.Dataframe
    submit: Callable[..., tuple[str, dict[str, Any], Table, Shown]]
    render_result: Callable[[Shown | None], tuple[Any, ...]]
    concurrency: int
    """Submissions scored at once (:attr:`SpaceConfig.submit_concurrency`); the rest queue."""

    def wire(self, leaderboard: LeaderboardTab, browse: BrowseTab) -> None:
        """The public ``/submit``, then the result shown, the leaderboard and judge list renewed.

        The result is shown from the session's :class:`Shown` (server-side state), never from
        what a client sends: called on its own, :attr:`render_result` shows nothing and
        writes nothing."""
        self.button.click(
            self.submit,
            self.form,
            [self.status, self.result_json, self.problems, self.shown],
            api_name="submit",
            api_description=self.submit.__doc__,
            api_visibility="public",
            concurrency_limit=self.concurrency,
            concurrency_id="submit",
            show_progress_on=self.status,  # the status line, not the tables (issue 39)
        ).then(
            self.render_result,
            [self.shown],
            self.result_outputs,
            show_progress_on=self.status,
            api_visibility="private",
        ).then(
            leaderboard.leaderboard_ui,
            leaderboard.inputs,
            leaderboard.outputs,
            api_visibility="private",
        ).then(browse.judge_choices, None, browse.judge, api_visibility="private")


@dataclass(frozen=True)
class SubmitHandlers:
    """The tab's handlers over the state in ``ctx``: the public ``/submit`` and the result
    shown from the stored record."""

    ctx: TabContext

    def submit(
        self,
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
        price_in: str | float | None = None,
        price_out: str | float | None = None,
        profile: gr.OAuthProfile | None = None,
    ) -> tuple[str, dict[str, Any], Table, Shown]:
        """Check and score one submission file. `kind` is "judge" (labels for the answers) or
        "answers" (one answer per question); the metadata fields describe the run; with
        `validate_only` the file is checked and scored but nothing is stored (the status says
        "Dry run: scored, not stored" with the kappa or accuracy and its 95% CI).
        `labels_file` (optional, model answers only) holds a judge's labels for answers that
        match no physician-labelled answer. `price_in` and `price_out` (optional) are the
        prices of a million input and output tokens in EUR: with the token counts of the run
        (an Inspect log, or the file's metadata) they give the judge's cost per 1,000 answers.
        Returns a status line, the result (record or summary) and a table of row-level
        problems."""
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
            "price_in": price_in,
            "price_out": price_out,
        }
        keep = False
        try:
            outcome = self.ctx.state.submit(
                file,
                kind if kind in scoring.KINDS else None,
                fields,
                username,
                validate_only=bool(validate_only),
                labels_path=labels_file or None,
            )
            # a file that passed a dry run stays for the real submission; Gradio's
            # delete_cache removes it later (SpaceConfig.cache_hours)
            keep = bool(validate_only) and outcome.ok
        finally:
            if not keep:
                for path in (file, labels_file):
                    discard_upload(path)
        return shown_outcome(outcome, self.problems_file(outcome.problems))

    def problems_file(self, problems: tuple[Problem, ...]) -> str | None:
        """The problems of a submission as a CSV download (``None``: none), written once per
        content into the capped download folder."""
        if not problems:
            return None
        table = views.problems_table(problems)
        digest = hashlib.sha256(table.to_json().encode("utf-8")).hexdigest()[:16]
        return self.ctx.exports.write(f"medqade-problems-{digest}.csv", scoring.csv_text(table))

    def eval_results_file(self, record: dict[str, Any]) -> Any:
        """The record as a Hub ``.eval_results`` file, when the Space shows a Hub dataset."""
        config = self.ctx.config
        text = eval_results_text(
            record, config.hub_dataset, config.space_id, self.ctx.release.hub_revision
        )
        if text is None:
            return gr.update(value=None, visible=False)
        path = self.ctx.exports.write(hub_eval.eval_results_name(record), text)
        return gr.update(value=path, visible=True)

    def render_result(self, shown: Shown | None) -> tuple[Any, ...]:
        """The result box, its tables and downloads for the session's last submission
        (``shown``, server-side state: nothing a client sends is read or written out)."""
        if not isinstance(shown, Shown):
            shown = Shown(None)
        st, exports = self.ctx.state, self.ctx.exports
        stored = st.store.get(shown.record_id) if shown.record_id else None
        problems_file = shown.problems_file
        warnings = "\n".join(shown.warnings)
        show_problems = gr.update(visible=problems_file is not None)
        if not stored:
            return (
                gr.update(visible=False),
                *(empty() for _ in range(1 + len(RESULT_TABLES))),
                None,
                gr.update(value=None, visible=False),
                gr.update(value=problems_file, visible=problems_file is not None),
                warnings,
                show_problems,
            )
        record = stored  # the store keeps it typed
        record_file = exports.write(
            f"medqade-result-{str(record.id)[:16]}.json", views.record_json(record)
        )
        return (
            gr.update(visible=True),
            *self.result_tables(record),
            record_file,
            self.eval_results_file(record.to_json()),
            gr.update(value=None, visible=False),
            warnings,
            show_problems,
        )

    def result_tables(self, record: ScoreRecord) -> tuple[Any, ...]:
        """Summary, per slot, grouped, confusion, abstention, bias, ranking fidelity, where it
        fails, panels and disagreements; the judge-only ones hidden for a model-answers result
        (never shown as empty grids)."""
        roster = self.ctx.release.roster
        judge = record.kind == "judge"

        def judge_only(table: Table) -> Any:
            if not judge:
                return gr.update(value=empty(), visible=False)
            update = frame(table)
            update["visible"] = True
            return update

        return (
            frame(result_views.summary_table(record)),
            judge_only(result_views.slots_table(record, roster)),
            frame(result_views.grouped_table(record)),
            judge_only(result_views.confusion_table(record)),
            judge_only(result_views.abstention_table(record)),
            judge_only(result_views.bias_table(record, roster)),
            judge_only(result_views.fidelity_table(record, roster)),
            judge_only(result_views.cells_table(record)),
            judge_only(result_views.ensembles_table(record)),
            judge_only(result_views.disagreements_table(record)),
        )


def add_submit_tab(ctx: TabContext) -> SubmitTab:
    """Lay out the Submit tab (inside ``gr.Tabs``) over the state in ``ctx``."""
    handlers = SubmitHandlers(ctx)
    with gr.Tab("Submit", id="submit"):
        gr.Markdown(text.SUBMIT_HELP)
        if ctx.config.show_login:
            gr.LoginButton()
        form = form_components(ctx)
        result = result_components()
    tables = [result[key] for key, _ in RESULT_TABLES]
    return SubmitTab(
        form=[form[key] for key in FORM],
        button=form["button"],
        status=result["status"],
        result_json=result["result_json"],
        problems=result["problems"],
        shown=result["shown"],
        result_outputs=[
            result["box"],
            result["summary"],
            *tables,
            result["record_file"],
            result["eval_file"],
            result["problems_file"],
            result["warnings"],
            result["problems"],
        ],
        disagreements=result["disagreements"],
        submit=handlers.submit,
        render_result=handlers.render_result,
        concurrency=ctx.config.submit_concurrency,
    )


def eval_results_text(
    record: dict[str, Any],
    dataset_id: str | None,
    space_id: str | None,
    revision: str | None = None,
) -> str | None:
    """The ``.eval_results`` YAML offered with a result; ``None`` when the Space shows a local
    release (no Hub dataset to name), the result has no headline value (no core items) or
    was scored at another margin than the leaderboard's
    (:data:`~medqade.measures.paired.DEFAULT_MARGIN`: a Space configured with another margin
    offers no Hub entry, whose verdict must be the leaderboard's)."""
    if dataset_id is None:
        return None
    try:
        return hub_eval.eval_results_yaml(
            record, dataset_id, margin=DEFAULT_MARGIN, revision=revision, space_id=space_id
        )
    except ValueError:
        return None


def discard_upload(path: str | os.PathLike[str] | None) -> bool:
    """Delete an upload once it has been read, if it lies in Gradio's upload folder (and its
    folder, when that is left empty); anything elsewhere is left alone. True if deleted."""
    if not path:
        return False
    try:
        root = Path(gradio_utils.get_upload_folder()).resolve()
        file = Path(path).resolve()
    except (OSError, RuntimeError):
        return False
    if root not in file.parents or not file.is_file():
        return False
    try:
        file.unlink()
    except OSError:
        return False
    if file.parent != root:
        with contextlib.suppress(OSError):
            file.parent.rmdir()  # only when empty
    return True


def shown_outcome(
    outcome: Outcome, problems_file: str | None = None
) -> tuple[str, dict[str, Any], Table, Shown]:
    """The status line, result JSON and problems table of one submission's outcome, and what
    the page shows of it (:class:`Shown`, with the problems CSV written for it)."""
    result = {
        "ok": outcome.ok,
        "message": outcome.message,
        "record": None if outcome.record is None else outcome.record.to_json(),
        "summary": None if outcome.summary is None else outcome.summary.to_json(),
        "warnings": list(outcome.warnings),
        "dry_run": outcome.dry_run,
    }
    prefix = "Not accepted" if not outcome.ok else "" if outcome.dry_run else "Accepted"
    stored = outcome.ok and not outcome.dry_run  # a dry run's record was never stored
    record_id = str(outcome.record.id) if stored and outcome.record else None
    warnings = tuple(outcome.warnings[:WARNINGS_KEPT])
    if len(outcome.warnings) > WARNINGS_KEPT:
        more = len(outcome.warnings) - WARNINGS_KEPT
        warnings += (f"... and {more} more warnings",)
    shown = Shown(record_id, warnings, problems_file)
    return (
        f"{prefix}: {outcome.message}" if prefix else outcome.message,
        result,
        views.problems_table(outcome.problems),
        shown,
    )
