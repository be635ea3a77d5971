"""A checked submission: :class:`Submission` (and one judge run, :class:`JudgeRun`), in the
release's item order with read-only arrays, as
:func:`medqade.scoring.intake.submission.parse_submission` gives it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade.files.problems import Problem
from medqade.scoring.record import JsonView, jsonable


@dataclass(frozen=True, kw_only=True)
class FileSummary(JsonView):
    """What a checked file is, as a dry run reports it (the Space's summary table,
    ``--validate-only --json``): ``ok`` is False where it has problems, which are then listed
    (as text) and the rest is ``None``. Read by field or, for readers of the JSON, by key."""

    ok: bool | None = None
    kind: str | None = None
    format: str | None = None
    rows: int | None = None
    scope: str | None = None
    coverage: Mapping[str, float | None] | None = None
    content_hash: str | None = None
    warnings: tuple[str, ...] | None = None
    problems: tuple[str, ...] | None = None

    @classmethod
    def refused(cls, kind: str | None, problems: tuple[str, ...]) -> FileSummary:
        """The summary of a file that could not be read: its problems, nothing else."""
        return cls.of(
            ok=False,
            kind=kind,
            format=None,
            rows=None,
            scope=None,
            coverage=None,
            content_hash=None,
            warnings=(),
            problems=problems,
        )


@dataclass(frozen=True, eq=False)
class JudgeRun:
    """One run of a judge: labels, rows, positions and invalid replies (items, 5), read-only
    (``invalid`` ``None``: the run's file cannot say which replies were unparseable)."""

    run: str
    labels: npt.NDArray[np.int8] = field(repr=False)
    present: npt.NDArray[np.bool_] = field(repr=False)
    positions: npt.NDArray[np.int8] = field(repr=False)
    invalid: npt.NDArray[np.bool_] | None = field(default=None, repr=False)


@dataclass(frozen=True, eq=False)
class Submission:
    """A checked submission in the release's item order (arrays are read-only).

    judge: ``labels`` (items, 5) label codes (-1 missing), ``present`` (items, 5) slots that
    have a row. answers: ``answers`` per item (``None``: no row or not answered), ``present``
    (items,) items that have a row, ``answer_labels`` (items,) a judge's codes for them (-1
    none). ``content_hash`` is the SHA-256 of the canonical content (the same labels in CSV
    or JSONL hash the same); ``scope`` is ``core``, ``full`` or ``partial``.
    """

    kind: str
    format: str
    filename: str
    content_hash: str
    n_rows: int
    scope: str
    coverage: Mapping[str, float]
    present: npt.NDArray[np.bool_] = field(repr=False)
    labels: npt.NDArray[np.int8] | None = field(default=None, repr=False)
    answers: tuple[str | None, ...] | None = field(default=None, repr=False)
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    warnings: tuple[Problem, ...] = ()
    answer_labels: npt.NDArray[np.int8] | None = field(default=None, repr=False)
    answer_labels_hash: str | None = None
    positions: npt.NDArray[np.int8] | None = field(default=None, repr=False)
    """judge: (items, 5) position 1-5 at which each answer was shown, 0 where unknown."""
    runs: tuple[JudgeRun, ...] = field(default=(), repr=False)
    """judge: every run when there are two or more (the first is ``labels``), else empty."""
    invalid: npt.NDArray[np.bool_] | None = field(default=None, repr=False)
    """judge: (items, 5) the answers whose reply could not be parsed into labels (a row
    without labels whose ``error`` starts with ``invalid``: an Inspect log's or ``medqade
    judge``'s failed parse); ``None`` when the file has no ``error`` column (a plain label
    file records no unparseable replies)."""

    def summary(self, *, checked: bool = False) -> FileSummary:
        """What this file is (for the Space and the dry runs; a NaN coverage as ``None``);
        ``checked``: as :func:`~medqade.scoring.intake.submission.validate_only` reports it,
        with ``ok`` first and no problems last."""
        coverage = {k: jsonable(v) for k, v in self.coverage.items()}
        fields = {
            "kind": self.kind,
            "format": self.format,
            "rows": self.n_rows,
            "scope": self.scope,
            "coverage": coverage,
            "content_hash": self.content_hash,
            "warnings": tuple(str(w) for w in self.warnings),
        }
        if checked:
            return FileSummary.of(ok=True, **fields, problems=())
        return FileSummary.of(**fields)


def readonly(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``a`` itself, made read-only (the arrays a :class:`Submission` holds)."""
    a.setflags(write=False)
    return a


__all__ = ["FileSummary", "JudgeRun", "Submission", "readonly"]
