"""The Hub's benchmark registration: the dataset's ``eval.yaml`` and a result's ``.eval_results``.

A dataset repo becomes a Hub *Benchmark* with an ``eval.yaml`` at its root; model repos then
carry their scores as ``.eval_results/*.yaml`` files, which the Hub shows on the model page and
gathers into the benchmark's leaderboard (Hub documentation "Evaluation Results",
https://huggingface.co/docs/hub/eval-results, source ``docs/hub/eval-results.md`` in
``huggingface/hub-docs``; the result format is specified in ``eval_results.yaml`` there).

``eval.yaml`` (written by the build)::

    name, description, evaluation_framework: inspect-ai
    tasks: [{id, config, split, field_spec, solvers, scorers}]

``evaluation_framework`` is ``inspect-ai``, an id on the Hub's list of frameworks (the Hub's
``packages/tasks/src/eval.ts`` in ``huggingface/huggingface.js``) and the one whose runs the Hub
can verify: the Hub runs ``inspect eval hf/ORG/NAME/<task id>``, and Inspect builds each task
from its entry alone (``inspect_ai/_eval/task/hf.py``: the ``field_spec`` columns of
``config``/``split``, and solvers and scorers from Inspect's closed list of built-ins). So a
Hub task's metric must be a built-in scorer's: the one task is :data:`JUDGE_TASK`,
``judge-accuracy``, over the ``judge_hub`` config (:mod:`medqade.dataset.hub_config`; one
two-choice question per resolved core answer, ``multiple_choice`` solver, ``choice`` scorer):
its value is the judge's *accuracy against the physician consensus on the resolved core
answers*. Kappa, the verdict against the physicians and a model's anchored accuracy are no
built-in scorer: they are MedQADE's own Inspect tasks (``inspect eval medqade/judge``,
``medqade/answer``) and the Space, not Hub tasks.

``.eval_results/<file>.yaml`` (offered by ``medqade score`` and the Space): a list with one
entry ``{dataset: {id, task_id, revision}, value, date, source: {url, name}, notes}``, where
``value`` is exactly the metric the task's Inspect run reports (for ``judge-accuracy``:
:func:`consensus_accuracy`, the share of the judge's labelled resolved core answers whose
label is the consensus; a judge's *Keine Angabe* or an unusable reply is wrong, as the
``choice`` scorer counts a reply without a letter), ``revision`` the dataset commit scored
(``--hub-revision``, else the snapshot the release was loaded from), ``date`` the run's date
when an Inspect log gives it (else the scoring time), ``source.url`` the record's own address
in the Space and ``notes`` a short note (the number of answers, the core kappa with its 95% CI
and the verdict, which live in the Space; everything else is in the record behind
``source.url``). The verdict in the note is the leaderboard's: a judge record scored at
another non-inferiority margin than the leaderboard's is refused (:func:`check_record_margin`),
never published with a verdict the leaderboard would not give. A model's answers record has no
Hub task and no entry. ``huggingface_hub.
parse_eval_result_entries`` reads it back (tested). The file starts with :data:`HEADER`, by
which :func:`write_eval_results` recognises a file it wrote and may replace; any other file is
left alone.

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

from medqade import vocab
from medqade.dataset import hub_config
from medqade.files import atomic, file_output

EVAL_YAML: Final = "eval.yaml"
EVALUATION_FRAMEWORK: Final = "inspect-ai"
"""The Hub's id of Inspect, which runs the tasks (``inspect eval hf/ORG/NAME``)."""
TASK_KEYS: Final = ("id", "config", "split", "field_spec", "solvers", "scorers")
"""The keys of an ``eval.yaml`` task that MedQADE writes (all in the Hub's specification and
in Inspect's ``HFTask``; ``field_spec``, ``solvers`` and ``scorers`` are required there)."""
HEADER: Final = "# MedQADE result for the Hub"
SPACE_URL: Final = "https://huggingface.co/spaces/{space_id}"
VALUE_DIGITS: Final = 4
PARTIAL_FLAG: Final = vocab.PARTIAL_COVERAGE
"""The flag of a record that does not cover the core: no verdict in the note."""


@dataclass(frozen=True)
class Task:
    """One Hub task of the benchmark: which result kind feeds it and how Inspect runs it."""

    id: str
    name: str
    kind: str
    config: str
    split: str
    field_spec: Mapping[str, Any]
    solvers: tuple[str, ...]
    scorers: tuple[str, ...]
    metric: str

    def entry(self) -> dict[str, Any]:
        """The task as ``eval.yaml`` lists it (:data:`TASK_KEYS`)."""
        return {
            "id": self.id,
            "config": self.config,
            "split": self.split,
            "field_spec": dict(self.field_spec),
            "solvers": [{"name": name} for name in self.solvers],
            "scorers": [{"name": name} for name in self.scorers],
        }


JUDGE_TASK: Final = Task(
    "judge-accuracy",
    "Judge: accuracy against the physician consensus on the resolved core answers (proportion)",
    "judge",
    hub_config.CONFIG,
    vocab.CORE,
    {
        "input": "input",
        "target": "target",
        "choices": "choices",
        "metadata": ["answer_id", "question_id", "model"],
    },
    ("multiple_choice",),
    ("choice",),
    "accuracy",
)
TASKS: Final = (JUDGE_TASK,)
"""The Hub tasks; kappa, the verdict and anchored accuracy are no built-in Inspect scorer and
are not among them (they are ``inspect eval medqade/judge`` / ``medqade/answer`` and the
Space)."""


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
    """The dataset's ``eval.yaml``: the Hub task(s) Inspect runs from it, pointing at the Space
    for what a built-in scorer cannot compute."""
    where = (
        f"Leaderboard, submissions, kappa and verdicts: {space_url(space_id)}."
        if space_id
        else "Leaderboard, submissions, kappa and verdicts: the MedQADE Space "
        "(`medqade space deploy`)."
    )
    description = (
        "MedQADE: German medical question answering with physician-labelled answers, for "
        "evaluating LLM judges against the physician consensus. Hub task `judge-accuracy` "
        "(`inspect eval hf/ORG/NAME/judge-accuracy`) asks for one answer at a time whether it "
        "is Richtig or Falsch and reports the accuracy against the physician consensus on the "
        "resolved core answers. Cohen's kappa, the verdict against the physicians and the "
        "models' anchored accuracy are not Hub tasks: run `inspect eval medqade/judge` or "
        "`medqade/answer` (pip install medqade) and score the log with `medqade score`. " + where
    )
    if synthetic:
        description = "SYNTHETIC release (simulated, not physician data). " + description
    data = {
        "name": "MedQADE" + (" (synthetic)" if synthetic else ""),
        "description": description,
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": [t.entry() for t in TASKS],
    }
    return _dump(data)


def _task(kind: str) -> Task:
    for task in TASKS:
        if task.kind == kind:
            return task
    raise ValueError(
        f"a {kind} result has no Hub task: its metric is no built-in Inspect scorer, so it "
        "lives in the Space only"
    )


def consensus_accuracy(record: Mapping[str, Any]) -> tuple[float, int]:
    """A judge record's accuracy against the physician consensus on the resolved core answers
    it labelled, and their number: what task ``judge-accuracy`` reports.

    From the record's core confusion table (judge label x consensus over the answers with a
    row): right are the ``Richtig``/``Richtig`` and ``Falsch``/``Falsch`` cells, the answers
    are every label's resolved cells (``Keine Angabe`` and a missing label are wrong, as
    Inspect's ``choice`` scorer counts a reply without a letter)."""
    table = (record.get("confusion") or {}).get("core") or {}
    resolved = (vocab.RICHTIG, vocab.FALSCH)
    n = sum(int((row or {}).get(c, 0)) for row in table.values() for c in resolved)
    if n == 0:
        raise ValueError(
            "the result labels no resolved core answer: the Hub task has no value for it"
        )
    right = sum(int((table.get(c) or {}).get(c, 0)) for c in resolved)
    return right / n, n


def headline(record: Mapping[str, Any]) -> tuple[float, tuple[float, float] | None, str]:
    """The value the Hub shows for ``record`` (its task's metric), no CI (the Inspect metric
    has none), and how to say what it is."""
    task = _task(str(record.get("kind")))
    value, n = consensus_accuracy(record)
    return value, None, f"{task.metric} vs physician consensus on {n} resolved core answers"


def check_record_margin(record: Mapping[str, Any], margin: float) -> None:
    """Refuse (``ValueError``) a judge record not scored at ``margin``, the leaderboard's.

    The entry's note carries the record's verdict, which depends on the margin it was scored
    at; a Hub entry is the benchmark's public claim, so it must say what the leaderboard says
    (a verdict at ``--margin 1`` would call constant labels non-inferior)."""
    if record.get("kind") != "judge":
        return
    scored = (record.get("settings") or {}).get("margin")
    if isinstance(scored, bool) or not isinstance(scored, (int, float)):
        raise ValueError(
            "the result records no non-inferiority margin: score it again for the Hub entry"
        )
    if abs(float(scored) - float(margin)) > 1e-12:
        raise ValueError(
            f"the result was scored at margin {scored:g}, the leaderboard's is {margin:g}: the "
            "Hub entry carries the leaderboard's verdict, so score it without --margin (or "
            f"--margin {margin:g}) for the Hub entry"
        )


def eval_results_entry(
    record: Mapping[str, Any],
    dataset_id: str,
    *,
    margin: float,
    revision: str | None = None,
    space_id: str | None = None,
) -> dict[str, Any]:
    """The one ``.eval_results`` entry for ``record`` as a YAML-ready dict; ``margin`` is the
    leaderboard's non-inferiority margin (:data:`medqade.measures.paired.DEFAULT_MARGIN`): a
    judge record scored at another is refused (:func:`check_record_margin`)."""
    check_record_margin(record, margin)
    task = _task(str(record.get("kind")))
    value, _, what = headline(record)
    r = VALUE_DIGITS
    note = what
    partial = PARTIAL_FLAG in (record.get("flags") or ())
    core = record.get("core") or {}
    kappa, ci = core.get("kappa"), core.get("kappa_ci")
    if isinstance(kappa, (int, float)) and not partial:
        note += f"; core kappa {kappa:.{r}f}"
        if ci and ci[0] is not None and ci[1] is not None:
            note += f" [{ci[0]:.{r}f}, {ci[1]:.{r}f}]"
    if record.get("verdict") and not partial:
        note += f"; verdict vs physicians: {record['verdict']}"
    if partial:
        note += "; partial coverage, not ranked, no verdict"
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
    margin: float,
    revision: str | None = None,
    space_id: str | None = None,
) -> str:
    """The ``.eval_results/*.yaml`` text for ``record`` (starts with :data:`HEADER`), at the
    leaderboard's ``margin`` (:func:`eval_results_entry`)."""
    entry = eval_results_entry(
        record, dataset_id, margin=margin, revision=revision, space_id=space_id
    )
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


def eval_results_output(inputs: Sequence[tuple[Path, str]] = ()) -> file_output.FileOutput:
    """The output policy of ``--eval-results``: new, or a file of ours (see
    :func:`is_eval_results`); never an input (``inputs``), a build or a raw release."""
    return file_output.FileOutput(
        kind=".eval_results entry",
        option="--eval-results",
        inputs=tuple(inputs),
        owned=is_eval_results,
        fix="choose another file name, or move the file away",
    )


def check_eval_results_target(path: Path, inputs: Sequence[tuple[Path, str]] = ()) -> Path:
    """``path`` if :func:`write_eval_results` may write it (:func:`eval_results_output`);
    anything else raises ``OutputRefused``."""
    file_output.check_file(path, eval_results_output(inputs))
    return Path(path)


def write_eval_results(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, after :func:`check_eval_results_target`."""
    atomic.write_text(check_eval_results_target(path), text)


__all__ = [
    "EVAL_YAML",
    "HEADER",
    "JUDGE_TASK",
    "PARTIAL_FLAG",
    "TASKS",
    "TASK_KEYS",
    "Task",
    "check_eval_results_target",
    "check_record_margin",
    "consensus_accuracy",
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
