"""Verified means reproduced: the result of ``medqade verify`` (:class:`Verification`), where it
is kept beside the record, and the rule that a record is marked verified only with a passing one.

``medqade verify`` asks a judge again on a sample of the questions its record labelled
(:mod:`medqade.runners.verify`) and compares the new labels with the stored ones
(:mod:`medqade.measures.reproduction`). The result is one JSON object and the Inspect log of the
re-run, written into the record's results folder::

    verifications/<record id>-<seed>.json    the Verification (format "MedQADE verification")
    verifications/<record id>-<seed>.eval    the Inspect log of the re-run it was computed from

Both are written together and atomically, never over an existing file (a second verification
of the same record needs another seed), never into a build or a raw release, and never through
a link (:func:`write_verification`). The folder is part of the Hub mirror
(:data:`~medqade.scoring.policy.results_folder.MIRROR_PATTERNS`).

**The verified step.** A record's ``meta.verified`` is set by a maintainer (``medqade score
--verified``); :func:`medqade.scoring.policy.policy.submit` refuses it unless a verification
of the same content (the record's ``submission.content_hash``) passed (:func:`verified_refusal`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from medqade.files import atomic, file_output
from medqade.measures import REFERENCE_PA, Reproduction, reproduces
from medqade.scoring.policy.results_folder import (
    RECORDS,
    SAFE_ID,
    VERIFICATIONS,
    check_results_folder,
    outside,
)
from medqade.scoring.record import ScoreRecord

FORMAT: Final = "MedQADE verification"
VERSION: Final = 1
SELF_CONSISTENCY: Final = "self_consistency"
"""The reference is the record's own run-to-run PA (``behaviour.consistency.pa``)."""
BOUND: Final = "bound"
"""The reference is :data:`medqade.measures.REFERENCE_PA` (the record has no usable one)."""


def _number(value: Any) -> float | None:
    """``value`` as a finite float, else ``None`` (a NaN is written as JSON null)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _pair(value: Any) -> tuple[float | None, float | None]:
    pair = [*value, None, None][:2] if isinstance(value, list | tuple) else [None, None]
    return _number(pair[0]), _number(pair[1])


@dataclass(frozen=True, kw_only=True)
class Verification:
    """One re-run of a record's judge (module docstring). ``seed`` drew the sample and its
    resamples; ``questions`` were asked again (``question_ids``), ``answers`` compared, of them
    ``no_reply`` without a label; ``reference`` the PA it had to reach and where it came from
    (:data:`SELF_CONSISTENCY` or :data:`BOUND`); ``log`` the Inspect log's file name."""

    record_id: str
    content_hash: str
    data_hash: str | None
    model: str
    seed: int
    questions: int
    question_ids: tuple[str, ...]
    answers: int
    no_reply: int
    kappa: float | None
    kappa_ci: tuple[float | None, float | None]
    pa: float | None
    pa_ci: tuple[float | None, float | None]
    resamples: int
    reference: float
    reference_source: str
    passed: bool
    log: str | None

    def to_json(self) -> dict[str, Any]:
        """The JSON object written to ``verifications/`` (keys in this order)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "record_id": self.record_id,
            "content_hash": self.content_hash,
            "data_hash": self.data_hash,
            "model": self.model,
            "seed": self.seed,
            "questions": self.questions,
            "question_ids": list(self.question_ids),
            "answers": self.answers,
            "no_reply": self.no_reply,
            "kappa": self.kappa,
            "kappa_ci": list(self.kappa_ci),
            "pa": self.pa,
            "pa_ci": list(self.pa_ci),
            "resamples": self.resamples,
            "reference": {"pa": self.reference, "source": self.reference_source},
            "passed": self.passed,
            "log": self.log,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Verification:
        """Read a written verification; ``ValueError`` for anything else."""
        if not isinstance(obj, Mapping) or obj.get("format") != FORMAT:
            raise ValueError(f"not a verification written by medqade verify (no format {FORMAT!r})")
        reference = obj.get("reference")
        try:
            ref = reference if isinstance(reference, Mapping) else {}
            return cls(
                record_id=str(obj["record_id"]),
                content_hash=str(obj["content_hash"]),
                data_hash=None if obj.get("data_hash") is None else str(obj["data_hash"]),
                model=str(obj["model"]),
                seed=int(obj["seed"]),
                questions=int(obj["questions"]),
                question_ids=tuple(str(q) for q in obj["question_ids"]),
                answers=int(obj["answers"]),
                no_reply=int(obj["no_reply"]),
                kappa=_number(obj.get("kappa")),
                kappa_ci=_pair(obj.get("kappa_ci")),
                pa=_number(obj.get("pa")),
                pa_ci=_pair(obj.get("pa_ci")),
                resamples=int(obj["resamples"]),
                reference=float(ref["pa"]),
                reference_source=str(ref["source"]),
                passed=obj["passed"] is True,
                log=None if obj.get("log") is None else str(obj["log"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a verification without a usable {exc}") from None

    def line(self) -> str:
        """One line: the outcome, the PA with its interval against the reference, the sample."""
        word = "PASSED" if self.passed else "FAILED"
        low, high = (f"{v:.3f}" if v is not None else "n/a" for v in self.pa_ci)
        pa = "n/a" if self.pa is None else f"{self.pa:.3f}"
        kappa = "n/a" if self.kappa is None else f"{self.kappa:.3f}"
        where = "self-consistency" if self.reference_source == SELF_CONSISTENCY else "bound"
        return (
            f"verification {word}: PA {pa} (95% CI {low}-{high}), kappa {kappa}, against the "
            f"judge's run-to-run PA {self.reference:.3f} ({where}); {self.answers} answers of "
            f"{self.questions} questions, seed {self.seed}, {self.no_reply} without a reply"
        )


def reference_of(record: ScoreRecord) -> tuple[float, str]:
    """The run-to-run PA the re-run must reach: the record's self-consistency PA
    (``behaviour.consistency.pa``, present when it scored two runs whose agreement is
    informative), else :data:`~medqade.measures.REFERENCE_PA`."""
    behaviour = record.behaviour if isinstance(record.behaviour, Mapping) else {}
    found = behaviour.get("consistency")
    if isinstance(found, Mapping) and not found.get("not_informative"):
        pa = _number(found.get("pa"))
        if pa is not None:
            return pa, SELF_CONSISTENCY
    return REFERENCE_PA, BOUND


def verification_of(
    record: ScoreRecord,
    found: Reproduction,
    *,
    model: str,
    seed: int,
    question_ids: Sequence[str],
    resamples: int,
    log: str | None,
) -> Verification:
    """The :class:`Verification` of ``record`` from the re-run's agreement ``found``."""
    sub = record.submission
    if sub is None or not sub.content_hash or not record.id:
        raise ValueError("the record has no id or content hash: it is not a scored record")
    reference, source = reference_of(record)
    return Verification(
        record_id=str(record.id),
        content_hash=str(sub.content_hash),
        data_hash=None if record.dataset is None else record.dataset.hash,
        model=model,
        seed=seed,
        questions=len(question_ids),
        question_ids=tuple(question_ids),
        answers=found.n,
        no_reply=found.no_reply,
        kappa=_number(found.kappa.value),
        kappa_ci=(_number(found.kappa.low), _number(found.kappa.high)),
        pa=_number(found.pa.value),
        pa_ci=(_number(found.pa.low), _number(found.pa.high)),
        resamples=resamples,
        reference=reference,
        reference_source=source,
        passed=reproduces(found.pa, reference),
        log=log,
    )


def results_folder_of(record_path: Path) -> Path | None:
    """The results folder a record file lies in (``<folder>/records/<id>.json``), else
    ``None``."""
    path = Path(record_path)
    return path.parent.parent if path.parent.name == RECORDS else None


def verification_targets(folder: Path, record_id: str, seed: int) -> tuple[Path, Path]:
    """The verification's JSON file and its log in ``folder/verifications/``."""
    if not SAFE_ID.match(record_id):
        raise ValueError(f"record id {record_id!r} cannot be a file name")
    stem = Path(folder) / VERIFICATIONS / f"{record_id}-{seed}"
    return stem.with_suffix(".json"), stem.with_suffix(".eval")


def check_targets(
    folder: Path, record_id: str, seed: int, inputs: Sequence[tuple[Path, str]] = ()
) -> tuple[Path, Path]:
    """:func:`verification_targets`, refused (``ValueError``, one line) when ``folder`` is or
    lies inside a build or a raw release, its ``verifications/`` is a link, a target exists
    (never replaced: verify again with another seed) or is an input (``inputs``)."""
    check_results_folder(folder, "medqade verify")
    if outside(Path(folder), Path(folder) / VERIFICATIONS):
        raise atomic.OutputRefused(
            f"{Path(folder) / VERIFICATIONS} is a link or lies outside {folder}; a verification "
            "is written only inside the folder: replace the link with a folder"
        )
    found = verification_targets(folder, record_id, seed)
    for path in found:
        output = file_output.FileOutput(
            kind="verification",
            inputs=tuple(inputs),
            fix="a verification is never replaced: verify again with another --seed",
        )
        file_output.check_file(path, output)
    return found


def write_verification(
    folder: Path,
    verification: Verification,
    log: bytes,
    inputs: Sequence[tuple[Path, str]] = (),
) -> Path:
    """Write ``verification`` and its Inspect log ``log`` into ``folder/verifications/``,
    together and atomically, under the rules of :func:`check_targets`; return the JSON file."""
    data, log_path = check_targets(folder, verification.record_id, verification.seed, inputs)
    text = json.dumps(verification.to_json(), ensure_ascii=False, indent=1) + "\n"
    atomic.write_files(
        [
            atomic.Planned(data, text.encode("utf-8")),
            atomic.Planned(log_path, log),
        ]
    )
    return data


def read_verification(path: Path) -> Verification:
    """The verification in ``path`` (``ValueError`` naming the file otherwise)."""
    try:
        obj = json.loads(Path(path).read_text(encoding="utf-8"))
        return Verification.from_json(obj)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def stored_verifications(folder: Path, content_hash: str) -> list[Verification]:
    """The verifications in ``folder/verifications/`` of labels with ``content_hash``, passing
    ones first (unreadable files and links skipped)."""
    where = Path(folder) / VERIFICATIONS
    if outside(Path(folder), where) or not where.is_dir():
        return []
    found = []
    for path in sorted(where.glob("*.json")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            v = read_verification(path)
        except ValueError:
            continue
        if v.content_hash == content_hash:
            found.append(v)
    return sorted(found, key=lambda v: not v.passed)


def verified_refusal(verification: Verification | None, content_hash: str) -> str | None:
    """Why a record of the labels with ``content_hash`` may not be marked verified with
    ``verification``, or ``None`` when it may: it passed and was made from these labels."""
    fix = "run medqade verify on the record first and give its verification (--verification)"
    if verification is None:
        return f"a record is marked verified only when its labels were reproduced; {fix}"
    if verification.content_hash != content_hash:
        return (
            f"the verification (record {verification.record_id[:16]}) was made from other "
            f"labels (content hash {verification.content_hash[:16]}..., this file's is "
            f"{content_hash[:16]}...); {fix}"
        )
    if not verification.passed:
        return (
            f"the labels were not reproduced ({verification.line()}), so the record cannot be "
            "marked verified"
        )
    return None


__all__ = [
    "BOUND",
    "FORMAT",
    "SELF_CONSISTENCY",
    "Verification",
    "check_targets",
    "read_verification",
    "reference_of",
    "results_folder_of",
    "stored_verifications",
    "verification_of",
    "verification_targets",
    "verified_refusal",
    "write_verification",
]
