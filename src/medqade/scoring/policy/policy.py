"""One submission policy: what the Space and ``medqade score`` check, score and store.

:func:`submit` is the one path from uploaded bytes to a result record. In order:

1. **size**: the bytes (:func:`size_refusal`; the Space also asks before reading the
   upload) and the lines (:func:`line_refusal`) of every file against :class:`Limits`;
2. **parse**: :func:`medqade.scoring.parse_submission` (plus
   :func:`~medqade.scoring.attach_labels` for a judge's labels of model answers);
3. **duplicate**: the same content (its duplicate key, :func:`duplicate_key`) stored before
   and scored on this release (scored on another release it is not on this board: it may be
   scored again, as :func:`medqade.scoring.policy.rescoring.rescore` does from the stored upload);
4. **copy of a reference row** (:func:`medqade.scoring.metrics.duplicates.reference_match`);
5. **rate limit** of the submitting account (a dry run stores nothing, so it is never
   limited; it is told when a scored submission would be);
6. **metadata**: a display name or model id that would pass for another row (a reference
   row, the physicians' rows, another account's verified row: :mod:`medqade.scoring.policy.names`)
   is refused, and so is ``verified`` without a passing verification of the same labels
   (:func:`medqade.scoring.policy.verification.verified_refusal`: verified means reproduced);
   the rest is checked by scoring (a dry run scores without the bootstrap);
7. **score and store**: :func:`medqade.scoring.score`, then one atomic write of the record
   and its uploads (:meth:`~medqade.scoring.policy.store.ResultsStore.add`, which applies 3 and 5
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
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from medqade.files.problems import InputError, Problem
from medqade.measures import price_note
from medqade.scoring.intake import (
    Limits,
    Submission,
    attach_labels,
    merge_meta,
    parse_submission,
    with_runs,
)
from medqade.scoring.intake import Settings as Settings  # re-exported: policy.Settings
from medqade.scoring.metrics import reference_match, score
from medqade.scoring.policy import names
from medqade.scoring.policy.outcome import EVAL_LOG as EVAL_LOG
from medqade.scoring.policy.outcome import PARQUET as PARQUET
from medqade.scoring.policy.outcome import Outcome as Outcome
from medqade.scoring.policy.outcome import Submitter as Submitter
from medqade.scoring.policy.outcome import Upload as Upload
from medqade.scoring.policy.outcome import duplicate_key as duplicate_key
from medqade.scoring.policy.outcome import flag_sentence
from medqade.scoring.policy.outcome import line_refusal as line_refusal
from medqade.scoring.policy.outcome import problems_message as problems_message
from medqade.scoring.policy.outcome import refused as refuse
from medqade.scoring.policy.outcome import score_line as score_line
from medqade.scoring.policy.outcome import size_refusal as size_refusal
from medqade.scoring.policy.store import (
    ResultsStore,
    SubmissionRefused,
)
from medqade.scoring.policy.verification import Verification, verified_refusal
from medqade.scoring.record import ScoreRecord, SpaceEntry

if TYPE_CHECKING:
    from medqade.dataset.release import Release

log = logging.getLogger(__name__)


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
            return refuse(refusal)
    first = uploads[0]
    try:
        sub = parse_submission(first.data, first.shown, release, kind or None, limits)
        if len(uploads) > 1:
            sub = attach_labels(sub, uploads[1].data, uploads[1].shown, release, limits)
        if runs:
            if sub.kind != "judge":
                return refuse(
                    f"{first.shown}: further files are runs of one judge, and this file holds "
                    "model answers; score each model's answers on their own"
                )
            more = tuple(parse_submission(r.data, r.shown, release, "judge", limits) for r in runs)
            sub = with_runs(sub, more)
    except InputError as exc:
        return refuse("", exc)
    except ValueError as exc:
        return refuse(f"{first.shown}: {exc}", exc)
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
    (:mod:`medqade.scoring.policy.names`); one problem per field, empty when both may stand."""
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
    verification: Verification | None = None,
) -> _Passed | Outcome:
    """Steps 1-6 (the metadata's own checks are scoring's): what passed, or the refusal."""
    if not uploads:
        return refuse("Choose a file to upload.")
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

    if meta.get("verified") is True:
        why = verified_refusal(verification, sub.content_hash)
        if why is not None:
            return refused(f"{shown}: {why}")
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


def _scored_warnings(warnings: tuple[str, ...], record: ScoreRecord) -> tuple[str, ...]:
    """The warnings so far and what scoring noted of the metadata: prices without the token
    counts a cost needs (:func:`medqade.measures.price_note`, also in the record's warnings)."""
    usage = None if record.meta is None else record.meta.usage
    note = price_note(usage) if record.kind == "judge" else None
    return warnings if note is None or note in warnings else (*warnings, note)


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
    verification: Verification | None = None,
) -> Outcome:
    """The dry run of every front end (the Space's "validate only", ``medqade score
    --validate-only``): every rule :func:`submit` applies (limits, parsing, duplicates and
    copies of reference rows and names against ``store``, the metadata and its link), nothing
    stored: the submission is scored as the real run scores it (the record and its headline
    in the outcome, marked ``dry_run``), so a submitter sees the kappa first. A display
    name that would pass for another row is refused with or without a ``store``; the rate
    limit is only reported. The outcome's ``summary`` describes the parsed file."""
    passed = _checks(
        release, uploads, kind, meta, settings, store, submitter, True, runs, verification
    )
    if isinstance(passed, Outcome):
        return passed
    sub = passed.sub
    try:  # scored as the real run is: the same call, the same settings (issue 39)
        record = _score(release, sub, meta, settings)
    except InputError as exc:
        return replace(refuse("", exc), summary=sub.summary(), submission=sub)
    limited = passed.limited
    warnings = _scored_warnings(passed.warnings, record)
    later = "" if limited is None else f" Note: a scored submission is refused now ({limited})."
    return Outcome(
        True,
        f"Dry run: scored, not stored (validate only). {sub.kind} file: {sub.n_rows:,} rows, "
        f"scope {sub.scope}; {score_line(record)}.{flag_sentence(record)}{later}",
        record=record,
        summary=sub.summary(),
        warnings=warnings,
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
    verification: Verification | None = None,
) -> Outcome:
    """Check, score and (with a ``store``) store one submission (see the module docstring).

    ``uploads``: the submission, optionally followed by a judge's labels of its answers.
    ``runs``: further runs of the same judge (reshuffled orders), compared with the first for
    self-consistency; only without a ``store`` (a stored record keeps one upload).
    ``submitter`` is required with a ``store``. ``validate_only``: :func:`check`, every check,
    scored, nothing stored. ``verification``: what ``medqade verify`` found for these labels,
    required when ``meta`` marks the record ``verified``."""
    if validate_only:
        return check(
            release, uploads, kind, meta, settings, store=store, submitter=submitter, runs=runs,
            verification=verification,
        )  # fmt: skip
    passed = _checks(
        release, uploads, kind, meta, settings, store, submitter, False, runs, verification
    )
    if isinstance(passed, Outcome):
        return passed
    sub, warnings = passed.sub, passed.warnings
    try:
        record = _score(release, sub, meta, settings)
    except InputError as exc:
        return refuse("", exc)
    warnings = _scored_warnings(warnings, record)
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
        f"stored as record {str(stored.id)[:16]}"
        + (f".{flag_sentence(stored)}" if flag_sentence(stored) else ""),
        record=stored,
        warnings=_scored_warnings(tuple(str(w) for w in sub.warnings), stored),
        submission=sub,
    )


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")
