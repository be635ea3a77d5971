"""An Inspect log (``.eval``) as a submission: the rows of ``medqade judge`` / ``medqade answer``.

``medqade score RUN.eval`` and the Space's Submit tab read a log of ``inspect eval medqade/judge``
or ``inspect eval medqade/answer`` through :func:`medqade.scoring.upload.read_upload`, which
calls :func:`log_table_text` here, and turned into JSON Lines text with a ``{"meta": {...}}``
header, so everything after it (checks, scoring, records) is the path of a JSONL submission.

Reading is bounded (:func:`read_log`): every member of the archive is first decompressed as a
stream and counted against :class:`~medqade.scoring.limits.Limits`
(:mod:`~medqade.scoring.log_archive`: a member may not unpack to more than it declares, nor
past its cap, nor the log past its total); only then does Inspect read the header
(``read_eval_log(header_only=True)``), and the samples are parsed one member at a time, so a
large log never sits parsed in memory whole.

A submitted log must be of this release (:func:`log_rows`): its task named in full
(:data:`TASKS`: ``medqade/judge`` or ``medqade/answer``), the dataset it names (``-T data``)
this release's by the rule of :func:`check_release`, and every sample's texts (question,
reference answer, the five answers) this release's for its question id
(:func:`~medqade.scoring.log_samples.check_texts`); the first mismatch is named.

Judge logs give one line per question and epoch::

    {"question_id", "order": [5 student ids], "resp_1".."resp_5", "difficulty", "run": EPOCH,
     "input_tokens", "output_tokens"}

(``run`` is the Inspect epoch, 1 for a single run; ``order`` the presentation order of that
epoch; the token counts are the sample's, when the provider reported them.) A judge log's
table keeps every epoch: epoch 1 is scored for agreement and later epochs (reshuffled orders)
are the runs of the self-consistency statistics (``behaviour.consistency``); an answer log's
table holds epoch 1. Answer logs give ``{"question_id", "answer"}`` and, when the run
had a ``grader`` model role, the grader's labels as :func:`grader_labels_text`. An errored or
unparseable sample keeps its row with null labels (or answer) plus ``error`` and is counted in
the header, as ``medqade judge`` writes its failures.

The header keeps ``model_id`` (the model as Inspect names it, without the provider), the
generation settings as ``decoding``, and ``inspect``: Inspect's version, the provider, the task,
the dataset the log named (``data``, when it named one), the run's date, the sample, error
and epoch counts and the token counts; the token totals are also ``usage``
(:mod:`medqade.measures.cost`).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from medqade.files.problems import InputError, Problem
from medqade.scoring.hub_log import (
    check_hub_sample,
    hub_inputs,
    hub_log_text,
    hub_repo,
    is_hub_task,
)
from medqade.scoring.limits import Limits
from medqade.scoring.log_archive import ArchiveCaps, CheckedArchive, check_archive, member_bytes
from medqade.scoring.log_samples import (
    LogSample,
    ReleaseTexts,
    check_texts,
    from_eval_sample,
    from_json,
)
from medqade.scoring.meta import family_of_model

if TYPE_CHECKING:
    from medqade.dataset.release import Release

__all__ = [
    "EVAL_SUFFIX",
    "TASKS",
    "ZIP_MAGIC",
    "LogRows",
    "error_text",
    "grader_labels_text",
    "is_eval_log",
    "log_rows",
    "log_table_text",
    "read_log",
    "rows_of_log",
]

EVAL_SUFFIX: Final = ".eval"
ZIP_MAGIC: Final = b"PK\x03\x04"
TASKS: Final = {"medqade/judge": "judge", "medqade/answer": "answers"}
"""The tasks a submitted log may be of, by the name Inspect records for the installed task
(``eval.task_registry_name``): the package's prefix is part of it, so ``other_pkg/judge`` and
a bare ``judge`` (the task run from a file) are refused."""
_SHORT_TASKS: Final = {"judge": "judge", "answer": "answers"}
_SAMPLE_NAME: Final = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")
_DEFAULT_LIMITS: Final = Limits()
_DECODING_KEYS: Final = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "reasoning_effort",
)
_RUN_FIX: Final = (
    "run `inspect eval medqade/judge` or `inspect eval medqade/answer` and submit its log"
)


@dataclass(frozen=True)
class LogRows:
    """A log's kind (``judge`` or ``answers``), header metadata and rows (all epochs)."""

    kind: str
    meta: Mapping[str, Any]
    rows: tuple[Mapping[str, Any], ...]
    grader_rows: tuple[Mapping[str, Any], ...] = ()
    grader: str = ""


def is_eval_log(data: bytes, name: str) -> bool:
    """Whether an upload is an Inspect ``.eval`` log (by name, and a ZIP inside)."""
    return name.lower().endswith(EVAL_SUFFIX) and data.startswith(ZIP_MAGIC)


def _problem(name: str, message: str, fix: str) -> InputError:
    return InputError(name, [Problem(name, None, message, fix=fix)])


def _short_kind(task: str, name: str) -> str:
    """The kind of a log just run by ``medqade judge`` / ``answer`` (its task unregistered)."""
    short = task.rsplit("/", 1)[-1]
    if short in _SHORT_TASKS:
        return _SHORT_TASKS[short]
    raise _problem(
        name, f"this Inspect log is of task {task!r}, not of {' or '.join(TASKS)}", _RUN_FIX
    )


def _task_name(log: Any) -> str:
    return str(getattr(log.eval, "task_registry_name", None) or log.eval.task)


def _task_kind(log: Any, name: str) -> str:
    """The kind of a submitted log: its task in full (:data:`TASKS`), else refused."""
    task = _task_name(log)
    if task in TASKS:
        return TASKS[task]
    hint = ""
    if task.rsplit("/", 1)[-1] in _SHORT_TASKS:
        hint = " (the name is the same after '/', but only the installed MedQADE tasks count)"
    raise _problem(
        name,
        f"this Inspect log is of task {task!r}, not of {' or '.join(TASKS)} or the Hub task "
        f"(hf/ORG/NAME){hint}",
        _RUN_FIX,
    )


def _scalars(values: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {
        k: values[k]
        for k in keys
        if isinstance(values.get(k), (str, int, float, bool)) and values.get(k) != ""
    }


def _caps(limits: Limits) -> ArchiveCaps:
    return ArchiveCaps(
        members=limits.max_log_members,
        header_bytes=limits.max_log_header_bytes,
        sample_bytes=limits.max_log_sample_bytes,
        other_bytes=limits.max_log_other_bytes,
        total_bytes=limits.max_log_unpacked_bytes,
    )


def read_log(
    data: bytes, name: str, limits: Limits = _DEFAULT_LIMITS
) -> tuple[Any, CheckedArchive]:
    """The log's header (Inspect's ``EvalLog`` without samples) and its checked archive, or
    :class:`InputError` saying why not. Every member is decompressed and counted under
    ``limits`` first (:func:`~medqade.scoring.log_archive.check_archive`); only then does
    Inspect read the header, whose members are bounded by then."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise _problem(
            name,
            "reading an Inspect log needs the inspect_ai package, which is not installed",
            "pip install 'medqade[inspect]', or submit the labels as JSONL",
        ) from None
    archive = check_archive(data, name, _caps(limits))
    try:
        header = read_eval_log(io.BytesIO(data), header_only=True, format="eval")
    except Exception as exc:  # Inspect raises many kinds for a damaged log
        raise _problem(
            name,
            f"not a readable Inspect log ({type(exc).__name__})",
            "submit the .eval file that `inspect eval` wrote, unchanged",
        ) from None
    return header, archive


_HTTP_ERROR: Final = re.compile(r"Error code: (\d{3})(?: - (.*))?")
_MESSAGE: Final = re.compile(r"""['"]message['"]: ['"]([^'"]*)['"]""")


def error_text(message: str, traceback: str = "") -> str:
    """A sample's error in the runner's words: ``HTTP 500: internal error``, ``timeout``,
    ``connection error: ...``, else ``error: `` and the first line of Inspect's message."""
    text = f"{message}\n{traceback}"
    found = _HTTP_ERROR.search(text)
    if found:
        detail = (found.group(2) or "").replace("\\'", "'").replace('\\"', '"')
        named = _MESSAGE.search(detail)
        detail = (named.group(1) if named else detail).strip().rstrip("')\\ ")[:300]
        return f"HTTP {found.group(1)}: {detail or 'no message'}"
    if "TimeoutError" in text or "APITimeoutError" in text:
        return "timeout"
    if "APIConnectionError" in text or "ConnectError" in text:
        return "connection error: the server could not be reached"
    lines = [line for line in message.splitlines() if line.strip()]
    return f"error: {(lines[0] if lines else 'unknown')[:300]}"


def _sample_order(info_name: str) -> tuple[int, str]:
    found = _SAMPLE_NAME.match(info_name)
    return (int(found.group(2)), found.group(1)) if found else (0, info_name)


def _log_samples(
    archive: CheckedArchive, name: str, limits: Limits
) -> Iterator[tuple[str, LogSample]]:
    """The samples of a checked archive, one parsed at a time (by epoch, then id, as Inspect
    sorts them), each with its member's name."""
    members = sorted(archive.sample_members(), key=lambda i: _sample_order(i.filename))
    for info in members:
        raw = member_bytes(archive, info, name, limits.max_log_sample_bytes)
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise _problem(
                name,
                f"member {info.filename!r} is not valid JSON ({type(exc).__name__})",
                "submit the .eval file that `inspect eval` wrote, unchanged",
            ) from None
        del raw
        yield info.filename, from_json(obj, info.filename, name)


def log_rows(
    data: bytes, name: str, release: Release | None = None, limits: Limits = _DEFAULT_LIMITS
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
    kind = _task_kind(header, name)
    texts = None
    if release is not None:
        check_release(header, release, name)
        texts = ReleaseTexts.of(release)

    def checked() -> Iterator[LogSample]:
        for _member, sample in _log_samples(archive, name, limits):
            if texts is not None:
                check_texts(kind, sample, texts, name)
            yield sample

    return _rows(kind, header, checked(), name)


def rows_of_log(log: Any, name: str) -> LogRows:
    """The rows of an ``EvalLog`` just returned by ``eval`` (``medqade judge`` / ``answer``,
    whose tasks are not registered: the name after '/' decides the kind)."""
    kind = _short_kind(str(log.eval.task), name)
    return _rows(kind, log, (from_eval_sample(s) for s in log.samples or []), name)


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
    (:func:`~medqade.scoring.log_samples.check_texts`), and the record keeps what the log
    named (``meta.inspect.data``)."""
    named = (header.eval.task_args or {}).get("data")
    if named is None or str(named).strip() == "":
        if not release.synthetic:
            raise _problem(
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
    """A Hub-task log's judge labels (:func:`~medqade.scoring.hub_log.hub_log_text`), its
    repo and every sample checked against ``release`` first (module docstring of
    :mod:`medqade.scoring.hub_log`)."""
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
        for _member, sample in _log_samples(archive, name, limits):
            check_hub_sample(sample, inputs, name)
            yield sample

    model = str(header.eval.model).partition("/")[2] or str(header.eval.model)
    family = with_family({"model_id": model}, release).get("family")
    return hub_log_text(header, checked(), task, family)


HUB_ID: Final = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
"""A Hub repo id as ``-T data`` takes it (a path has more than one '/' or starts with one)."""


def _labels(
    sample: LogSample, labels: Any, order: Any, name: str
) -> tuple[list[str], list[str | None] | None]:
    """The sample's order and labels, checked: the order a list of answer ids, the labels
    ``None`` or a list of the same length (label or null each)."""
    fix = "submit the .eval file that `inspect eval medqade/judge` wrote, unchanged"
    if not isinstance(order, list) or not order or not all(isinstance(o, str) for o in order):
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"{sample.where}: the order of the answers is not a list of model ids",
                    column="order",
                    value=json.dumps(order, ensure_ascii=False)[:80],
                    fix=fix,
                )
            ],
        )
    if labels is None:
        return order, None
    good = isinstance(labels, list) and len(labels) == len(order)
    if not good or not all(x is None or isinstance(x, str) for x in labels):
        shape = (
            f"a list of {len(labels)}"
            if isinstance(labels, list)
            else f"a JSON {type(labels).__name__.replace('dict', 'object')}"
        )
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"{sample.where}: the score's labels are {shape}, not a list of "
                    f"{len(order)} labels (one per answer of its order, null for none)",
                    column="labels",
                    value=json.dumps(labels, ensure_ascii=False)[:80],
                    fix=fix,
                )
            ],
        )
    return order, list(labels)


def _rows(kind: str, log: Any, samples: Iterable[LogSample], name: str) -> LogRows:
    rows: list[dict[str, Any]] = []
    graded: list[dict[str, Any]] = []
    n = errored = invalid = 0
    for sample in samples:
        n += 1
        score = sample.score
        meta: Mapping[str, Any] = (score["metadata"] or {}) if score is not None else {}
        qid = str(meta.get("question_id") or sample.metadata.get("question_id") or sample.id)
        error = None
        if sample.error is not None:
            errored += 1
            error = error_text(*sample.error)
        elif score is None:
            errored += 1
            error = "error: the sample has no score"
        explanation = str(score["explanation"] or "invalid output") if score else "invalid output"
        if kind == "judge":
            given = meta.get("order") or sample.metadata.get("order")
            labels: list[str | None] | None = None
            if error is None or isinstance(given, list):
                given, labels = _labels(
                    sample, meta.get("labels") if error is None else None, given, name
                )
            row: dict[str, Any] = {"question_id": qid, "order": given}
            for k in range(len(given) if isinstance(given, list) else 5):
                row[f"resp_{k + 1}"] = labels[k] if labels else None
            row["difficulty"] = meta.get("difficulty") if labels else None
            if error is None and labels is None:
                invalid += 1
                error = explanation
        else:
            answer = meta.get("answer") if error is None else None
            row = {"question_id": qid, "answer": answer}
            if error is None and answer is None:
                invalid += 1
                error = explanation
            if answer is not None and "label" in meta and sample.epoch == 1:
                graded.append({"question_id": qid, "label": meta["label"], "answer": answer})
        row["run"] = sample.epoch
        if sample.usage is not None:  # this sample's own tokens (the header has the run's totals)
            row["input_tokens"], row["output_tokens"] = sample.usage
        if error is not None:
            row["error"] = error
            raw = meta.get("raw")
            if isinstance(raw, str):
                row["raw"] = raw[:2000]
        rows.append(row)
    if not n:
        raise _problem(
            name,
            "the Inspect log holds no samples (a header-only or cancelled log)",
            "submit the log of a finished run",
        )
    roles = log.eval.model_roles or {}
    grader = str(roles["grader"].model) if "grader" in roles else ""
    header = _header(log, n, errored, invalid)
    return LogRows(kind, header, tuple(rows), tuple(graded), grader)


def _header(log: Any, n: int, errored: int, invalid: int) -> dict[str, Any]:
    model = str(log.eval.model)
    provider, _, model_id = model.partition("/")
    usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    for one in (log.stats.model_usage or {}).values():
        for key in usage:
            usage[key] += int(getattr(one, key, 0) or 0)
    config = log.eval.model_generate_config.model_dump(exclude_none=True)
    config.update(log.plan.config.model_dump(exclude_none=True) if log.plan else {})
    created = str(log.eval.created or "")
    inspect: dict[str, Any] = {
        "version": str(log.eval.packages.get("inspect_ai", "")),
        "provider": provider if model_id else "",
        "model": model,
        "task": str(getattr(log.eval, "task_registry_name", None) or log.eval.task),
        "run_date": created[:10],
        "created": created,
        "status": str(log.status),
        "samples": n,
        "errored": errored,
        "invalid": invalid,
        "epochs": int(log.eval.config.epochs or 1),
        **usage,
    }
    args = log.eval.task_args or {}
    inspect.update(_scalars(args, ("split", "seed", "response_format")))
    if isinstance(args.get("data"), str) and args["data"].strip():
        inspect["data"] = args["data"].strip()[:200]  # what the log named (check_release)
    meta: dict[str, Any] = {
        "model_id": model_id or model,
        "decoding": _scalars(config, _DECODING_KEYS),
        "inspect": {k: v for k, v in inspect.items() if v != ""},
    }
    if usage["input_tokens"] or usage["output_tokens"]:  # the run's totals, for the cost block
        meta["usage"] = {k: usage[k] for k in ("input_tokens", "output_tokens")}
    return {k: v for k, v in meta.items() if v}


def _jsonl(meta: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> str:
    lines = [json.dumps({"meta": dict(meta)}, ensure_ascii=False)]
    lines += [json.dumps(dict(r), ensure_ascii=False) for r in rows]
    return "\n".join(lines) + "\n"


def log_table_text(
    data: bytes, name: str, release: Release, limits: Limits = _DEFAULT_LIMITS
) -> tuple[str, tuple[Problem, ...]]:
    """The JSON Lines text that is scored (the header and the rows: every epoch of a judge log,
    epoch 1 of an answer log) and the notes on the log: errored and invalid samples counted, as
    ``medqade judge`` reports them. The log is read by :func:`log_rows` against ``release``;
    a log of the Hub task (``inspect eval hf/ORG/NAME``) as its judge labels
    (:mod:`medqade.scoring.hub_log`), read under the same bound."""
    header, archive = read_log(data, name, limits)
    task = _task_name(header)
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


def with_family(meta: Mapping[str, Any], release: Release) -> dict[str, Any]:
    """A log's header with the model's ``family`` when the roster tells it
    (:func:`~medqade.scoring.meta.family_of_model`); a family the submitter gives wins."""
    out = dict(meta)
    models = [(m.id, m.family) for m in (*release.roster.students, *release.roster.evaluators)]
    family = family_of_model(str(out.get("model_id", "")), models)
    if family is not None and not out.get("family"):
        out["family"] = family
    return out


def grader_labels_text(
    data: bytes, name: str, release: Release, limits: Limits = _DEFAULT_LIMITS
) -> str | None:
    """The ``grader`` role's labels of an answer log as a labels file (JSONL), or ``None``."""
    header, archive = read_log(data, name, limits)
    if is_hub_task(_task_name(header)):
        return None
    parsed = _log_rows(header, archive, name, release, limits)
    if parsed.kind != "answers" or not parsed.grader_rows:
        return None
    return _jsonl({"model_id": parsed.grader}, parsed.grader_rows)
