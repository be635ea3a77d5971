"""The Hub's benchmark registration: the dataset's ``eval.yaml`` and a result's ``.eval_results``.

A dataset repo becomes a Hub *Benchmark* with an ``eval.yaml`` at its root; model repos then
carry their scores as ``.eval_results/*.yaml`` files, which the Hub shows on the model page and
gathers into the benchmark's leaderboard (Hub documentation "Evaluation Results",
https://huggingface.co/docs/hub/eval-results, source ``docs/hub/eval-results.md`` in
``huggingface/hub-docs``; the result format is specified in ``eval_results.yaml`` there).

``eval.yaml`` (written by the build)::

    name, description, evaluation_framework
    tasks: [{id, name, config, split}]          one task per track, both on the core split

``.eval_results/<file>.yaml`` (offered by ``medqade score`` and the Space): a list with one
entry ``{dataset: {id, task_id[, revision]}, value, date[, source: {url, name}], notes}``,
where ``value`` is the track's headline value (a judge's core kappa, a model's anchored core
accuracy, as proportions) and ``notes`` holds that value with its 95% CI, the verdict, the
record id and whether the release is synthetic. ``huggingface_hub.parse_eval_result_entries``
reads it back (tested). The file starts with :data:`HEADER`, by which
:func:`write_eval_results` recognises a file it wrote and may replace; any other file is left
alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from medqade import atomic

EVAL_YAML: Final = "eval.yaml"
EVALUATION_FRAMEWORK: Final = "medqade"
"""Our own harness (``medqade judge`` / ``answer`` / ``score``): the docs allow one's own id."""
HEADER: Final = "# MedQADE result for the Hub"
SPACE_URL: Final = "https://huggingface.co/spaces/{space_id}"
VALUE_DIGITS: Final = 4


@dataclass(frozen=True)
class Task:
    """One leaderboard of the benchmark: which result kind feeds it and how it is read."""

    id: str
    name: str
    kind: str
    config: str
    split: str


JUDGE_TASK: Final = Task(
    "judge_kappa_core",
    "Judge: Cohen's kappa with the physician consensus (core)",
    "judge",
    "answers",
    "core",
)
ANSWER_TASK: Final = Task(
    "answer_accuracy_core",
    "Model answers: anchored accuracy against physician labels (core, proportion)",
    "answers",
    "questions",
    "core",
)
TASKS: Final = (JUDGE_TASK, ANSWER_TASK)


def space_url(space_id: str) -> str:
    return SPACE_URL.format(space_id=space_id)


def _dump(data: object) -> str:
    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


def eval_yaml(*, synthetic: bool, space_id: str | None = None) -> str:
    """The dataset's ``eval.yaml``: the judge and the answer track, pointing at the Space."""
    where = (
        f"Leaderboard and submissions: {space_url(space_id)}."
        if space_id
        else "Leaderboard and submissions: the MedQADE Space (`medqade space deploy`)."
    )
    description = (
        "MedQADE: German medical question answering with physician-labelled answers, for "
        "evaluating LLM judges (agreement with the physician consensus) and the models that "
        "answer. Scores come from `medqade score`; the judge track reports Cohen's kappa on "
        "the core items, the answer track anchored accuracy on the core items. " + where
    )
    if synthetic:
        description = "SYNTHETIC release (simulated, not physician data). " + description
    data = {
        "name": "MedQADE" + (" (synthetic)" if synthetic else ""),
        "description": description,
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": [
            {"id": t.id, "name": t.name, "config": t.config, "split": t.split} for t in TASKS
        ],
    }
    return _dump(data)


def _task(kind: str) -> Task:
    for task in TASKS:
        if task.kind == kind:
            return task
    raise ValueError(f"no Hub task for result kind {kind!r}")


def headline(record: Mapping[str, Any]) -> tuple[float, tuple[float, float] | None, str]:
    """The value the Hub shows for ``record``, its 95% CI and how to say what it is."""
    kind = record.get("kind")
    if kind == "judge":
        block = record.get("core") or {}
        value, ci, what = block.get("kappa"), block.get("kappa_ci"), "core kappa"
        ci_kind = "bootstrap"
    elif kind == "answers":
        block = record.get("accuracy_core") or {}
        value, ci, what = block.get("anchored"), block.get("ci"), "anchored core accuracy"
        ci_kind = "Wilson"
    else:
        raise ValueError(f"result kind {kind!r}: expected judge or answers")
    if value is None:
        raise ValueError(
            f"the result has no {what} (no scorable core items): the Hub needs a value"
        )
    pair = None
    if ci and ci[0] is not None and ci[1] is not None:
        pair = (float(ci[0]), float(ci[1]))
    return float(value), pair, f"{what}, 95% {ci_kind} CI"


def eval_results_entry(
    record: Mapping[str, Any],
    dataset_id: str,
    *,
    revision: str | None = None,
    space_id: str | None = None,
) -> dict[str, Any]:
    """The one ``.eval_results`` entry for ``record`` as a YAML-ready dict."""
    task = _task(str(record.get("kind")))
    value, ci, what = headline(record)
    settings = record.get("settings") or {}
    r = VALUE_DIGITS
    parts = [f"{what}: {value:.{r}f}"]
    if ci is not None:
        parts[0] += f" [{ci[0]:.{r}f}, {ci[1]:.{r}f}]"
    if record.get("kind") == "judge":
        parts.append(
            f"{settings.get('resamples')} resamples, seed {settings.get('seed')}; "
            f"verdict vs physicians: {record.get('verdict') or 'n/a'}"
        )
    meta = record.get("meta") or {}
    dataset = record.get("dataset") or {}
    parts.append(
        f"MedQADE record {str(record.get('id', ''))[:16]}, scorer "
        f"{record.get('scorer_version')}, release {str(dataset.get('hash', ''))[:16]}"
    )
    parts.append("verified by the maintainers" if meta.get("verified") else "self-reported")
    if record.get("flags"):
        parts.append("flags: " + ", ".join(str(f) for f in record["flags"]))
    if dataset.get("synthetic"):
        parts.insert(0, "SYNTHETIC release (not physician data)")
    ds: dict[str, Any] = {"id": dataset_id, "task_id": task.id}
    if revision:
        ds["revision"] = revision
    entry: dict[str, Any] = {"dataset": ds, "value": round(value, r)}
    if record.get("timestamp"):
        entry["date"] = str(record["timestamp"])
    if space_id:
        entry["source"] = {"url": space_url(space_id), "name": "MedQADE leaderboard"}
    entry["notes"] = "; ".join(parts)
    return entry


def eval_results_yaml(
    record: Mapping[str, Any],
    dataset_id: str,
    *,
    revision: str | None = None,
    space_id: str | None = None,
) -> str:
    """The ``.eval_results/*.yaml`` text for ``record`` (starts with :data:`HEADER`)."""
    entry = eval_results_entry(record, dataset_id, revision=revision, space_id=space_id)
    head = (
        f"{HEADER} (medqade score): copy it into your model repo as "
        f".eval_results/{eval_results_name(record)}\n"
    )
    return head + _dump([entry])


def eval_results_name(record: Mapping[str, Any]) -> str:
    """A file name for the entry: the task and the record id, so results never collide."""
    return f"medqade_{_task(str(record.get('kind'))).id}_{str(record.get('id', ''))[:12]}.yaml"


def is_eval_results(path: Path) -> bool:
    """Whether ``path`` is an ``.eval_results`` entry medqade wrote (it starts with
    :data:`HEADER`)."""
    try:
        with Path(path).open("rb") as fh:
            return fh.read(len(HEADER.encode("utf-8"))) == HEADER.encode("utf-8")
    except OSError:
        return False


def eval_results_output(inputs: Sequence[tuple[Path, str]] = ()) -> atomic.FileOutput:
    """The output policy of ``--eval-results``: new, or a file of ours (see
    :func:`is_eval_results`); never an input (``inputs``), a build or a raw release."""
    return atomic.FileOutput(
        kind=".eval_results entry",
        option="--eval-results",
        inputs=tuple(inputs),
        owned=is_eval_results,
        fix="choose another file name, or move the file away",
    )


def check_eval_results_target(path: Path, inputs: Sequence[tuple[Path, str]] = ()) -> Path:
    """``path`` if :func:`write_eval_results` may write it (:func:`eval_results_output`);
    anything else raises ``OutputRefused``."""
    atomic.check_file(path, eval_results_output(inputs))
    return Path(path)


def write_eval_results(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, after :func:`check_eval_results_target`."""
    atomic.write_text(check_eval_results_target(path), text)


__all__ = [
    "ANSWER_TASK",
    "EVAL_YAML",
    "HEADER",
    "JUDGE_TASK",
    "TASKS",
    "Task",
    "check_eval_results_target",
    "eval_results_entry",
    "eval_results_name",
    "eval_results_output",
    "eval_results_yaml",
    "eval_yaml",
    "headline",
    "is_eval_results",
    "space_url",
    "write_eval_results",
]
