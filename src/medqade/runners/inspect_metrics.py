"""The metrics of the MedQADE Inspect tasks: MedQADE's own, computed by :mod:`medqade.scoring`.

Each metric turns the epoch-1 scores of a run into the submission ``medqade judge`` or
``medqade answer`` would have written (:func:`judge_submission_text`,
:func:`answer_submission_text`), parses it with :func:`medqade.scoring.parse_submission` and
scores it with :func:`medqade.scoring.score` (default bootstrap seed), so the values in the
log are those of ``medqade score`` on the same labels, to the last digit. Inspect metrics are
numbers: the judge's verdict against physicians is reported as ``verdict_<word>`` = 1.

Every run states what it covered: ``covered_core`` and ``covered_all``, the share of the core's
and of all question sets (or questions) the run scored, as the record's ``submission.coverage``
holds them. A run that covers neither exactly the core nor every item (``--limit``, an
interrupted run) carries the record's :data:`~medqade.vocab.PARTIAL_COVERAGE` flag, set by the
same rule that keeps it off the Space's ranking (:mod:`medqade.scoring.metrics.records`): its
metrics say ``partial_coverage`` = 1 and give no verdict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric

from medqade.dataset.sources import open_release
from medqade.scoring import Settings, attach_labels, parse_submission, score
from medqade.vocab import PARTIAL_COVERAGE


def _first_epoch(scores: Sequence[SampleScore]) -> list[Mapping[str, Any]]:
    """The score metadata of each sample (Inspect reduces epochs to the first's metadata)."""
    return [s.score.metadata or {} for s in scores]


def judge_submission_text(metas: Sequence[Mapping[str, Any]]) -> str:
    """The per-question JSON Lines of ``medqade judge`` from judge-score metadata."""
    lines = []
    for m in metas:
        order = list(m.get("order") or [])
        labels = m.get("labels") or [None] * len(order)
        row: dict[str, Any] = {"question_id": m["question_id"], "order": order}
        row.update({f"resp_{k}": label for k, label in enumerate(labels, start=1)})
        row["difficulty"] = m.get("difficulty")
        lines.append(json.dumps(row, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def answer_submission_text(metas: Sequence[Mapping[str, Any]]) -> tuple[str, str | None]:
    """The JSON Lines of ``medqade answer`` and, when a grader labelled them, its labels."""
    answers = [{"question_id": m["question_id"], "answer": m.get("answer")} for m in metas]
    graded = [
        {"question_id": m["question_id"], "label": m["label"], "answer": m["answer"]}
        for m in metas
        if m.get("label") and m.get("answer")
    ]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in answers)
    labels = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in graded) or None
    return text, labels


def _flat(prefix: str, block: Mapping[str, Any] | None, keys: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    if not block:
        return out
    for key in keys:
        value = block.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[f"{prefix}{key}"] = float(value)
        ci = block.get(f"{key}_ci") if key != "anchored" else block.get("ci")
        if isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, float) for x in ci):
            out[f"{prefix}{key}_ci_low"], out[f"{prefix}{key}_ci_high"] = ci
    return out


def coverage_values(record: Mapping[str, Any]) -> dict[str, float]:
    """``covered_core`` and ``covered_all`` (the record's ``submission.coverage``), and
    ``partial_coverage`` = 1 when the record is flagged :data:`~medqade.vocab.PARTIAL_COVERAGE`."""
    coverage = (record.get("submission") or {}).get("coverage") or {}
    out = {
        f"covered_{key}": float(coverage[key])
        for key in ("core", "all")
        if isinstance(coverage.get(key), (int, float))
    }
    if is_partial(record):
        out[PARTIAL_COVERAGE] = 1.0
    return out


def is_partial(record: Mapping[str, Any]) -> bool:
    """Whether the record covers too little to be ranked or given a verdict."""
    return PARTIAL_COVERAGE in (record.get("flags") or ())


def judge_values(record: Mapping[str, Any]) -> dict[str, float]:
    """The numbers of a judge record that the log shows: kappa, PA, PABAK with CIs (core and
    all items), the difference to the physicians, what the run covered, and the verdict
    unless the run is partial (:func:`coverage_values`)."""
    out: dict[str, float] = coverage_values(record)
    for split in ("core", "full"):
        out.update(_flat(f"{split}_", record.get(split), ("kappa", "pa", "pabak")))
    diff = record.get("physician_difference")
    if diff:
        out.update(_flat("vs_physicians_", diff, (str(diff.get("primary", "kappa")),)))
    verdict = record.get("verdict")
    if isinstance(verdict, str) and not is_partial(record):
        out[f"verdict_{verdict.replace('-', '_').replace(' ', '_')}"] = 1.0
    return out


def answer_values(record: Mapping[str, Any]) -> dict[str, float]:
    """Anchored accuracy with CI and bounds (core and all), the judged estimate, and what the
    run covered (:func:`coverage_values`)."""
    out: dict[str, float] = coverage_values(record)
    for key, prefix in (("accuracy_core", "core_"), ("accuracy", "all_")):
        block = record.get(key)
        out.update(_flat(prefix, block, ("anchored", "lower", "upper", "coverage")))
        judged = (block or {}).get("judged")
        if judged:
            out.update(
                _flat(f"{prefix}judged_", {"estimate": judged.get("estimate")}, ("estimate",))
            )
    return out


@metric
def valid_share() -> Metric:
    """The share of samples with a usable reply (the rest are invalid, never labels)."""

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return 0.0
        return sum(float(s.score.as_float()) for s in scores) / len(scores)

    return compute


@metric
def judge_agreement(data: str | None = None, resamples: int = 1000) -> Metric:
    """MedQADE's judge metrics (:func:`judge_values`), as ``medqade score`` computes them."""

    def compute(scores: list[SampleScore]) -> Mapping[str, float | None]:
        metas = _first_epoch(scores)
        if not any(m.get("labels") for m in metas):
            return {}
        release = open_release(data)
        sub = parse_submission(
            judge_submission_text(metas).encode("utf-8"), "inspect.jsonl", release, "judge"
        )
        record = score(release, sub, settings=Settings(resamples=resamples)).to_json()
        return judge_values(record)

    return compute


@metric
def answer_accuracy(data: str | None = None, resamples: int = 1000) -> Metric:
    """Anchored accuracy with its bounds, and the judged estimate with a grader."""

    def compute(scores: list[SampleScore]) -> Mapping[str, float | None]:
        metas = _first_epoch(scores)
        if not any(m.get("answer") for m in metas):
            return {}
        release = open_release(data)
        text, labels = answer_submission_text(metas)
        sub = parse_submission(text.encode("utf-8"), "inspect.jsonl", release, "answers")
        if labels is not None:
            sub = attach_labels(sub, labels.encode("utf-8"), "grader.jsonl", release)
        record = score(release, sub, settings=Settings(resamples=resamples)).to_json()
        return answer_values(record)

    return compute
