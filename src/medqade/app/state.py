"""What the Space holds while it runs, and the calls behind every handler (no Gradio here).

:class:`SpaceState` owns the releases (the public one it shows, the one it scores on, which has
the held-out labels restored when the Space has the private part: :mod:`medqade.app.held_out`),
the results store, the reference records (paper evaluators, physicians, baselines, students;
cached on disk by data hash, resamples, seed and scorer version), the Browse index and the
paper's analyses (:func:`medqade.analyses.reproduce`, computed in a background thread, or read
first from the disk cache a start on the same release wrote: :mod:`medqade.app.figure_cache`).
The leaderboard tables are rebuilt from records only when the store changed, under a lock.
Submissions go through :meth:`SpaceState.submit`, which reads the upload and maps the form onto
the library's one submission policy (:func:`medqade.scoring.policy.policy.submit`: limits,
duplicate and reference-copy checks, the rate limit, metadata, scoring, one atomic store
write), the one ``medqade score`` calls too. An upload is read by :mod:`medqade.app.uploads`;
Compare's answers are kept by :mod:`medqade.app.comparisons`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from medqade import measures, scoring
from medqade.app import views
from medqade.app.accounts import SCHEME as ACCOUNT_SCHEME
from medqade.app.accounts import AccountHasher
from medqade.app.browse import BrowseIndex
from medqade.app.comparisons import Comparisons
from medqade.app.config import SpaceConfig
from medqade.app.held_out import scoring_release as checked_scoring_release
from medqade.app.uploads import Uploads
from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring.board import (
    VIEWS,
    BoardRecords,
    Comparison,
    cached_reference_records,
    on_board,
    open_board,
)
from medqade.scoring.intake import SubmissionForm
from medqade.scoring.policy import Outcome as Outcome  # the answer SpaceState.submit gives
from medqade.scoring.policy import RateLimit, ResultsStore, Settings, Submitter, Upload
from medqade.scoring.policy import submit as submit_upload
from medqade.scoring.record import ScoreRecord

if TYPE_CHECKING:
    from medqade.analyses.report import Report

log = logging.getLogger(__name__)

LOCAL_ACCOUNT: Final = "local"
FAMILY_OTHER: Final = "other"
BOARDS_KEPT: Final = 12
"""How many leaderboards (view, metric, margin) the Space keeps, the least recently asked for
dropped first (each about 0.5 MB; the page's default ones are asked for on every visit)."""


@dataclass(frozen=True)
class Boards:
    """The leaderboard of one view: the library's typed :class:`~medqade.scoring.board.Board`
    (its rows drawn, its :meth:`~medqade.scoring.board.Board.to_frame` exported) and the
    display tables formatted from its rows."""

    board: scoring.Board
    judges_display: pd.DataFrame
    models_display: pd.DataFrame

    @property
    def judges_board(self) -> measures.RankedBoard | None:
        """The judges' ranking (pair tests for Compare)."""
        return self.board.judges_board

    @property
    def judges_resolution(self) -> measures.Resolution | None:
        """What the judges' board can resolve, in the ranking metric's unit."""
        return self.board.judges_resolution


def form_meta(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The submission form as :mod:`medqade.scoring.intake.meta` keys (empty fields dropped), parsed
    as ``medqade score`` parses its flags (:class:`medqade.scoring.intake.meta.SubmissionForm`);
    ``ValueError`` for malformed decoding settings."""
    return SubmissionForm.from_fields(fields).meta()


class SpaceState:
    """The running Space's data (see the module docstring)."""

    def __init__(
        self,
        release: Release,
        results_dir: Path,
        config: SpaceConfig | None = None,
        *,
        scoring_release: Release | None = None,
        write_lock: AbstractContextManager[Any] | None = None,
        references: list[ScoreRecord] | None = None,
        background: bool = True,
        analyses: bool = True,
        on_report: Callable[[Report], None] | None = None,
        cached_report: Callable[[], Report | None] | None = None,
        clock: Callable[[], float] = time.time,
        account: AccountHasher | None = None,
    ) -> None:
        self.scoring_release = checked_scoring_release(release, scoring_release)
        """What is scored on (submissions, reference rows, board, analyses): ``release`` with
        its held-out labels restored when given, else ``release`` itself."""
        self.release = release
        """The public release: everything shown item by item reads it (Browse, Compare's list)."""
        self.config = config or SpaceConfig(results_dir=Path(results_dir))
        self.results_dir = Path(results_dir)
        self.clock = clock
        self.account = account if account is not None else AccountHasher(self.config)
        """The stored form of a user name (a keyed hash; :mod:`medqade.app.accounts`)."""
        self.store = ResultsStore(
            self.results_dir,
            RateLimit.per_days(self.config.rate_limit, self.config.rate_window_days),
            write_lock=write_lock,
            clock=clock,
        )
        self.limits = scoring.Limits(
            max_bytes=self.config.max_upload_bytes, max_rows=self.config.max_rows
        )
        self.settings = Settings(
            self.config.resamples, self.config.seed, self.config.margin, self.limits
        )
        self.browse = BrowseIndex(release)
        self._lock = threading.Lock()
        self._boards: OrderedDict[tuple[str, str, float, int, bool], Boards] = OrderedDict()
        self.comparisons = Comparisons(self)
        """Compare's answers, kept until the board changes (:mod:`medqade.app.comparisons`)."""
        self.compared = self.comparisons.compared
        """Set once :meth:`warm_comparisons` has run after the start-up work."""
        self.uploads = Uploads(self.limits, self.store)
        self._ranker = measures.Ranker()
        self._references: list[ScoreRecord] | None = references
        self._judges_loaded: set[str] = set()
        self._noted_version = -1
        self.report: Future[Report] = Future()
        self._on_report = on_report
        self._cached_report = cached_report
        self.ready = threading.Event()
        self.board_listeners: list[Callable[[], None]] = []
        """Called after a submission changed the board (e.g. to renew the page's first board)."""
        work = [self._load_references, self._warm_boards, self._load_submitted_judges]
        if analyses:
            # the cached report first: a restart serves without waiting for the reference rows
            work = [self._read_cached_report, *work, self._reproduce]
        else:
            self.report.set_exception(RuntimeError("the analyses are switched off"))
        if background:
            # Not a daemon: a daemon thread still inside numpy/pyarrow when the interpreter
            # shuts down aborts the process ("terminate called without an active exception").
            self._thread = threading.Thread(
                target=self._run, args=(work,), name="medqade-warmup", daemon=False
            )
            self._thread.start()
        else:
            self._run(work)

    # --- start-up work --------------------------------------------------------------------

    def _run(self, work: list[Callable[[], None]]) -> None:
        try:
            for step in work:
                step()
        finally:
            self.ready.set()
        self.warm_comparisons()  # after ready: the page serves without waiting for them

    def _load_references(self) -> None:
        if self._references is not None:
            return
        c = self.config
        refs = cached_reference_records(
            self.scoring_release, self.results_dir, c.resamples, c.seed, c.margin
        )
        with self._lock:
            self._references = refs
            self._boards.clear()

    def _warm_boards(self) -> None:
        """Rank both views once in the background, so the first visitor does not wait for
        the board (the :class:`~medqade.measures.Ranker` keeps the last ranks)."""
        for view in VIEWS:
            self.boards(view)

    def _load_submitted_judges(self) -> None:
        for record in self.board_records().stored:
            self._register_judge(record, None)

    def _register_judge(self, record: ScoreRecord, labels: Any) -> None:
        rid = str(record.id)
        if record.kind != "judge" or rid in self._judges_loaded:
            return
        if labels is None:
            paths = self.store.upload_paths(record)
            if not paths:
                return
            try:
                sub = scoring.parse_submission(
                    paths[0].read_bytes(), f"stored{paths[0].suffix}", self.release, "judge"
                )
            except (InputError, ValueError, OSError) as exc:  # the file's content is not logged
                log.warning(
                    "stored upload of record %s cannot be read as judge labels (%s)",
                    rid[:16],
                    type(exc).__name__,
                )
                return
            labels = sub.labels
        if labels is None:
            return
        name = str((record.meta and record.meta.name) or rid[:12])
        self.browse.add_judge(f"submitted: {name}", labels, record_id=rid)
        self._judges_loaded.add(rid)

    def _read_cached_report(self) -> None:
        """The report (and its figures) a start on the same release cached on disk
        (:mod:`medqade.app.figure_cache`); ``on_report`` draws what the cache lacks."""
        if self._cached_report is None:
            return
        try:
            report = self._cached_report()
            if report is not None and self._on_report is not None:
                self._on_report(report)
        except Exception:  # an unreadable cache is only a miss: computed in _reproduce
            log.exception("the cached analyses could not be used")
            return
        if report is not None:
            self.report.set_result(report)

    def _reproduce(self) -> None:
        from medqade.analyses.report import reproduce

        if self.report.done():  # read from the cache: draw the figures of the first judge,
            if self._on_report is not None:  # known now that the reference rows are loaded
                try:
                    self._on_report(self.report.result())
                except Exception:  # drawn on demand then
                    log.exception("the first judge's figures could not be drawn")
            return
        try:
            scored = self.scoring_release  # without the private part: its labelled items
            scored = scored.labelled() if scored.withholds else scored
            report = reproduce(scored, resamples=self.config.resamples, seed=self.config.seed)
            if self._on_report is not None:
                self._on_report(report)  # e.g. draw the figures before the first visitor
        except Exception as exc:  # the Analysis tab shows the error; the Space keeps running
            log.exception("the analyses failed")
            self.report.set_exception(exc)
        else:
            self.report.set_result(report)

    # --- leaderboard ---------------------------------------------------------------------------

    @property
    def references_ready(self) -> bool:
        return self._references is not None

    def board_records(self) -> BoardRecords:
        """The records on this release's board: :func:`medqade.scoring.board.sources.board_records`,
        the rule ``medqade leaderboard`` applies too (a stored record scored on another
        release is left out, and counted in the log once per change of the store)."""
        chosen = open_board(self.scoring_release, self._references or [], self.store)
        version = self.store.version
        if chosen.other_release and self._noted_version != version:
            self._noted_version = version
            log.warning("%s", chosen.note)
        return chosen

    def records(self) -> list[ScoreRecord]:
        """Reference records (when computed) followed by the stored submissions scored on
        this release (:meth:`board_records`)."""
        return self.board_records().records

    def boards(self, view: str, metric: str = "kappa", margin: float | None = None) -> Boards:
        """The leaderboard tables of ``view`` ranked on ``metric``, verdicts with ``margin``
        (default: the Space's); rebuilt only when the records changed (one
        :class:`~medqade.measures.Ranker` kept). The last :data:`BOARDS_KEPT` are kept, so a
        visitor asking for many margins cannot grow the Space."""
        margin = self.config.margin if margin is None else float(margin)
        self.store.refresh()  # records another writer of the folder stored (a Space, rescore)
        with self._lock:
            key = (view, metric, margin, self.store.version, self._references is not None)
            cached = self._boards.get(key)
            if cached is not None:
                self._boards.move_to_end(key)
                return cached
            if self.ready.is_set():  # judges another writer stored: their labels in Browse
                self._load_submitted_judges()  # (at start-up, the warm-up's own step)
            board = scoring.leaderboard(
                self.records(), view=view, metric=metric, margin=margin, ranker=self._ranker
            )
            judges = views.judges_table(board.judges, view)
            boards = Boards(board, judges, views.models_table(board.models, view))
            for old in [k for k in self._boards if k[3:] != key[3:]]:
                del self._boards[old]  # the records changed since: never asked for again
            self._boards[key] = boards
            while len(self._boards) > BOARDS_KEPT:
                self._boards.popitem(last=False)
            return boards

    def compare_choices(self) -> list[tuple[str, str]]:
        """``(label, token)`` of every judge row a Compare view can pick
        (:meth:`medqade.app.comparisons.Comparisons.choices`)."""
        return self.comparisons.choices()

    def compare(self, a: str, b: str, view: str) -> Comparison:
        """Compare two judge rows on the same resamples as the leaderboard, kept until the
        board changes (:meth:`medqade.app.comparisons.Comparisons.get`); raises
        ``ValueError`` with a readable message. ``a`` and ``b`` are row ids, never paths."""
        return self.comparisons.get(a, b, view)

    def warm_comparisons(self) -> None:
        """Every board judge against the physicians on the core, computed ahead
        (:meth:`medqade.app.comparisons.Comparisons.warm`); sets :attr:`compared`."""
        self.comparisons.warm()

    def board_judge_ids(self) -> set[str]:
        """The record ids of the judge rows the leaderboard shows, in either view."""
        return {str(r.id) for r in self.records() if on_board(r)}

    # --- submissions ---------------------------------------------------------------------------

    def submit(
        self,
        path: str | os.PathLike[str] | None,
        kind: str | None,
        fields: Mapping[str, Any],
        username: str | None,
        *,
        validate_only: bool = False,
        labels_path: str | os.PathLike[str] | None = None,
    ) -> Outcome:
        """Check, score and store one upload (see the module docstring).

        ``username`` is the Hugging Face account (``None``: not signed in; allowed only when
        the Space does not require a login, and then counted as the account ``local``).
        """
        if username is None:
            if self.config.require_login:
                return Outcome(False, "Sign in with Hugging Face to submit.")
            username = LOCAL_ACCOUNT
        if path is None:
            return Outcome(False, "Choose a file to upload.")
        try:
            meta = form_meta(fields)
        except ValueError as exc:
            return Outcome(False, f"{exc}; nothing was checked or scored.", error=exc)
        submitter = Submitter(
            self.account(username), tuple(self.account.aliases(username)), ACCOUNT_SCHEME
        )
        uploads: list[Upload] = []
        for p, role in ((path, "submission"), (labels_path, "labels")):
            if p is None:
                continue
            read = self.uploads.read(p, role)
            if isinstance(read, Outcome):
                return read
            uploads.append(read)
        outcome = submit_upload(
            self.scoring_release,
            uploads,
            kind,
            meta,
            self.settings,
            store=self.store,
            submitter=submitter,
            validate_only=validate_only,
            clock=self.clock,
        )
        if not outcome.ok or outcome.record is None or outcome.dry_run:
            return outcome  # a dry run's record was scored, not stored: nothing to register
        record = outcome.record  # typed from the scorer on
        self.uploads.remember(path, str(record.id))
        sub = outcome.submission
        self._register_judge(record, None if sub is None else sub.labels)
        for listener in list(self.board_listeners):
            try:
                listener()
            except Exception:  # the page then renews its board with its next event
                log.exception("a board listener failed")
        # the new board's comparisons with the physicians, behind this answer
        threading.Thread(target=self.warm_comparisons, name="medqade-compare").start()
        return replace(outcome, message=views.headline(record))
