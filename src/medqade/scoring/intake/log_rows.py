"""The rows and header of a parsed Inspect log of ``medqade/judge`` or ``medqade/answer``.

Judge logs give one line per question and epoch::

    {"question_id", "order": [5 student ids], "resp_1".."resp_5", "difficulty", "run": EPOCH,
     "input_tokens", "output_tokens"}

(``run`` is the Inspect epoch, 1 for a single run; ``order`` the presentation order of that
epoch; the token counts are the sample's, when the provider reported them.) Answer logs give
``{"question_id", "answer"}`` and, when the run had a ``grader`` model role, the grader's
labels. An errored or unparseable sample keeps its row with null labels (or answer) plus
``error`` and is counted in the header, as ``medqade judge`` writes its failures; an
unparseable one's ``error`` starts with ``invalid`` (the scorer's explanation), which keeps it
apart from a failed request downstream (``output_shares`` of a judge record).

The header keeps ``model_id`` (the model as Inspect names it, without the provider), the
generation settings as ``decoding``, and ``inspect``: Inspect's version, the provider, the task,
the dataset the log named (``data``, when it named one), the run's date, the sample, error
and epoch counts and the token counts; the token totals are also ``usage``
(:mod:`medqade.measures.cost`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from medqade.files.problems import InputError, Problem
from medqade.scoring.intake.log_reader import log_problem, short_kind
from medqade.scoring.intake.log_samples import (
    LogSample,
    from_eval_sample,
)
from medqade.scoring.record import JsonDict

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


Scalar = str | int | float | bool


def _scalars(values: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {}
    for k in keys:
        value = values.get(k)
        if isinstance(value, (str, int, float, bool)) and value != "":
            out[k] = value
    return out


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


def rows_of_log(log: Any, name: str) -> LogRows:
    """The rows of an ``EvalLog`` just returned by ``eval`` (``medqade judge`` / ``answer``,
    whose tasks are not registered: the name after '/' decides the kind)."""
    kind = short_kind(str(log.eval.task), name)
    return rows_of_samples(kind, log, (from_eval_sample(s) for s in log.samples or []), name)


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


def rows_of_samples(kind: str, log: Any, samples: Iterable[LogSample], name: str) -> LogRows:
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
        if not explanation.lower().startswith("invalid"):  # a failed parse reads as one
            explanation = f"invalid: {explanation}"
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
        raise log_problem(
            name,
            "the Inspect log holds no samples (a header-only or cancelled log)",
            "submit the log of a finished run",
        )
    roles = log.eval.model_roles or {}
    grader = str(roles["grader"].model) if "grader" in roles else ""
    header = _header(log, n, errored, invalid)
    return LogRows(kind, header, tuple(rows), tuple(graded), grader)


def _header(log: Any, n: int, errored: int, invalid: int) -> JsonDict:
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


__all__ = ["LogRows", "error_text", "rows_of_log", "rows_of_samples"]
