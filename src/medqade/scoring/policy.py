"""One submission policy: what the Space and ``medqade score`` check, score and store.

:func:`submit` is the one path from uploaded bytes to a result record. In order:

1. **size**: the bytes (:func:`size_refusal`; the Space also asks before reading the
   upload) and the lines (:func:`line_refusal`) of every file against :class:`Limits`;
2. **parse**: :func:`medqade.scoring.parse_submission` (plus
   :func:`~medqade.scoring.attach_labels` for a judge's labels of model answers);
3. **duplicate**: the same content (its duplicate key, :func:`duplicate_key`) stored before
   and scored on this release (scored on another release it is not on this board: it may be
   scored again, as :func:`rescore` does from the stored upload);
4. **copy of a reference row** (:func:`medqade.scoring.duplicates.reference_match`);
5. **rate limit** of the submitting account (a dry run stores nothing, so it is never
   limited; it is told when a scored submission would be);
6. **metadata**: a display name or model id that would pass for another row (a reference
   row, the physicians' rows, another account's verified row: :mod:`medqade.scoring.names`) is
   refused, then the rest is checked by scoring (a dry run scores without the bootstrap);
7. **score and store**: :func:`medqade.scoring.score`, then one atomic write of the record
   and its uploads (:meth:`~medqade.scoring.store.ResultsStore.add`, which applies 3 and 5
   again under its lock).

Steps 3, 4, 5 and 7 guard a results folder: without a store (``medqade score`` without
``--results``) nothing is stored, and a copy of a reference row is scored and flagged
``duplicate_of_reference`` in its record instead of refused; a name that would pass for
another row is then a warning (a dry run refuses it, as the Space would). :func:`check` is
the dry run of both front ends: steps 1-6 and the metadata, nothing scored or stored. Every
refusal is an :class:`Outcome` whose message names the file and says what to do; nothing
here raises for a bad upload.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from medqade.files.problems import InputError, Problem
from medqade.scoring import names
from medqade.scoring.duplicates import reference_match
from medqade.scoring.meta import merge_meta
from medqade.scoring.record import ScoreRecord, SpaceEntry
from medqade.scoring.records import score
from medqade.scoring.settings import Settings as Settings  # re-exported: policy.Settings
from medqade.scoring.store import (
    UPLOADS,
    ResultsStore,
    SubmissionRefused,
    upload_sha256,
    upload_suffix,
)
from medqade.scoring.submission import (
    Limits,
    Submission,
    attach_labels,
    parse_submission,
    with_runs,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release

log = logging.getLogger(__name__)

PARQUET: Final = ".parquet"
EVAL_LOG: Final = ".eval"


@dataclass(frozen=True)
class Upload:
    """One uploaded file: its bytes, the name messages show, and the suffix it is stored
    with (:func:`medqade.scoring.store.upload_suffix` of its own name)."""

    data: bytes
    shown: str
    suffix: str


@dataclass(frozen=True)
class Submitter:
    """Who submits, as the store keeps it: the stored account form (never a user name),
    earlier stored forms of the same account (counted by the rate limit) and the scheme."""

    account: str
    aliases: tuple[str, ...] = ()
    scheme: str | None = None


@dataclass(frozen=True)
class Outcome:
    """The answer to one submission: a message, and a record, a summary or problems.

    ``submission`` is the parsed upload (when it parsed); ``error`` the exception a refusal
    came from, for a caller that reports it its own way (the CLI re-raises it)."""

    ok: bool
    message: str
    record: ScoreRecord | None = None
    summary: dict[str, Any] | None = None
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    submission: Submission | None = field(default=None, compare=False, repr=False)
    error: Exception | None = field(default=None, compare=False, repr=False)
    dry_run: bool = False
    """A dry run (``validate_only``): ``record`` is what would be stored, and nothing was."""


def size_refusal(shown: str, size: int, limits: Limits, suffix: str = "") -> str | None:
    """Why a file of ``size`` bytes is refused before it is read, or ``None`` (an Inspect log,
    ``suffix`` ``.eval``, may have up to ``limits.max_log_bytes``: it holds every message)."""
    if suffix == EVAL_LOG:
        if size <= limits.max_log_bytes:
            return None
        return (
            f"{shown}: the Inspect log has {size:,} bytes, more than the limit of "
            f"{limits.max_log_bytes:,} bytes; split the run (inspect eval --limit) or submit "
            "the labels as JSON Lines."
        )
    if size <= limits.max_bytes:
        return None
    return (
        f"{shown}: the file has {size:,} bytes, more than the limit of {limits.max_bytes:,} "
        "bytes; remove extra columns or save it as Parquet."
    )


def line_refusal(upload: Upload, limits: Limits) -> str | None:
    """Why a text file is refused for its number of lines before it is parsed, or ``None``
    (a header and a trailing line are allowed beyond ``limits.max_rows``)."""
    if upload.suffix in (PARQUET, EVAL_LOG):  # binary (an Inspect log is a ZIP archive)
        return None
    data = upload.data
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if lines <= limits.max_rows + 2:
        return None
    return (
        f"{upload.shown}: the file has {lines:,} lines, more than the limit of "
        f"{limits.max_rows:,} rows; submit one judge or one model per file."
    )


def duplicate_key(sub: Submission) -> str:
    """The key two submissions share when they are the same content (the submission's
    content hash, plus that of a judge's labels of model answers)."""
    return sub.content_hash + (f"+{sub.answer_labels_hash}" if sub.answer_labels_hash else "")


def problems_message(exc: InputError) -> str:
    """One line for a submission that did not parse (the problems are listed beside it)."""
    n = len(exc.problems)
    return f"{n} problem{'s' if n != 1 else ''} found in {exc.what}; nothing was scored."


def _refused(message: str, exc: Exception | None = None) -> Outcome:
    if isinstance(exc, InputError):
        return Outcome(False, problems_message(exc), problems=tuple(exc.problems), error=exc)
    return Outcome(False, message, error=exc if exc is not None else ValueError(message))


def parse(
    release: Release,
    uploads: Sequence[Upload],
    kind: str | None,
    limits: Limits,
    runs: Sequence[Upload] = (),
) -> Submission | Outcome:
    """Steps 1 and 2: the parsed submission (the first upload; a second one holds a judge's
    labels of the answers; ``runs``: further runs of the same judge, for self-consistency),
    or the refusal."""
    for upload in (*uploads, *runs):
        refusal = size_refusal(
            upload.shown, len(upload.data), limits, upload.suffix
        ) or line_refusal(upload, limits)
        if refusal is not None:
            return _refused(refusal)
    first = uploads[0]
    try:
        sub = parse_submission(first.data, first.shown, release, kind or None, limits)
        if len(uploads) > 1:
            sub = attach_labels(sub, uploads[1].data, uploads[1].shown, release, limits)
        if runs:
            if sub.kind != "judge":
                return _refused(
                    f"{first.shown}: further files are runs of one judge, and this file holds "
                    "model answers; score each model's answers on their own"
                )
            more = tuple(parse_submission(r.data, r.shown, release, "judge", limits) for r in runs)
            sub = with_runs(sub, more)
    except InputError as exc:
        return _refused("", exc)
    except ValueError as exc:
        return _refused(f"{first.shown}: {exc}", exc)
    return sub


def _name_problems(
    release: Release,
    sub: Submission,
    meta: Mapping[str, Any],
    shown: str,
    store: ResultsStore | None,
    submitter: Submitter | None,
) -> list[Problem]:
    """Step 6's first check: the submission's display name or model id (its file's header
    metadata overridden by ``meta``) would pass for a reference row, the physicians' rows or
    (with a ``store``) the verified row of an account other than ``submitter``'s
    (:mod:`medqade.scoring.names`); one problem per field, empty when both may stand."""
    taken = list(names.reference_names(release.roster))
    if store is not None:
        own = () if submitter is None else (submitter.account, *submitter.aliases)
        taken += names.verified_names(store.records(), own)
    return names.name_problems(merge_meta(sub.meta, meta), taken, shown)


@dataclass(frozen=True)
class _Passed:
    """What steps 1-6 leave for scoring: the submission, its duplicate key, the rate limit's
    refusal a dry run only reports, and the warnings so far."""

    sub: Submission
    key: str
    limited: str | None
    warnings: tuple[str, ...]


def _checks(
    release: Release,
    uploads: Sequence[Upload],
    kind: str | None,
    meta: Mapping[str, Any],
    settings: Settings,
    store: ResultsStore | None,
    submitter: Submitter | None,
    dry: bool,
    runs: Sequence[Upload],
) -> _Passed | Outcome:
    """Steps 1-6 (the metadata's own checks are scoring's): what passed, or the refusal."""
    if not uploads:
        return _refused("Choose a file to upload.")
    if store is not None and submitter is None:
        raise ValueError("storing a submission needs its submitter")
    if runs and store is not None:
        raise ValueError("a stored record keeps one upload: runs cannot be stored")
    parsed = parse(release, uploads, kind, settings.limits, runs)
    if isinstance(parsed, Outcome):
        return parsed
    sub = parsed
    shown = uploads[0].shown
    warnings = tuple(str(w) for w in sub.warnings)

    def refused(message: str, exc: Exception | None = None) -> Outcome:
        return Outcome(
            False,
            message,
            summary=sub.summary(),
            warnings=warnings,
            submission=sub,
            error=exc if exc is not None else SubmissionRefused(message),
        )

    key = duplicate_key(sub)
    limited = None
    if store is not None and submitter is not None:
        store.refresh()  # what other writers of the folder stored since (checked again on add)
        try:
            store.check_duplicate(key, release.data_hash)
        except SubmissionRefused as exc:
            return refused(f"{shown}: {exc}", exc)
        copy = reference_match(release, sub)
        if copy is not None and copy.exact:
            return refused(
                f"{shown}: the same content as {copy.describe()}, a reference row of the "
                f"leaderboard (all {copy.compared:,} {copy.unit} identical); copies of reference "
                "rows are not scored again. Submit your own judge's labels or model's answers."
            )
        limited = store.rate_refusal(submitter.account, submitter.aliases)
        if limited is not None and not dry:
            return refused(limited)
    taken = _name_problems(release, sub, meta, shown, store, submitter)
    if taken and (store is not None or dry):
        first = taken[0]
        return Outcome(
            False,
            f"{shown}: {first.message}; {first.fix}.",
            summary=sub.summary(),
            problems=tuple(taken),
            warnings=warnings,
            submission=sub,
            error=InputError(shown, taken),
        )
    warnings += tuple(f"{p.message}; {p.fix} (refused by a results folder)" for p in taken)
    return _Passed(sub, key, limited, warnings)


def _score(
    release: Release, sub: Submission, meta: Mapping[str, Any], settings: Settings
) -> ScoreRecord:
    """The one scoring call of a submission, for the dry run and the real run alike."""
    return score(release, sub, meta, settings)


def check(
    release: Release,
    uploads: Sequence[Upload],
    kind: str | None,
    meta: Mapping[str, Any],
    settings: Settings,
    *,
    store: ResultsStore | None = None,
    submitter: Submitter | None = None,
    runs: Sequence[Upload] = (),
) -> Outcome:
    """The dry run of every front end (the Space's "validate only", ``medqade score
    --validate-only``): every rule :func:`submit` applies (limits, parsing, duplicates and
    copies of reference rows and names against ``store``, the metadata and its link), nothing
    stored: the submission is scored as the real run scores it (the record and its headline
    in the outcome, marked ``dry_run``), so a submitter sees the kappa first. A display
    name that would pass for another row is refused with or without a ``store``; the rate
    limit is only reported. The outcome's ``summary`` describes the parsed file."""
    passed = _checks(release, uploads, kind, meta, settings, store, submitter, True, runs)
    if isinstance(passed, Outcome):
        return passed
    sub = passed.sub
    try:  # scored as the real run is: the same call, the same settings (issue 39)
        record = _score(release, sub, meta, settings)
    except InputError as exc:
        return replace(_refused("", exc), summary=sub.summary(), submission=sub)
    limited = passed.limited
    later = "" if limited is None else f" Note: a scored submission is refused now ({limited})."
    return Outcome(
        True,
        f"Dry run: scored, not stored (validate only). {sub.kind} file: {sub.n_rows:,} rows, "
        f"scope {sub.scope}; {score_line(record)}.{later}",
        record=record,
        summary=sub.summary(),
        warnings=passed.warnings,
        submission=sub,
        dry_run=True,
    )


def submit(
    release: Release,
    uploads: Sequence[Upload],
    kind: str | None,
    meta: Mapping[str, Any],
    settings: Settings,
    *,
    store: ResultsStore | None = None,
    submitter: Submitter | None = None,
    validate_only: bool = False,
    clock: Callable[[], float] = time.time,
    runs: Sequence[Upload] = (),
) -> Outcome:
    """Check, score and (with a ``store``) store one submission (see the module docstring).

    ``uploads``: the submission, optionally followed by a judge's labels of its answers.
    ``runs``: further runs of the same judge (reshuffled orders), compared with the first for
    self-consistency; only without a ``store`` (a stored record keeps one upload).
    ``submitter`` is required with a ``store``. ``validate_only``: :func:`check`, every check,
    scored, nothing stored."""
    if validate_only:
        return check(
            release, uploads, kind, meta, settings, store=store, submitter=submitter, runs=runs
        )
    passed = _checks(release, uploads, kind, meta, settings, store, submitter, False, runs)
    if isinstance(passed, Outcome):
        return passed
    sub, warnings = passed.sub, passed.warnings
    try:
        record = _score(release, sub, meta, settings)
    except InputError as exc:
        return _refused("", exc)
    if store is None or submitter is None:
        return Outcome(True, "scored", record=record, warnings=warnings, submission=sub)

    def refused(message: str, exc: Exception | None = None) -> Outcome:
        return Outcome(
            False,
            message,
            summary=sub.summary(),
            warnings=warnings,
            submission=sub,
            error=exc if exc is not None else SubmissionRefused(message),
        )

    return _store(store, submitter, record, sub, uploads, passed.key, clock, refused)


def score_line(rec: ScoreRecord) -> str:
    """The headline of a scored record in words: a judge's core kappa with its 95% CI and
    verdict, a model's accuracy with its 95% CI (what a dry run reports)."""

    def num(x: object) -> str:
        return f"{x:.3f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "n/a"

    def ci(pair: object) -> str:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            return f"95% CI {num(pair[0])} - {num(pair[1])}"
        return "95% CI n/a"

    if rec.kind == "judge":
        core = rec.core
        kappa, interval = (core.kappa, core.kappa_ci) if core is not None else (None, None)
        return f"core kappa {num(kappa)} ({ci(interval)}), verdict {rec.verdict or 'n/a'}"
    acc = next((a for a in (rec.accuracy_core, rec.accuracy) if a and a.json_keys), None)
    return f"accuracy {num(acc.anchored)} ({ci(acc.ci)})" if acc is not None else "accuracy n/a"


def _store(
    store: ResultsStore,
    submitter: Submitter,
    record: ScoreRecord,
    sub: Submission,
    uploads: Sequence[Upload],
    key: str,
    clock: Callable[[], float],
    refused: Callable[..., Outcome],
) -> Outcome:
    """Step 7: write the scored ``record`` and its uploads (one atomic store write)."""
    space = SpaceEntry(
        account=submitter.account,
        account_scheme=submitter.scheme,
        submitted_at=_iso(clock()),
        key=key,
    )
    files = {f"{sub.content_hash}{uploads[0].suffix}": uploads[0].data}
    if len(uploads) > 1 and sub.answer_labels_hash:
        files[f"{sub.answer_labels_hash}{uploads[1].suffix}"] = uploads[1].data
    shown = uploads[0].shown
    try:
        stored = store.add(record, space, files, submitter.aliases)
    except SubmissionRefused as exc:
        return refused(f"{shown}: {exc}", exc)
    except OSError as exc:  # a read-only or full results folder: nothing was written
        log.error("the results folder cannot be written: %s", exc.strerror or exc)
        return refused(
            f"{shown}: the file was checked and scored, but the results folder cannot be "
            f"written now ({exc.strerror or type(exc).__name__}), so the submission was not "
            "stored; nothing stored before was lost. Submit it again later, and if this "
            "persists tell the maintainers.",
            exc,
        )
    return Outcome(
        True,
        f"stored as record {str(stored.id)[:16]}",
        record=stored,
        warnings=tuple(str(w) for w in sub.warnings),
        submission=sub,
    )


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def rescore(
    release: Release,
    store: ResultsStore,
    record: ScoreRecord,
    settings: Settings,
    *,
    clock: Callable[[], float] = time.time,
) -> Outcome:
    """Score a stored ``record`` of another release again on ``release``, from its stored
    upload, with its kind, metadata and account, and store the new record (through
    :func:`submit`: every rule applies). The old record stays as it was: it belongs on its
    own release's board (:func:`medqade.scoring.board.board_records`).

    A stored upload is read as :meth:`~medqade.scoring.store.ResultsStore.read_upload` reads
    it (a plain file inside ``uploads/``, never through a link) and only when it is what was
    stored: its bytes' SHA-256 equals the one the record kept (``space.upload_sha256``), or,
    for a record stored before those were kept, its content hash on this release equals its
    name. It keeps its stored suffix, so an Inspect log is read as a log. Every refusal names
    the record, the stored file, why, and what to do."""
    rec = record
    rid = str(rec.id or "")[:16]
    if rec.scored_on(release.data_hash):
        return _refused(f"record {rid} was scored on this release already")
    space = rec.space
    sub = rec.submission
    if space is None or not space.account or sub is None or not sub.content_hash:
        return _refused(f"record {rid} was not stored by a results folder; score its file")
    stored = [str(n) for n in (space.uploads or ())]
    first = [n for n in stored if n.startswith(sub.content_hash)]
    if not first:
        return _refused(
            f"record {rid}: its stored upload {UPLOADS}/{sub.content_hash[:16]}... is not named "
            "in the record; score the original file again (medqade score --results)"
        )
    names = first[:1] + [n for n in stored if n not in first]  # the submission, its labels
    kept = space.upload_sha256 or {}
    uploads = []
    for name in names:
        log_file = upload_suffix(name) == EVAL_LOG  # read no more than an upload may have
        limit = settings.limits.max_log_bytes if log_file else settings.limits.max_bytes
        try:
            data = store.read_upload(name, limit)
        except ValueError as exc:
            return _refused(f"record {rid}: {exc}", exc)
        want = kept.get(name)
        if want is not None and upload_sha256(data) != want:
            return _refused(
                f"record {rid}: {UPLOADS}/{name} was changed after it was stored (its SHA-256 "
                "is not the one the record kept); it is not scored: restore the stored file, "
                "or score the original file again (medqade score --results)"
            )
        uploads.append(Upload(data, f"{UPLOADS}/{name}", upload_suffix(name)))
    if not kept:  # stored before the bytes' hashes were kept: the content hash, on this release
        parsed = parse(release, uploads, rec.kind, settings.limits)
        if isinstance(parsed, Outcome):
            return replace(parsed, message=f"record {rid}: {parsed.message}")
        hashes = [parsed.content_hash, parsed.answer_labels_hash]
        for name, content in zip(names, hashes, strict=False):
            if content is not None and not name.startswith(content):
                return _refused(
                    f"record {rid}: {UPLOADS}/{name} does not hold the content its name says "
                    f"(its content hash on this release is {content[:16]}...); it is not "
                    "scored: score the original file again (medqade score --results)"
                )
    meta = {} if rec.meta is None else rec.meta.to_json()
    submitter = Submitter(space.account, (), space.account_scheme)
    outcome = submit(
        release, uploads, rec.kind, meta, settings, store=store, submitter=submitter, clock=clock
    )
    if outcome.ok:
        return outcome
    return replace(outcome, message=f"record {rid}: {outcome.message}")
