"""A log of the Hub task (``inspect eval hf/ORG/NAME/judge-accuracy``) as judge labels.

The Hub task (:data:`medqade.dataset.hub_eval.JUDGE_TASK`) asks one two-choice question per
resolved answer; its samples carry the answer's ``answer_id`` in their metadata, its
``choice`` score the letter the model chose. :func:`hub_log_text` turns such a log into a
judge submission in the row format (JSON Lines ``{"answer_id", "label"}`` after a
``{"meta": {...}}`` header): the chosen option's label, or an empty label when the reply named
no option (missing, so counted wrong by the Hub task's accuracy and as a disagreement in
kappa). Both ``medqade score`` and the Space's Submit tab read it so
(:func:`medqade.scoring.intake.inspect_log.log_table_text` hands such a log here after reading it
under the same memory bound as every log), so a Hub run gets the same record, kappa and
verdict included, and its ``.eval_results`` value is the log's own accuracy
(:func:`medqade.dataset.hub_eval.consensus_accuracy`; tested equal).

A Hub log is scored only when it is of this release (:func:`check_hub_sample`): the Hub repo
its task names must be this release's when the release knows its Hub id (a local build does
not: then the texts decide), and every sample's ``input`` must be the ``judge_hub`` prompt of
its ``answer_id`` on this release (:func:`medqade.dataset.hub_config.judge_input`: the
question, the reference and the answer it asked about), its options ``Richtig``/``Falsch``.
The first sample that is not is refused, naming sample, field and both texts; the record keeps
the repo the task named (``meta.inspect.data``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from medqade.dataset.hub_config import CHOICES, judge_input
from medqade.dataset.hub_eval import JUDGE_TASK
from medqade.files.problems import InputError, Problem
from medqade.scoring.intake.log_samples import LogSample
from medqade.scoring.record import JsonDict

if TYPE_CHECKING:
    from medqade.dataset.release import Release

__all__ = [
    "SUFFIX",
    "check_hub_sample",
    "hub_inputs",
    "hub_label",
    "hub_log_text",
    "hub_repo",
    "is_hub_task",
]

SUFFIX: Final = ".jsonl"
_FIX: Final = (
    "run the Hub task on this release (inspect eval hf/<this release's Hub id>) and submit "
    "its .eval log unchanged"
)


def is_hub_task(task: str) -> bool:
    """Whether an Inspect task name is the Hub task's: ``hf/ORG/NAME/judge-accuracy``, or
    ``hf/ORG/NAME`` (Inspect names the task as it was asked for when ``eval.yaml`` has one)."""
    parts = task.split("/")
    return parts[0] == "hf" and (len(parts) == 3 or parts[3:] == [JUDGE_TASK.id])


def hub_repo(task: str) -> str:
    """The Hub repo (``ORG/NAME``) a Hub task's name runs on."""
    return "/".join(task.split("/")[1:3])


def hub_label(sample: LogSample) -> str | None:
    """The option the sample's ``choice`` score chose, ``None`` when it chose none."""
    letter = (sample.answer or "").strip().upper()
    if len(letter) != 1 or not sample.choices:
        return None
    k = ord(letter) - ord("A")
    return sample.choices[k] if 0 <= k < len(sample.choices) else None


def hub_inputs(release: Release) -> dict[str, str]:
    """Per ``answer_id``: the ``input`` the Hub task asks about it on ``release``."""
    q = release.questions
    text = dict(zip(q["question_id"], q["question"], strict=True))
    reference = dict(zip(q["question_id"], q["reference_answer"], strict=True))
    a = release.answers
    return {
        str(aid): judge_input(
            str(text[qid]), str(reference[qid]), None if pd.isna(ans) else str(ans)
        )
        for aid, qid, ans in zip(a["answer_id"], a["question_id"], a["answer"], strict=True)
    }


def _refuse(name: str, sample: LogSample, what: str, value: Any, fix: str = _FIX) -> InputError:
    shown = "(none)" if value is None else str(value)[:80]
    return InputError(
        name,
        [Problem(name, None, f"{sample.where}: {what}", column=what, value=shown, fix=fix)],
    )


def check_hub_sample(sample: LogSample, inputs: Mapping[str, str], name: str) -> None:
    """Refuse ``sample`` unless it asked this release's prompt for its answer (module
    docstring); ``inputs`` is :func:`hub_inputs` of the release."""
    aid = str(sample.metadata.get("answer_id") or "")
    if aid not in inputs:
        raise _refuse(name, sample, f"answer id {aid[:80]!r} is not in this release", aid)
    if tuple(sample.choices) != CHOICES:
        raise _refuse(name, sample, f"its options are not {list(CHOICES)}", sample.choices)
    if sample.input != inputs[aid]:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"{sample.where}: its input is not this release's prompt for answer "
                    f"{aid!r} (this release asks {inputs[aid][-120:]!r}); the log asked "
                    "another dataset's texts",
                    column="input",
                    value=str(sample.input)[-80:],
                    fix=_FIX,
                )
            ],
        )


def _meta(header: Any, n: int, task: str, family: str | None) -> JsonDict:
    model = str(header.eval.model)
    provider, _, model_id = model.partition("/")
    created = str(header.eval.created or "")
    inspect = {
        "version": str(header.eval.packages.get("inspect_ai", "")),
        "provider": provider if model_id else "",
        "model": model,
        "task": task,
        "data": hub_repo(task),
        "run_date": created[:10],
        "created": created,
        "status": str(header.status),
        "samples": n,
    }
    out: dict[str, Any] = {"model_id": model_id or model}
    if family:
        out["family"] = family
    out["inspect"] = {k: v for k, v in inspect.items() if v != ""}
    return out


def hub_log_text(
    header: Any, samples: Iterable[LogSample], task: str, family: str | None = None
) -> str:
    """The JSON Lines judge submission of a Hub-task log: its header (Inspect's ``EvalLog``
    read without samples) and its samples, already checked (:func:`check_hub_sample`);
    ``family`` the model's, when known."""
    rows = [
        json.dumps({"answer_id": str(s.metadata.get("answer_id", "")), "label": hub_label(s)})
        for s in samples
    ]
    meta = json.dumps({"meta": _meta(header, len(rows), task, family)}, ensure_ascii=False)
    return "\n".join([meta, *rows]) + "\n"
