"""A log of the Hub task (``inspect eval hf/ORG/NAME/judge-accuracy``) as judge labels.

The Hub task (:data:`medqade.dataset.hub_eval.JUDGE_TASK`) asks one two-choice question per
resolved answer; its samples carry the answer's ``answer_id`` in their metadata, its
``choice`` score the letter the model chose. :func:`hub_log_submission` turns such a log into
a judge submission in the row format (JSON Lines ``{"answer_id", "label"}`` after a
``{"meta": {...}}`` header): the chosen option's label, or an empty label when the reply named
no option (missing, so counted wrong by the Hub task's accuracy and as a disagreement in
kappa). ``medqade score`` scores it like any judge file, so a Hub run gets the same record,
kappa and verdict included, and its ``.eval_results`` value is the log's own accuracy
(:func:`medqade.dataset.hub_eval.consensus_accuracy`; tested equal).

A log of any other task is not this module's (:func:`hub_log_submission` returns ``None``):
``medqade/judge`` and ``medqade/answer`` logs are read by :mod:`medqade.scoring.inspect_log`.
"""

from __future__ import annotations

import json
from typing import Any, Final

from medqade.dataset.hub_eval import JUDGE_TASK
from medqade.scoring.inspect_log import is_eval_log, read_log

SUFFIX: Final = ".jsonl"


def is_hub_task(task: str) -> bool:
    """Whether an Inspect task name is the Hub task's: ``hf/ORG/NAME/judge-accuracy``, or
    ``hf/ORG/NAME`` (Inspect names the task as it was asked for when ``eval.yaml`` has one)."""
    parts = task.split("/")
    return parts[0] == "hf" and (len(parts) == 3 or parts[3:] == [JUDGE_TASK.id])


def _label(sample: Any) -> str | None:
    """The option the sample's ``choice`` score chose, ``None`` when it chose none."""
    score = (sample.scores or {}).get("choice")
    choices = list(sample.choices or [])
    letter = str(getattr(score, "answer", "") or "").strip().upper()
    if len(letter) != 1 or not choices:
        return None
    k = ord(letter) - ord("A")
    return str(choices[k]) if 0 <= k < len(choices) else None


def _meta(log: Any, n: int) -> dict[str, Any]:
    model = str(log.eval.model)
    provider, _, model_id = model.partition("/")
    created = str(log.eval.created or "")
    inspect = {
        "version": str(log.eval.packages.get("inspect_ai", "")),
        "provider": provider if model_id else "",
        "model": model,
        "task": str(log.eval.task),
        "run_date": created[:10],
        "created": created,
        "status": str(log.status),
        "samples": n,
    }
    return {
        "model_id": model_id or model,
        "inspect": {k: v for k, v in inspect.items() if v != ""},
    }


def log_submission(log: Any) -> str:
    """The JSON Lines judge submission of an ``EvalLog`` of the Hub task."""
    samples = list(log.samples or [])
    lines = [json.dumps({"meta": _meta(log, len(samples))}, ensure_ascii=False)]
    for sample in samples:
        meta = sample.metadata or {}
        row = {"answer_id": str(meta.get("answer_id", "")), "label": _label(sample)}
        lines.append(json.dumps(row, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def hub_log_submission(data: bytes, name: str) -> bytes | None:
    """The judge submission (JSON Lines bytes) of a Hub-task log, ``None`` for any other file."""
    if not is_eval_log(data, name):
        return None
    log = read_log(data, name)
    if not is_hub_task(str(log.eval.task)):
        return None
    return log_submission(log).encode("utf-8")


__all__ = ["SUFFIX", "hub_log_submission", "is_hub_task", "log_submission"]
