"""One sample of an Inspect log, as scoring reads it, and the check that it asked this release.

:class:`LogSample` holds the fields a row is made of (id, epoch, input, target, metadata, the
first score, the error, the token counts), read either from Inspect's ``EvalSample`` (a log
just returned by ``eval``) or from a sample member's JSON (an upload, parsed one member at a
time: :mod:`medqade.scoring.intake.inspect_log`).

:func:`check_texts` refuses a sample that did not ask this release's question: a judge sample's
question, reference answer and five answers (``metadata``, which is what the judge's prompt is
built from, and each of them in the sample's input), an answer sample's question (its input)
and reference answer (its target) must equal the release's texts for that question id; the
first mismatch is named with the sample, the field and both values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

from medqade.files.problems import InputError, Problem

if TYPE_CHECKING:
    from medqade.dataset.release import Release

__all__ = ["LogSample", "ReleaseTexts", "check_texts", "from_eval_sample", "from_json"]

_FIX: Final = "submit the .eval file that `inspect eval` wrote, unchanged"
_EMPTY: Final[Mapping[str, Any]] = MappingProxyType({})


@dataclass(frozen=True)
class LogSample:
    """The fields of one sample that its row is made of."""

    id: str
    epoch: int
    input: str | None
    target: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    score: Mapping[str, Any] | None = None
    """The first score: ``{"explanation": ..., "metadata": {...}}``; ``None`` when unscored."""
    error: tuple[str, str] | None = None
    """The error's message and traceback, when the sample failed."""
    usage: tuple[int, int] | None = None
    """Input and output tokens, when the provider reported them."""
    choices: tuple[str, ...] = ()
    """The sample's answer options (a multiple-choice task: the Hub task), else empty."""
    answer: str | None = None
    """The first score's ``answer`` (the Hub task's ``choice`` scorer: the letter chosen)."""

    @property
    def where(self) -> str:
        return f"sample {self.id!r} (epoch {self.epoch})"


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    return None


def from_eval_sample(sample: Any) -> LogSample:
    """A :class:`LogSample` of Inspect's ``EvalSample``."""
    scores = sample.scores or {}
    first = next(iter(scores.values()), None)
    score = (
        None
        if first is None
        else {"explanation": first.explanation, "metadata": dict(first.metadata or {})}
    )
    error = None
    if sample.error is not None:
        error = (str(sample.error.message), str(sample.error.traceback or ""))
    usage = sample.output.usage if sample.output is not None else None
    tokens = None
    if usage is not None:
        tokens = (int(usage.input_tokens or 0), int(usage.output_tokens or 0))
    return LogSample(
        id=str(sample.id),
        epoch=int(sample.epoch),
        input=sample.input if isinstance(sample.input, str) else None,
        target=_text(sample.target) or "",
        metadata=dict(sample.metadata or {}),
        score=score,
        error=error,
        usage=tokens,
        choices=tuple(str(c) for c in (sample.choices or ())),
        answer=None if first is None or first.answer is None else str(first.answer),
    )


def _number(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def from_json(obj: Any, member: str, name: str) -> LogSample:
    """A :class:`LogSample` of a sample member's parsed JSON, or :class:`InputError` naming
    the member when it is not a sample as Inspect writes one."""
    if not isinstance(obj, dict) or "id" not in obj:
        raise InputError(
            name,
            [Problem(name, None, f"member {member!r} is not an Inspect sample", fix=_FIX)],
        )
    epoch = obj.get("epoch", 1)
    if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"member {member!r}: the epoch is {str(epoch)[:40]!r}, not a positive integer",
                    fix=_FIX,
                )
            ],
        )
    scores = obj.get("scores")
    first = next(iter(scores.values()), None) if isinstance(scores, dict) else None
    score = None
    if isinstance(first, dict):
        meta = first.get("metadata")
        score = {
            "explanation": first.get("explanation"),
            "metadata": meta if isinstance(meta, dict) else {},
        }
    error = None
    err = obj.get("error")
    if isinstance(err, dict):
        error = (str(err.get("message") or ""), str(err.get("traceback") or ""))
    elif err is not None:
        error = (str(err)[:300], "")
    output = obj.get("output")
    usage = output.get("usage") if isinstance(output, dict) else None
    tokens = None
    if isinstance(usage, dict):
        tokens = (_number(usage.get("input_tokens")), _number(usage.get("output_tokens")))
    metadata = obj.get("metadata")
    choices = obj.get("choices")
    answer = first.get("answer") if isinstance(first, dict) else None
    return LogSample(
        id=str(obj["id"]),
        epoch=epoch,
        input=obj["input"] if isinstance(obj.get("input"), str) else None,
        target=_text(obj.get("target")) or "",
        metadata=metadata if isinstance(metadata, dict) else {},
        score=score,
        error=error,
        usage=tokens,
        choices=tuple(str(c)[:200] for c in choices) if isinstance(choices, list) else (),
        answer=str(answer)[:200] if isinstance(answer, (str, int)) else None,
    )


@dataclass(frozen=True)
class ReleaseTexts:
    """Per question id: the question, the reference answer and each student's answer."""

    questions: Mapping[str, tuple[str, str]]
    answers: Mapping[str, Mapping[str, str | None]]
    students: tuple[str, ...]

    @classmethod
    def of(cls, release: Release) -> ReleaseTexts:
        q = release.questions
        questions = {
            str(i): (str(t), str(r))
            for i, t, r in zip(q["question_id"], q["question"], q["reference_answer"], strict=True)
        }
        answers: dict[str, dict[str, str | None]] = {i: {} for i in questions}
        a = release.answers
        for qid, model, text in zip(a["question_id"], a["model"], a["answer"], strict=True):
            answers.setdefault(str(qid), {})[str(model)] = None if pd.isna(text) else str(text)
        return cls(questions, answers, tuple(release.roster.student_ids))


def _mismatch(name: str, sample: LogSample, what: str, given: Any, expected: Any) -> InputError:
    shown = "(none)" if given is None else str(given)[:80]
    return InputError(
        name,
        [
            Problem(
                name,
                None,
                f"{sample.where}: its {what} is not this release's for this question "
                f"(this release has {str(expected)[:80]!r}); the log asked another dataset's "
                "texts",
                column=what,
                value=shown,
                fix="run the task on this release (-T data=<this release's build folder or Hub "
                "id>) and submit that log",
            )
        ],
    )


def check_texts(kind: str, sample: LogSample, texts: ReleaseTexts, name: str) -> None:
    """Refuse ``sample`` unless it asked this release's texts (module docstring)."""
    qid = str(sample.metadata.get("question_id") or sample.id)
    if qid not in texts.questions:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"{sample.where}: question id {qid!r} is not in this release",
                    column="question_id",
                    value=qid[:80],
                    fix="run the task on this release (-T data=...) and submit that log",
                )
            ],
        )
    question, reference = texts.questions[qid]
    if kind != "judge":
        if sample.input != question:
            raise _mismatch(name, sample, "question (the input)", sample.input, question)
        if sample.target != reference:
            raise _mismatch(name, sample, "reference answer (the target)", sample.target, reference)
        return
    meta = sample.metadata
    if meta.get("question") != question:
        raise _mismatch(name, sample, "question", meta.get("question"), question)
    if meta.get("reference") != reference:
        raise _mismatch(name, sample, "reference answer", meta.get("reference"), reference)
    given = meta.get("answers")
    given = given if isinstance(given, dict) else {}
    expected = texts.answers.get(qid, {})
    for student in texts.students:
        if student not in given or given[student] != expected.get(student):
            raise _mismatch(
                name, sample, f"answer of {student}", given.get(student), expected.get(student)
            )
    if set(given) != set(texts.students):
        extra = sorted(set(given) - set(texts.students))
        raise _mismatch(name, sample, "answers", f"extra answers of {extra}", texts.students)
    shown = sample.input or ""
    for what, text in (("question", question), ("reference answer", reference)):
        if text not in shown:
            raise _mismatch(name, sample, f"{what} in the input", shown, text)
    for student in texts.students:
        said = expected.get(student)
        if said is not None and said not in shown:
            raise _mismatch(name, sample, f"answer of {student} in the input", shown, said)
