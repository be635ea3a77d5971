"""The Hub's benchmark registration: the dataset's ``eval.yaml`` and a result's ``.eval_results``.

A dataset repo becomes a Hub *Benchmark* with an ``eval.yaml`` at its root; model repos then
carry their scores as ``.eval_results/*.yaml`` files, which the Hub shows on the model page and
gathers into the benchmark's leaderboard (Hub documentation "Evaluation Results",
https://huggingface.co/docs/hub/eval-results, source ``docs/hub/eval-results.md`` in
``huggingface/hub-docs``; the result format is specified in ``eval_results.yaml`` there).

``eval.yaml`` (written by the build)::

    name, description, evaluation_framework: inspect-ai
    tasks: [{id, config, split}]          one task per Inspect task, both on the core split

``evaluation_framework`` is ``inspect-ai``, an id on the Hub's list of frameworks (the Hub's
``packages/tasks/src/eval.ts`` in ``huggingface/huggingface.js``) and the one whose runs the Hub
can verify; each task's ``id`` is the Inspect task's name (``inspect eval medqade/judge``,
``medqade/answer``), and a task has only the keys the specification defines.

``.eval_results/<file>.yaml`` (offered by ``medqade score`` and the Space): a list with one
entry ``{dataset: {id, task_id, revision}, value, date, source: {url, name}, notes}``, where
``value`` is the track's headline value (a judge's core kappa, a model's anchored core
accuracy, as proportions), ``revision`` the dataset commit scored (``--hub-revision``, else the
snapshot the release was loaded from), ``date`` the run's date when an Inspect log gives it
(else the scoring time), ``source.url`` the record's own address in the Space and ``notes`` a
short note (the 95% CI and, for a judge, the verdict; everything else is in the record behind
``source.url``). ``huggingface_hub.parse_eval_result_entries`` reads it back (tested). The file
starts with :data:`HEADER`, by which :func:`write_eval_results` recognises a file it wrote and
may replace; any other file is left alone.

What the Hub's leaderboard can and cannot show: one value per model repo and task (the
headline value), sorted; no confidence interval, rank uncertainty or verdict (those are in the
Space, behind ``source.url``); a judge that is not a model repo on the Hub (a prompt, an
ensemble, a closed API) has nowhere to put its ``.eval_results`` file and appears only in the
Space; and the leaderboard's ``base_model`` filter groups fine-tunes with their base model only
when the model card declares ``base_model``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

import yaml

from medqade.files import atomic

EVAL_YAML: Final = "eval.yaml"
EVALUATION_FRAMEWORK: Final = "inspect-ai"
"""The Hub's id of Inspect, which runs the tasks (``inspect eval medqade/judge``)."""
TASK_KEYS: Final = ("id", "config", "split")
"""The keys of an ``eval.yaml`` task in the Hub's specification (only these are written)."""
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
    "judge",
    "Judge: Cohen's kappa with the physician consensus (core)",
    "judge",
    "answers",
    "core",
)
ANSWER_TASK: Final = Task(
    "answer",
    "Model answers: anchored accuracy against physician labels (core, proportion)",
    "answers",
    "questions",
    "core",
)
TASKS: Final = (JUDGE_TASK, ANSWER_TASK)


def space_url(space_id: str) -> str:
    return SPACE_URL.format(space_id=space_id)


def record_url(space_id: str, record_id: str, kind: str = "judge") -> str:
    """The record's own address in the Space: a judge's record opens the Compare tab with it
    against the physicians (``?tab=compare&a=<id>&b=physicians``, the link the leaderboard's
    "vs physicians" uses); a model's answers have no page of their own, so the Space itself."""
    if kind != "judge":
        return space_url(space_id)
    query = urlencode({"tab": "compare", "a": record_id, "b": "physicians"})
    return f"{space_url(space_id)}?{query}"


def run_date(record: Mapping[str, Any]) -> str | None:
    """The date of the run: an Inspect log's (``meta.inspect.run_date``), else the scoring
    time's (the record's ``timestamp``)."""
    run = (record.get("meta") or {}).get("inspect") or {}
    if isinstance(run, Mapping) and run.get("run_date"):
        return str(run["run_date"])
    stamp = record.get("timestamp")
    return str(stamp)[:10] if stamp else None


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
        "answer. Run it with Inspect (`inspect eval medqade/judge`, `inspect eval "
        "medqade/answer`) and score the log with `medqade score`; task `judge` reports Cohen's "
        "kappa with the physician consensus on the core items, task `answer` anchored accuracy "
        "on the core items. " + where
    )
    if synthetic:
        description = "SYNTHETIC release (simulated, not physician data). " + description
    data = {
        "name": "MedQADE" + (" (synthetic)" if synthetic else ""),
        "description": description,
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": [{"id": t.id, "config": t.config, "split": t.split} for t in TASKS],
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
    r = VALUE_DIGITS
    note = what
    if ci is not None:
        note += f" [{ci[0]:.{r}f}, {ci[1]:.{r}f}]"
    if record.get("kind") == "judge" and record.get("verdict"):
        note += f"; verdict vs physicians: {record['verdict']}"
    if "partial_coverage" in (record.get("flags") or ()):
        note += "; partial coverage, not ranked"
    if (record.get("dataset") or {}).get("synthetic"):
        note = "SYNTHETIC release; " + note
    ds: dict[str, Any] = {"id": dataset_id, "task_id": task.id}
    if revision:
        ds["revision"] = revision
    entry: dict[str, Any] = {"dataset": ds, "value": round(value, r)}
    date = run_date(record)
    if date:
        entry["date"] = date
    if space_id:
        record_id, kind = str(record.get("id", "")), str(record.get("kind", "judge"))
        url = record_url(space_id, record_id, kind) if record_id else None
        entry["source"] = {"url": url or space_url(space_id), "name": "MedQADE leaderboard"}
    entry["notes"] = note
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
    "TASK_KEYS",
    "Task",
    "check_eval_results_target",
    "eval_results_entry",
    "eval_results_name",
    "eval_results_output",
    "eval_results_yaml",
    "eval_yaml",
    "headline",
    "is_eval_results",
    "record_url",
    "run_date",
    "space_url",
    "write_eval_results",
]
