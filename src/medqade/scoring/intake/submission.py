"""Submission files: parsing and checking judge labels and model answers.

Every file is CSV (UTF-8, comma-delimited, header row), JSON Lines (one object per line) or
Parquet; the format follows the extension (``.csv``, ``.jsonl``, ``.parquet``). Column names
are matched case-insensitively. Labels are ``Richtig`` / ``Falsch`` / ``Keine Angabe`` or the
aliases of :func:`medqade.vocab.parse_label` (``correct``, ``incorrect``, ``abstain``,
``true``, ``false``, ``1``, ``0``); an empty label is *missing* (excluded, never guessed).

Judge labels, row format (``kind="judge"``, format ``rows``)::

    question_id,model,label[,difficulty]
    MQ-C0001,gemini-2.5-flash,Richtig,Einfach

``model`` is the student whose answer is judged (id or display name). ``answer_id``
(``QUESTION/MODEL``) may replace ``question_id`` + ``model``. ``difficulty`` is checked but not
scored (tiers always come from the physicians). An optional ``position`` (1-5, empty when
unknown) is the place at which the judge saw the answer; with it the record gets the judge's
position bias (``behaviour.position``).

Repeated runs of one judge (for self-consistency, ``behaviour.consistency``): an optional
integer ``run`` column (e.g. the Inspect epoch) in either format; every run is checked like a
file of its own, the lowest run is the one scored for agreement, and the others are compared
with it. Several files of one judge passed together (:func:`with_runs`) do the same.

Judge labels, per-question format (format ``per_question``): the output of an evaluator run,
one object per question, ``resp_k`` judging the answer of ``order[k-1]``::

    {"question_id": "MQ-C0001", "order": ["qwen3:4b", ...], "resp_1": "Richtig", ...,
     "resp_5": null, "difficulty": "Mittel"}

Null labels are missing; extra keys (``evaluator``, ``error``, ``raw``) are ignored, but one
file holds one evaluator. A row without labels whose ``error`` starts with ``invalid`` (how
``medqade judge`` and an Inspect log keep a reply that could not be parsed) is an *invalid
reply* (:attr:`Submission.invalid`), kept apart from abstentions in the record's
``output_shares``; a file without an ``error`` column has none. In CSV ``order`` is a JSON
array or ``a|b|c|d|e``.

Model answers (``kind="answers"``): ``question_id,answer`` (the output of ``medqade answer``;
a null or empty answer is *not answered*: left out of every accuracy, and stated).

Labels for model answers (:func:`attach_labels`): the verdicts of a named judge on the
submitted answers, used for the answers that match no physician-labelled answer::

    question_id,label[,answer]

``answer``, when present, must equal the submitted answer of that question (a guard against
labelling the wrong file). JSON Lines may start with ``{"meta": {"name": ..., "model_id":
..., "family": ..., "core_kappa": ...}}`` describing the judge.

A submission covers the core (1,000 slots, 200 answers), everything (19,000 / 3,800) or a
part; a part is flagged ``partial_coverage`` and never ranked. A judge's unscored slots of a
view count as disagreements in its kappa, PA, PABAK and verdict (abstaining by leaving rows out
buys nothing); its agreement *when rated* is computed on what it covers. A model's unscored
questions are never counted as wrong. A JSON Lines file may start with a ``{"meta": {...}}``
header (keys in :mod:`medqade.scoring.intake.meta`).

Nothing is scored from a file with problems: :func:`parse_submission` raises one
:class:`~medqade.files.problems.InputError` that lists every problem with file, line (or row),
column, value and fix; notes that do not block scoring are :attr:`Submission.warnings`.

The work is spread over small modules, re-exported here: :mod:`~medqade.scoring.intake.kinds`
(kinds, formats, :func:`detect_kind`), :mod:`~medqade.scoring.intake.rows` (the shared row walker),
:mod:`~medqade.scoring.intake.judge_rows` and :mod:`~medqade.scoring.intake.answer_rows` (the two
formats),
:mod:`~medqade.scoring.intake.coverage` (scope, coverage, content hashes),
:mod:`~medqade.scoring.intake.parsed` (:class:`Submission`) and
:mod:`~medqade.scoring.intake.judge_runs` (a judge's repeated runs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from medqade import vocab
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.scoring.intake.answer_rows import answer_rows
from medqade.scoring.intake.coverage import (
    answers_content_hash,
    coverage_note,
    coverage_of,
    hash_lines,
    judge_content_hash,
    scope_of,
)
from medqade.scoring.intake.inspect_log import grader_labels_text
from medqade.scoring.intake.judge_rows import ERROR_COLUMN, judge_per_question, judge_rows
from medqade.scoring.intake.judge_runs import split_runs
from medqade.scoring.intake.judge_runs import with_runs as with_runs
from medqade.scoring.intake.kinds import (
    ANSWERS,
    JUDGE,
    KINDS,
    PER_QUESTION,
    RESP,
    ROWS,
    detect_kind,
)
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.log_reader import is_eval_log
from medqade.scoring.intake.meta import clean_meta
from medqade.scoring.intake.normalize import normalise
from medqade.scoring.intake.parsed import FileSummary as FileSummary
from medqade.scoring.intake.parsed import JudgeRun as JudgeRun
from medqade.scoring.intake.parsed import Submission as Submission
from medqade.scoring.intake.parsed import readonly
from medqade.scoring.intake.rows import IGNORED_COLUMNS, Walker, ignored, require, require_usable
from medqade.scoring.intake.upload import read_upload as _read_upload
from medqade.scoring.intake.upload_cells import LINE

if TYPE_CHECKING:
    from medqade.dataset.release import Release

__all__ = [
    "ANSWERS",
    "DEFAULT_LIMITS",
    "IGNORED_COLUMNS",
    "JUDGE",
    "KINDS",
    "PER_QUESTION",
    "ROWS",
    "JudgeRun",
    "Limits",
    "Submission",
    "answers_content_hash",
    "attach_labels",
    "detect_kind",
    "judge_content_hash",
    "parse_submission",
    "records_invalid",
    "validate_only",
    "with_runs",
]


DEFAULT_LIMITS: Final = Limits()


def records_invalid(columns: Any, header: Mapping[str, Any]) -> bool:
    """Whether a judge file can say which replies were unparseable: it has an ``error``
    column, or it is an Inspect log (its header's ``inspect`` block counts invalid samples,
    so a log without an ``error`` column had none)."""
    return ERROR_COLUMN in columns or isinstance(header.get("inspect"), Mapping)


def parse_submission(
    data: bytes,
    filename: str,
    release: Release,
    kind: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Submission:
    """Parse and check an uploaded submission (see the module docstring for the formats).

    ``kind`` (``"judge"`` or ``"answers"``) is detected from the columns when ``None``.
    Raises :class:`~medqade.files.problems.InputError` listing every problem; nothing is returned
    from a file with problems.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} or None, got {kind!r}")
    name = filename or "submission"
    table = _read_upload(
        data, name, limits.max_bytes, limits.max_log_bytes, release=release, limits=limits
    )
    log = ProblemLog()
    for note in table.notes:
        log.warn(note)
    if not len(table.frame):
        raise InputError(
            name,
            [Problem(name, None, "the file has no data rows", fix="add one row per label")],
        )
    if len(table.frame) > limits.max_rows:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"the file has {len(table.frame):,} rows, more than the limit of "
                    f"{limits.max_rows:,}",
                    fix="submit one evaluator or one model per file",
                )
            ],
        )
    if kind is None:
        detected, fmt = detect_kind(table.columns, name)
    elif kind == JUDGE:
        per_question = any(c == "order" or RESP.match(c) for c in table.columns)
        detected, fmt = JUDGE, PER_QUESTION if per_question else ROWS
    else:
        detected, fmt = ANSWERS, ANSWERS
    header: dict[str, Any] = {}
    if table.header_meta is not None:
        header, meta_problems = clean_meta(
            table.header_meta, name, table.header_line, release.roster.families
        )
        for p in meta_problems:
            log.error(p)
    walker = Walker(table, release, log)
    is_core = release.is_core
    if detected == JUDGE:
        walk = judge_per_question if fmt == PER_QUESTION else judge_rows
        runs = []
        for k, (run, part) in enumerate(split_runs(table, log)):
            part_log = log if k == 0 else ProblemLog()  # warnings once, errors of every run
            walked = walk(Walker(part, release, part_log), part_log)
            if k:
                log.errors.extend(part_log.errors)
            runs.append(JudgeRun(run, *(readonly(a) for a in walked)))
        log.raise_if_any(name)
        labels, present, positions = runs[0].labels, runs[0].present, runs[0].positions
        require_usable(name, table, int(present.sum()), int((labels != vocab.MISSING_CODE).sum()))
        scope = scope_of(np.asarray(present.all(axis=1)), is_core)
        coverage = coverage_of(present, is_core)
        content = judge_content_hash(release, labels, present)
        if scope == "partial":
            log.warn(coverage_note(name, JUDGE, coverage))
        return Submission(
            kind=JUDGE,
            format=fmt,
            filename=name,
            content_hash=content,
            n_rows=len(table.frame),
            scope=scope,
            coverage=MappingProxyType(coverage),
            present=present,
            labels=labels,
            meta=MappingProxyType(header),
            warnings=tuple(log.warnings),
            positions=positions if positions.any() else None,
            runs=tuple(runs) if len(runs) > 1 else (),
            invalid=runs[0].invalid if records_invalid(table.frame.columns, header) else None,
        )
    answers, present_items = answer_rows(walker, log, limits)
    log.raise_if_any(name)
    require_usable(
        name, table, int(present_items.sum()), sum(a is not None for a in answers), "answer"
    )
    scope = scope_of(present_items, is_core)
    coverage = coverage_of(present_items, is_core)
    if scope == "partial":
        log.warn(coverage_note(name, ANSWERS, coverage))
    content = answers_content_hash(release, answers, present_items)
    submission = Submission(
        kind=ANSWERS,
        format=ANSWERS,
        filename=name,
        content_hash=content,
        n_rows=len(table.frame),
        scope=scope,
        coverage=MappingProxyType(coverage),
        present=readonly(present_items),
        answers=tuple(answers),
        meta=MappingProxyType(header),
        warnings=tuple(log.warnings),
    )
    graded = grader_labels_text(data, name, release, limits) if is_eval_log(data, name) else None
    if graded is None:  # an Inspect log of medqade/answer brings its grader's labels along
        return submission
    return attach_labels(submission, graded.encode("utf-8"), f"{name} (grader)", release, limits)


def attach_labels(
    submission: Submission,
    data: bytes,
    filename: str,
    release: Release,
    limits: Limits = DEFAULT_LIMITS,
) -> Submission:
    """Add a judge's labels for the submitted answers (format: module docstring).

    Returns a new :class:`Submission`; the header's judge description (name, model_id,
    family, core_kappa) is merged into ``meta["judge"]``.
    """
    if submission.kind != ANSWERS or submission.answers is None:
        raise ValueError("labels can only be attached to a model-answer submission")
    name = filename or "labels"
    table = _read_upload(
        data, name, limits.max_bytes, limits.max_log_bytes, release=release, limits=limits
    )
    log = ProblemLog()
    for note in table.notes:
        log.warn(note)
    if not len(table.frame):
        raise InputError(name, [Problem(name, None, "the file has no data rows", fix="add rows")])
    judge: dict[str, Any] = {}
    if table.header_meta is not None:
        cleaned, problems = clean_meta(
            {"judge": table.header_meta}, name, table.header_line, release.roster.families
        )
        for p in problems:
            log.error(p)
        judge = dict(cleaned.get("judge", {}))
    codes = np.full(release.n_items, vocab.MISSING_CODE, dtype=np.int8)
    seen = np.zeros(release.n_items, dtype=bool)
    if require(table, ("question_id", "label"), "labels of model answers", log):
        ignored(table, ("question_id", "label", "answer"), log)
        w = Walker(table, release, log)
        frame = table.frame
        check_answer = "answer" in frame.columns
        answer_col = frame["answer"] if check_answer else [None] * len(frame)
        for line, q_cell, l_cell, a_cell in zip(
            frame[LINE], frame["question_id"], frame["label"], answer_col, strict=True
        ):
            line = int(line)
            i = w.item(line, "question_id", q_cell)
            code = w.label(line, "label", l_cell)
            if i is None or code is None:
                continue
            given = submission.answers[i]
            if given is None:
                w.error(
                    line,
                    "question_id",
                    "the answers file has no answer for this question",
                    release.item_ids[i],
                    "label only questions that the answers file answers",
                )
                continue
            if check_answer:
                text = w.text(line, "answer", a_cell)
                if text is not None and normalise(text) != normalise(given):
                    w.error(
                        line,
                        "answer",
                        "this label is for a different answer than the submitted one",
                        text,
                        f"label the submitted answer {given[:40]!r}, or check the file",
                    )
                    continue
            if seen[i] and codes[i] != code:
                w.error(
                    line,
                    "label",
                    "question labelled twice, with different labels",
                    release.item_ids[i],
                    "keep one label per question",
                )
                continue
            seen[i] = True
            codes[i] = code
    log.raise_if_any(name)
    require_usable(name, table, int(seen.sum()), int((codes[seen] != vocab.MISSING_CODE).sum()))
    meta = dict(submission.meta)
    if judge:
        meta["judge"] = {**judge, **dict(meta.get("judge", {}))}
    labels_hash = hash_lines(
        f"label\t{release.item_ids[i]}\t{int(codes[i])}" for i in np.flatnonzero(seen)
    )
    return replace(
        submission,
        answer_labels=readonly(codes),
        answer_labels_hash=labels_hash,
        meta=MappingProxyType(meta),
        warnings=submission.warnings + tuple(log.warnings),
    )


def validate_only(
    data: bytes,
    filename: str,
    release: Release,
    kind: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    labels: tuple[bytes, str] | None = None,
) -> FileSummary:
    """Dry run: check a submission (and optional labels ``(bytes, filename)``) without
    scoring. Never raises for a bad file; returns its :class:`FileSummary` (``ok``, kind,
    format, rows, scope, coverage, content hash, warnings, and problems as text).
    Parsing only: the dry run of the front ends, every rule, is
    :func:`medqade.scoring.policy.policy.check`."""
    try:
        sub = parse_submission(data, filename, release, kind, limits)
        if labels is not None:
            sub = attach_labels(sub, labels[0], labels[1], release, limits)
    except InputError as exc:
        return FileSummary.refused(kind, tuple(str(p) for p in exc.problems))
    return sub.summary(checked=True)
