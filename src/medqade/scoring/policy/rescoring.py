"""Scoring a stored submission again on a new release: :func:`rescore` (``medqade rescore``).

The stored upload is read back as the store keeps it and submitted again through
:func:`medqade.scoring.policy.policy.submit`, so every rule of the policy applies to the new record.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from medqade.scoring.intake import Settings
from medqade.scoring.policy.outcome import EVAL_LOG, Outcome, Submitter, Upload, refused
from medqade.scoring.policy.policy import parse, submit
from medqade.scoring.policy.store import UPLOADS, ResultsStore, upload_sha256, upload_suffix
from medqade.scoring.policy.verification import stored_verifications
from medqade.scoring.record import ScoreRecord

if TYPE_CHECKING:
    from medqade.dataset.release import Release


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
    own release's board (:func:`medqade.scoring.board.sources.board_records`).

    A stored upload is read as :meth:`~medqade.scoring.policy.store.ResultsStore.read_upload` reads
    it (a plain file inside ``uploads/``, never through a link) and only when it is what was
    stored: its bytes' SHA-256 equals the one the record kept (``space.upload_sha256``), or,
    for a record stored before those were kept, its content hash on this release equals its
    name. It keeps its stored suffix, so an Inspect log is read as a log. A verified record
    stays verified only with a passing verification of its labels in the folder's
    ``verifications/`` (:mod:`~medqade.scoring.policy.verification`). Every refusal names
    the record, the stored file, why, and what to do."""
    rec = record
    rid = str(rec.id or "")[:16]
    if rec.scored_on(release.data_hash):
        return refused(f"record {rid} was scored on this release already")
    space = rec.space
    sub = rec.submission
    if space is None or not space.account or sub is None or not sub.content_hash:
        return refused(f"record {rid} was not stored by a results folder; score its file")
    stored = [str(n) for n in (space.uploads or ())]
    first = [n for n in stored if n.startswith(sub.content_hash)]
    if not first:
        return refused(
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
            return refused(f"record {rid}: {exc}", exc)
        want = kept.get(name)
        if want is not None and upload_sha256(data) != want:
            return refused(
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
                return refused(
                    f"record {rid}: {UPLOADS}/{name} does not hold the content its name says "
                    f"(its content hash on this release is {content[:16]}...); it is not "
                    "scored: score the original file again (medqade score --results)"
                )
    meta = {} if rec.meta is None else rec.meta.to_json()
    submitter = Submitter(space.account, (), space.account_scheme)
    found = stored_verifications(store.root, sub.content_hash)  # a verified record keeps it
    outcome = submit(
        release, uploads, rec.kind, meta, settings, store=store, submitter=submitter, clock=clock,
        verification=found[0] if found else None,
    )  # fmt: skip
    if outcome.ok:
        return outcome
    return replace(outcome, message=f"record {rid}: {outcome.message}")


__all__ = ["rescore"]
