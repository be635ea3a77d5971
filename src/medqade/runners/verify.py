"""``medqade verify`` as a library: ask a record's judge again, through Inspect, on a seeded
sample of the questions the record labelled, and compare its new labels with the stored ones.

1. **The stored labels** are the record's own submission: the upload its results folder kept
   (:func:`labels_of_store`; an Inspect log is the preferred form, it holds every reply and the
   order each question was shown in), or a file the caller gives (:func:`labels_of_file`).
   Either is parsed as ``medqade score`` parses it and must have the record's content hash
   (``submission.content_hash``), and the record must have been scored on the release given.
2. **The sample** (:func:`medqade.measures.verification_sample`): ``K`` questions the record
   labelled, half core, seeded.
3. **The re-run**: the judge task of ``medqade judge`` (:func:`judge_run_task`) on those
   questions, each shown in the order the stored labels record (their ``order`` or
   ``position``), else in the order ``medqade judge`` draws (seed
   :data:`~medqade.runners.options.ORDER_SEED`); the official prompt unless the record names
   its own (then ``prompt`` must be that file: its SHA-256 is checked,
   :func:`system_prompt`). The Inspect log is kept.
4. **The comparison** (:func:`medqade.measures.rerun_agreement`) against the judge's run-to-run
   agreement (:func:`medqade.scoring.policy.reference_of`): a
   :class:`~medqade.scoring.policy.Verification`.

A re-run in which a question failed for another reason than an unparseable reply (the server
could not be reached, a timeout) is not a verification: :class:`RunAborted`, nothing written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import rerun_agreement, verification_sample
from medqade.runners.judge import JudgeItem, judge_items
from medqade.runners.options import ORDER_SEED
from medqade.runners.prompts import JUDGE_SYSTEM_PROMPT, response_keys
from medqade.runners.run_settings import RunAborted, RunSettings
from medqade.scoring.intake import Limits, Submission, parse_submission
from medqade.scoring.policy import (
    RateLimit,
    ResultsStore,
    Verification,
    verification_of,
    verification_targets,
)
from medqade.scoring.record import ScoreRecord

if TYPE_CHECKING:
    from medqade.dataset.release import Release

RESAMPLES = 1000
"""Question resamples of the agreement's interval."""


def check_record(record: ScoreRecord, release: Release) -> str:
    """The record's content hash, once it is a judge record scored on ``release`` (else
    ``ValueError`` saying what to do)."""
    rid = str(record.id or "")[:16]
    if record.kind != "judge":
        raise ValueError(f"record {rid} holds {record.kind or 'no'} labels; verify re-runs judges")
    sub = record.submission
    if sub is None or not sub.content_hash:
        raise ValueError(f"record {rid} has no content hash: it is not a scored record")
    if not record.scored_on(release.data_hash):
        held = None if record.dataset is None else record.dataset.hash
        raise ValueError(
            f"record {rid} was scored on the release with data hash {str(held)[:16]}..., not on "
            f"--data (data hash {release.data_hash[:16]}...); give the release it was scored on"
        )
    return str(sub.content_hash)


def labels_of_file(
    record: ScoreRecord, release: Release, data: bytes, name: str, limits: Limits
) -> Submission:
    """The record's labels from the file ``name`` (its bytes ``data``): parsed as ``medqade
    score`` parses it, and refused unless it holds exactly the labels the record was scored
    from (the same content hash)."""
    want = check_record(record, release)
    sub = parse_submission(data, name, release, "judge", limits)
    if sub.content_hash != want:
        raise ValueError(
            f"{name} does not hold the labels record {str(record.id)[:16]} was scored from "
            f"(its content hash is {sub.content_hash[:16]}..., the record's {want[:16]}...); "
            "give the file that was submitted"
        )
    return sub


def labels_of_store(
    record: ScoreRecord, release: Release, root: Path, limits: Limits
) -> Submission:
    """The record's labels from the upload its results folder ``root`` stored (read as the
    store reads it: a plain file inside ``uploads/``, unchanged since it was stored)."""
    want = check_record(record, release)
    space = record.space
    names = [str(n) for n in ((space.uploads if space is not None else None) or ())]
    first = [n for n in names if n.startswith(want)]
    if not first:
        raise ValueError(
            f"record {str(record.id)[:16]} names no stored upload of its labels in {root}; "
            "give the submitted file with --labels"
        )
    store = ResultsStore(root, RateLimit(0, 1.0))
    data = store.read_upload(first[0], max(limits.max_bytes, limits.max_log_bytes))
    kept = (space.upload_sha256 if space is not None else None) or {}
    if kept.get(first[0]) not in (None, hashlib.sha256(data).hexdigest()):
        raise ValueError(f"uploads/{first[0]} was changed after it was stored; it is not used")
    return labels_of_file(record, release, data, f"uploads/{first[0]}", limits)


def system_prompt(record: ScoreRecord, prompt: bytes | None, shown: str = "--prompt-file") -> str:
    """The system prompt of the re-run: the official one, or the file ``prompt`` (its bytes)
    when the record names its own prompt, whose SHA-256 must be the record's ``prompt_sha256``."""
    meta = record.meta
    want = None if meta is None else meta.prompt_sha256
    own = meta is not None and (meta.prompt == "own" or bool(want))
    if prompt is None:
        if own:
            raise ValueError(
                f"the record was judged with its own prompt (SHA-256 {str(want)[:16]}...); "
                f"give that file with {shown}"
            )
        return JUDGE_SYSTEM_PROMPT
    if want and hashlib.sha256(prompt).hexdigest() != want:
        raise ValueError(
            f"{shown} is not the prompt the record names (SHA-256 {want[:16]}...); give that file"
        )
    try:
        text = prompt.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{shown}: not UTF-8 text") from None
    if not text.strip():
        raise ValueError(f"{shown}: the file is empty")
    return text


def stored_order(
    positions: npt.NDArray[Any] | None, row: int, students: Sequence[str]
) -> tuple[str, ...] | None:
    """The order in which the stored run showed question ``row``'s answers (positions 1-5 of
    the submission), or ``None`` when the submission does not say."""
    if positions is None:
        return None
    places = [int(p) for p in positions[row]]
    if sorted(places) != list(range(1, len(students) + 1)):
        return None
    return tuple(s for _, s in sorted(zip(places, students, strict=True)))


def sampled_items(release: Release, sub: Submission, rows: Sequence[int]) -> list[JudgeItem]:
    """The judge items of the sampled questions ``rows`` (release item indices), each in its
    stored order where the submission has one."""
    students = tuple(release.roster.student_ids)
    questions = release.questions.iloc[list(rows)].reset_index(drop=True)
    drawn = judge_items(questions, release.answers, students, ORDER_SEED)
    items = []
    for row, item in zip(rows, drawn, strict=True):
        order = stored_order(sub.positions, row, students)
        if order is not None:
            texts = dict(zip(item.order, item.answers, strict=True))
            item = JudgeItem(
                item.question_id,
                item.question,
                item.reference,
                order,
                tuple(texts[s] for s in order),
            )
        items.append(item)
    return items


def again_codes(
    items: Sequence[JudgeItem], rows: Mapping[str, Mapping[str, Any]], students: Sequence[str]
) -> npt.NDArray[np.int64]:
    """The re-run's label codes (questions, students), ``MISSING_CODE`` where it gave no
    label; :class:`RunAborted` when a question failed other than by an unparseable reply."""
    out = np.full((len(items), len(students)), vocab.MISSING_CODE, dtype=np.int64)
    failed = []
    for k, item in enumerate(items):
        row = rows.get(item.question_id, {"error": "error: not asked (the run stopped)"})
        error = row.get("error")
        if error:
            if not str(error).startswith("invalid"):
                failed.append(f"{item.question_id}: {error}")
            continue
        order = row.get("order") or list(item.order)
        for key, student in zip(response_keys(len(order)), order, strict=True):
            code = vocab.LABEL_CODES.get(str(row.get(key)))
            if code is not None and student in students:
                out[k, list(students).index(student)] = code
    if failed:
        raise RunAborted(
            f"the re-run failed on {len(failed)} of {len(items)} questions ({failed[0]}); "
            "a verification needs every answer asked: nothing was written, run it again"
        )
    return out


@dataclass(frozen=True)
class Verified:
    """What :func:`verify` found: the :class:`Verification` and the Inspect log's bytes."""

    verification: Verification
    log: bytes


def verify(
    record: ScoreRecord,
    release: Release,
    sub: Submission,
    settings: RunSettings,
    *,
    questions: int,
    seed: int,
    system: str = JUDGE_SYSTEM_PROMPT,
    response_format: str = "json_schema",
    resamples: int = RESAMPLES,
    model: Any = None,
) -> Verified:
    """Ask the judge of ``settings`` (or the Inspect ``model``) again on ``questions`` sampled
    questions (``seed``) and compare its labels with ``sub``, the record's stored labels (see
    the module docstring)."""
    from medqade.runners import inspect_run
    from medqade.runners.inspect_tasks import judge_run_task

    check_record(record, release)
    students = tuple(release.roster.student_ids)
    present = np.asarray(sub.present, dtype=bool)
    if sub.labels is None:
        raise ValueError("the stored submission holds no judge labels")
    rows = verification_sample(release.is_core, present.any(axis=1), questions, seed)
    items = sampled_items(release, sub, [int(r) for r in rows])
    task = judge_run_task(
        items, students, system, ORDER_SEED, response_format, settings.generate_config(), True
    )
    if model is None:
        inspect_run.check_server(settings)
    asked = inspect_run.run_eval(task, settings, model=model, keep_log=True)
    again = again_codes(items, asked.rows, students)
    stored = np.where(present[rows], np.asarray(sub.labels)[rows], vocab.MISSING_CODE)
    strata = np.where(np.asarray(release.is_core, dtype=bool)[rows], "core", "extension")
    found = rerun_agreement(stored, again, strata, resamples, seed)
    log_name = verification_targets(Path("."), str(record.id), seed)[1].name
    verification = verification_of(
        record,
        found,
        model=settings.model,
        seed=seed,
        question_ids=[item.question_id for item in items],
        resamples=resamples,
        log=log_name,
    )
    return Verified(verification, asked.log[1] if asked.log is not None else b"")


__all__ = [
    "RESAMPLES",
    "Verified",
    "again_codes",
    "check_record",
    "labels_of_file",
    "labels_of_store",
    "sampled_items",
    "stored_order",
    "system_prompt",
    "verify",
]
