"""Repeated runs of one judge (``behaviour.consistency``): a file's rows split by their ``run``
column (:func:`split_runs`), and several submissions of one judge joined (:func:`with_runs`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import numpy as np

from medqade.files.problems import Problem, ProblemLog
from medqade.scoring.intake.kinds import JUDGE
from medqade.scoring.intake.parsed import JudgeRun, Submission
from medqade.scoring.intake.upload_cells import LINE, NOT_TEXT, RawTable, cell_text

RUN_COLUMN: Final = "run"
MAX_RUN: Final = 1_000_000
"""The largest run (epoch) number a row may carry: far above any repeated run, and small
enough that a huge number in a hostile file is an error, never an overflow."""


def split_runs(table: RawTable, log: ProblemLog) -> list[tuple[str, RawTable]]:
    """The table's rows by their integer ``run`` (ascending), or the whole table as run "1"
    when there is no ``run`` column. A run that is not an integer from 0 to :data:`MAX_RUN` is
    an error."""
    if RUN_COLUMN not in table.frame.columns:
        return [("1", table)]
    numbers: list[int | None] = []
    for line, value in zip(table.frame[LINE], table.frame[RUN_COLUMN], strict=True):
        text = cell_text(value)
        number = None
        if isinstance(text, str):
            try:
                x = float(text.strip())
                number = int(x) if x.is_integer() and 0 <= x <= MAX_RUN else None
            except ValueError:
                number = None
        if number is None:
            listed = text is NOT_TEXT  # a list or object: show the cell, not the marker object
            log.error(
                Problem(
                    table.name,
                    int(line),
                    "invalid run: a list or object, not a number" if listed else "invalid run",
                    RUN_COLUMN,
                    None if text is None else str(value if listed else text)[:80],
                    "give every row the integer run (epoch) it comes from, e.g. 1 or 2 (at most "
                    f"{MAX_RUN:,})",
                    row_kind=table.row_kind,
                )
            )
        numbers.append(number)
    if any(n is None for n in numbers):
        return [("1", table)]
    keys = np.asarray(numbers, dtype=np.int64)
    out = []
    for run in np.unique(keys).tolist():
        part = table.frame[keys == run].reset_index(drop=True)
        out.append((str(run), replace(table, frame=part)))
    return out


def with_runs(first: Submission, others: tuple[Submission, ...]) -> Submission:
    """``first`` with the runs of ``others`` (judge submissions of the same judge, e.g.
    several files of reshuffled runs) appended for self-consistency; the labels scored for
    agreement stay those of ``first``."""
    if first.kind != JUDGE or any(o.kind != JUDGE for o in others):
        raise ValueError("runs can only be combined for judge submissions")
    runs = list(first.runs) or [as_run(first, "1")]
    for k, other in enumerate(others, start=2):
        runs.extend(other.runs or [as_run(other, str(k))])
    named = [replace(r, run=str(k)) for k, r in enumerate(runs, start=1)]
    return replace(first, runs=tuple(named) if len(named) > 1 else ())


def as_run(sub: Submission, run: str) -> JudgeRun:
    """The labels, rows and positions of ``sub`` as its run ``run`` (missing labels -1, unknown
    positions 0)."""
    labels = sub.labels if sub.labels is not None else np.full(sub.present.shape, -1, np.int8)
    positions = sub.positions if sub.positions is not None else np.zeros(sub.present.shape, np.int8)
    return JudgeRun(run, labels, sub.present, positions, sub.invalid)


__all__ = ["MAX_RUN", "RUN_COLUMN", "as_run", "split_runs", "with_runs"]
