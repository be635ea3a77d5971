"""An Inspect log (``.eval``) as a submission: the rows of ``medqade judge`` / ``medqade answer``.

``medqade score RUN.eval`` and the Space's Submit tab read a log of ``inspect eval medqade/judge``
or ``inspect eval medqade/answer`` through :func:`medqade.scoring.upload.read_upload`, which
calls :func:`log_table_text` here: the log is read with Inspect's own log API
(``inspect_ai.log.read_eval_log``, imported on first use) and turned into JSON Lines text with a
``{"meta": {...}}`` header, so everything after it (checks, scoring, records) is the path of a
JSONL submission.

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
the run's date, the sample, error and epoch counts and the token counts; the token totals
are also ``usage`` (:mod:`medqade.measures.cost`).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from medqade.files.problems import InputError, Problem

EVAL_SUFFIX: Final = ".eval"
ZIP_MAGIC: Final = b"PK\x03\x04"
MAX_UNPACKED_BYTES: Final = 2_000_000_000
"""The most a log may unpack to (its members' declared sizes together): a full 3,800-set run
is about 18 MB packed and well under this; a ZIP bomb is refused before Inspect reads it."""
_JUDGE_TASKS: Final = ("judge",)
_ANSWER_TASKS: Final = ("answer",)
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


def _task_kind(task: str, name: str) -> str:
    short = task.rsplit("/", 1)[-1]
    if short in _JUDGE_TASKS:
        return "judge"
    if short in _ANSWER_TASKS:
        return "answers"
    raise _problem(
        name,
        f"this Inspect log is of task {task!r}, not of medqade/judge or medqade/answer",
        "run `inspect eval medqade/judge` or `inspect eval medqade/answer` and submit its log",
    )


def _scalars(values: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {
        k: values[k]
        for k in keys
        if isinstance(values.get(k), (str, int, float, bool)) and values.get(k) != ""
    }


def read_log(data: bytes, name: str) -> Any:
    """The ``EvalLog`` in ``data``, read by Inspect, or :class:`InputError` saying why not."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise _problem(
            name,
            "reading an Inspect log needs the inspect_ai package, which is not installed",
            "pip install 'medqade[inspect]', or submit the labels as JSONL",
        ) from None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(member.file_size for member in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        unpacked = 0  # not a ZIP: Inspect's reader says why below
    if unpacked > MAX_UNPACKED_BYTES:
        raise _problem(
            name,
            f"the log unpacks to {unpacked:,} bytes, more than the limit of {MAX_UNPACKED_BYTES:,}",
            "submit the .eval file that `inspect eval` wrote, unchanged, or split the run "
            "(inspect eval --limit)",
        )
    try:
        return read_eval_log(io.BytesIO(data), format="eval")
    except Exception as exc:  # Inspect raises many kinds for a damaged log
        raise _problem(
            name,
            f"not a readable Inspect log ({type(exc).__name__})",
            "submit the .eval file that `inspect eval` wrote, unchanged",
        ) from None


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


def _score(sample: Any) -> Any:
    scores = sample.scores or {}
    return next(iter(scores.values()), None)


def log_rows(data: bytes, name: str) -> LogRows:
    """Every row of the log (all epochs) with its header metadata (module docstring)."""
    return rows_of_log(read_log(data, name), name)


def rows_of_log(log: Any, name: str) -> LogRows:
    """:func:`log_rows` of an ``EvalLog`` already read (or just returned by ``eval``)."""
    kind = _task_kind(str(log.eval.task), name)
    samples = list(log.samples or [])
    if not samples:
        raise _problem(
            name,
            "the Inspect log holds no samples (a header-only or cancelled log)",
            "submit the log of a finished run",
        )
    rows: list[dict[str, Any]] = []
    graded: list[dict[str, Any]] = []
    errored = invalid = 0
    for sample in samples:
        score = _score(sample)
        meta: Mapping[str, Any] = (score.metadata or {}) if score is not None else {}
        qid = str(meta.get("question_id") or sample.metadata.get("question_id") or sample.id)
        error = None
        if sample.error is not None:
            errored += 1
            error = error_text(str(sample.error.message), str(sample.error.traceback or ""))
        elif score is None:
            errored += 1
            error = "error: the sample has no score"
        if kind == "judge":
            labels = meta.get("labels") if error is None else None
            order = meta.get("order") or sample.metadata.get("order")
            row: dict[str, Any] = {"question_id": qid, "order": order}
            n = len(order) if isinstance(order, list) else 5
            for key, label in zip(
                (f"resp_{k}" for k in range(1, n + 1)), labels or [None] * n, strict=True
            ):
                row[key] = label
            row["difficulty"] = meta.get("difficulty") if labels else None
            if error is None and labels is None:
                invalid += 1
                error = str(score.explanation or "invalid output") if score else "invalid output"
        else:
            answer = meta.get("answer") if error is None else None
            row = {"question_id": qid, "answer": answer}
            if error is None and answer is None:
                invalid += 1
                error = str(score.explanation or "invalid output") if score else "invalid output"
            if answer is not None and "label" in meta and sample.epoch == 1:
                graded.append({"question_id": qid, "label": meta["label"], "answer": answer})
        row["run"] = int(sample.epoch)
        usage = sample.output.usage if sample.output is not None else None
        if usage is not None:  # this sample's own tokens (the header has the run's totals)
            row["input_tokens"] = int(usage.input_tokens or 0)
            row["output_tokens"] = int(usage.output_tokens or 0)
        if error is not None:
            row["error"] = error
            raw = meta.get("raw")
            if isinstance(raw, str):
                row["raw"] = raw[:2000]
        rows.append(row)
    roles = log.eval.model_roles or {}
    grader = str(roles["grader"].model) if "grader" in roles else ""
    header = _header(log, len(samples), errored, invalid)
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
    inspect.update(_scalars(log.eval.task_args or {}, ("split", "seed", "response_format")))
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


def log_table_text(data: bytes, name: str) -> tuple[str, tuple[Problem, ...]]:
    """The JSON Lines text that is scored (the header and the rows: every epoch of a judge log,
    epoch 1 of an answer log) and the notes
    on the log: errored and invalid samples counted, as ``medqade judge`` reports them."""
    parsed = log_rows(data, name)
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
    text = _jsonl(parsed.meta, rows)
    return text, tuple(notes)


def grader_labels_text(data: bytes, name: str) -> str | None:
    """The ``grader`` role's labels of an answer log as a labels file (JSONL), or ``None``."""
    parsed = log_rows(data, name)
    if parsed.kind != "answers" or not parsed.grader_rows:
        return None
    return _jsonl({"model_id": parsed.grader}, parsed.grader_rows)
