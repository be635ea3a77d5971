"""An Inspect log (``.eval``) as a submission: the rows of ``medqade judge`` / ``medqade answer``.

``medqade score RUN.eval`` and the Space's Submit tab read a log of ``inspect eval medqade/judge``
or ``inspect eval medqade/answer`` through :func:`medqade.scoring.intake.upload.read_upload`, which
calls :func:`log_table_text` here, and turned into JSON Lines text with a ``{"meta": {...}}``
header, so everything after it (checks, scoring, records) is the path of a JSONL submission.

Reading is bounded (:mod:`~medqade.scoring.intake.log_reader`), and the rows and header are made
from the samples by :mod:`~medqade.scoring.intake.log_rows`.

A submitted log must be of this release (:func:`log_rows`): its task named in full
(:data:`~medqade.scoring.intake.log_reader.TASKS`: ``medqade/judge`` or ``medqade/answer``), the
dataset it names (``-T data``) this release's by the rule of :func:`check_release`, and every
sample's texts (question, reference answer, the five answers) this release's for its question id
(:func:`~medqade.scoring.intake.log_samples.check_texts`); the first mismatch is named.

A judge log's table keeps every epoch: epoch 1 is scored for agreement and later epochs
(reshuffled orders) are the runs of the self-consistency statistics
(``behaviour.consistency``); an answer log's table holds epoch 1, and the grader's labels of an
answer run with a ``grader`` model role are :func:`grader_labels_text`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from medqade.files.problems import InputError, Problem
from medqade.scoring.intake.hub_log import (
    check_hub_sample,
    hub_inputs,
    hub_log_text,
    hub_repo,
    is_hub_task,
)
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.log_archive import CheckedArchive
from medqade.scoring.intake.log_reader import (
    DEFAULT_LIMITS,
    log_problem,
    log_samples,
    read_log,
    task_kind,
    task_name,
)
from medqade.scoring.intake.log_rows import LogRows, rows_of_samples
from medqade.scoring.intake.log_samples import (
    LogSample,
    ReleaseTexts,
    check_texts,
)
from medqade.scoring.intake.meta import family_of_model
from medqade.scoring.record import JsonDict

if TYPE_CHECKING:
    from medqade.dataset.release import Release


def log_rows(
    data: bytes, name: str, release: Release | None = None, limits: Limits = DEFAULT_LIMITS
) -> LogRows:
    """Every row of a submitted log (all epochs) with its header metadata (module docstring).

    The log is read under ``limits`` (:func:`read_log`), its task must be named in full
    (:data:`TASKS`), and with ``release`` the dataset it names and every sample's texts must
    be this release's (:func:`check_release`); samples are parsed one at a time."""
    header, archive = read_log(data, name, limits)
    return _log_rows(header, archive, name, release, limits)


def _log_rows(
    header: Any, archive: CheckedArchive, name: str, release: Release | None, limits: Limits
) -> LogRows:
    kind = task_kind(header, name)
    texts = None
    if release is not None:
        check_release(header, release, name)
        texts = ReleaseTexts.of(release)

    def checked() -> Iterator[LogSample]:
        for _member, sample in log_samples(archive, name, limits):
            if texts is not None:
                check_texts(kind, sample, texts, name)
            yield sample

    return rows_of_samples(kind, header, checked(), name)


def check_release(header: Any, release: Release, name: str) -> None:
    """Refuse a log whose header names a dataset that is not ``release``.

    The rule (``-T data``, the task argument Inspect records in ``eval.task_args``):

    - none named: the run read the embedded synthetic release, so the log is refused unless
      this release is synthetic too;
    - a Hub id (``ORG/NAME``, as ``-T data`` reads it when no such folder exists): this release
      must have been read from that Hub repo (case aside); a local build does not know its
      Hub id, so such a log is refused there (score it with ``--data ORG/NAME``, or rerun with
      ``-T data`` an absolute path);
    - a local path (absolute, or starting with ``.``): the submitter's build or raw folder,
      which cannot be compared by name: the samples' texts decide.

    In every case each sample's texts must be this release's
    (:func:`~medqade.scoring.intake.log_samples.check_texts`), and the record keeps what the log
    named (``meta.inspect.data``)."""
    named = (header.eval.task_args or {}).get("data")
    if named is None or str(named).strip() == "":
        if not release.synthetic:
            raise log_problem(
                name,
                "the log names no dataset (no -T data), so it ran on the embedded synthetic "
                "release, not on this one",
                "run the task on this release (-T data=<this release's Hub id or build "
                "folder>) and submit that log",
            )
        return
    text = str(named).strip()
    if not HUB_ID.match(text):
        return
    hub_id = release.hub_id
    if hub_id is not None and text.casefold() == hub_id.casefold():
        return
    this = f"this release ({hub_id})" if hub_id else "this release (a local build)"
    fix = (
        f"run the task with -T data={hub_id} and submit that log"
        if hub_id
        else f"score it against that dataset (--data {text[:120]}), or, if it names a local "
        "folder, rerun with -T data=<the folder's absolute path>"
    )
    raise InputError(
        name,
        [
            Problem(
                name,
                None,
                f"the log ran on dataset {text[:120]!r}, not on {this}",
                column="task_args.data",
                value=text[:120],
                fix=fix,
            )
        ],
    )


def _hub_text(
    header: Any,
    archive: CheckedArchive,
    task: str,
    name: str,
    release: Release,
    limits: Limits,
) -> str:
    """A Hub-task log's judge labels (:func:`~medqade.scoring.intake.hub_log.hub_log_text`), its
    repo and every sample checked against ``release`` first (module docstring of
    :mod:`medqade.scoring.intake.hub_log`)."""
    repo = hub_repo(task)
    if release.hub_id is not None and repo.casefold() != release.hub_id.casefold():
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"the log ran the Hub task of {repo[:120]!r}, not of this release "
                    f"({release.hub_id})",
                    column="task",
                    value=task[:120],
                    fix=f"run inspect eval hf/{release.hub_id} and submit that log",
                )
            ],
        )
    inputs = hub_inputs(release)

    def checked() -> Iterator[LogSample]:
        for _member, sample in log_samples(archive, name, limits):
            check_hub_sample(sample, inputs, name)
            yield sample

    model = str(header.eval.model).partition("/")[2] or str(header.eval.model)
    family = with_family({"model_id": model}, release).get("family")
    return hub_log_text(header, checked(), task, family if isinstance(family, str) else None)


HUB_ID: Final = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
"""A Hub repo id as ``-T data`` takes it (a path has more than one '/' or starts with one)."""


def _jsonl(meta: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str:
    lines = [json.dumps({"meta": dict(meta)}, ensure_ascii=False)]
    lines += [json.dumps(dict(r), ensure_ascii=False) for r in rows]
    return "\n".join(lines) + "\n"


def log_table_text(
    data: bytes, name: str, release: Release, limits: Limits = DEFAULT_LIMITS
) -> tuple[str, tuple[Problem, ...]]:
    """The JSON Lines text that is scored (the header and the rows: every epoch of a judge log,
    epoch 1 of an answer log) and the notes on the log: errored and invalid samples counted, as
    ``medqade judge`` reports them. The log is read by :func:`log_rows` against ``release``;
    a log of the Hub task (``inspect eval hf/ORG/NAME``) as its judge labels
    (:mod:`medqade.scoring.intake.hub_log`), read under the same bound."""
    header, archive = read_log(data, name, limits)
    task = task_name(header)
    if is_hub_task(task):
        return _hub_text(header, archive, task, name, release, limits), ()
    parsed = _log_rows(header, archive, name, release, limits)
    run = parsed.meta.get("inspect", {})
    notes = []
    errored, invalid = int(run.get("errored", 0)), int(run.get("invalid", 0))
    if errored or invalid:
        notes.append(
            Problem(
                name,
                None,
                f"the Inspect log has {errored} errored and {invalid} invalid of "
                f"{run.get('samples')} samples; their rows have no labels (or answer) and an "
                "error",
                fix="rerun the errored samples (inspect eval-retry LOG) and submit the new log",
            )
        )
    if int(run.get("epochs", 1)) > 1:
        notes.append(
            Problem(
                name,
                None,
                f"the log has {run['epochs']} epochs; epoch 1 is scored (a judge's other epochs "
                "are compared with it for self-consistency)",
                fix="nothing to do",
            )
        )
    # a judge log keeps every epoch (its ``run`` column: the lowest is scored, the others are
    # compared with it for self-consistency); answers are scored from epoch 1 only
    rows = parsed.rows if parsed.kind == "judge" else [r for r in parsed.rows if r.get("run") == 1]
    if not rows:
        epochs = sorted({int(r["run"]) for r in parsed.rows})
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"the answer log has no epoch-1 samples (its {len(parsed.rows)} samples are "
                    f"of epoch {', '.join(map(str, epochs))}); an answer log is scored from "
                    "epoch 1",
                    column="epoch",
                    value=", ".join(map(str, epochs)),
                    fix="submit the log of the run as `inspect eval medqade/answer` wrote it "
                    "(epoch 1 included), unchanged",
                )
            ],
        )
    text = _jsonl(with_family(parsed.meta, release), rows)
    return text, tuple(notes)


def with_family(meta: Mapping[str, Any], release: Release) -> JsonDict:
    """A log's header with the model's ``family`` when the roster tells it
    (:func:`~medqade.scoring.intake.meta.family_of_model`); a family the submitter gives wins."""
    out = dict(meta)
    models = [(m.id, m.family) for m in (*release.roster.students, *release.roster.evaluators)]
    family = family_of_model(str(out.get("model_id", "")), models)
    if family is not None and not out.get("family"):
        out["family"] = family
    return out


def grader_labels_text(
    data: bytes, name: str, release: Release, limits: Limits = DEFAULT_LIMITS
) -> str | None:
    """The ``grader`` role's labels of an answer log as a labels file (JSONL), or ``None``."""
    header, archive = read_log(data, name, limits)
    if is_hub_task(task_name(header)):
        return None
    parsed = _log_rows(header, archive, name, release, limits)
    if parsed.kind != "answers" or not parsed.grader_rows:
        return None
    return _jsonl({"model_id": parsed.grader}, parsed.grader_rows)


__all__ = ["grader_labels_text", "log_rows", "log_table_text"]
