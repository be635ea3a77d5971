"""The shared walk over the rows of an uploaded table: cell checks and table-level notes.

:class:`Walker` turns one cell into a question index, a student slot, a label code or a checked
difficulty, logging a :class:`~medqade.files.problems.Problem` (file, line, column, value, fix) for
every cell it cannot use. The functions below it check a table's columns and summarise groups
of rows as one warning. Used by :mod:`~medqade.scoring.intake.judge_rows`,
:mod:`~medqade.scoring.intake.answer_rows` and :mod:`~medqade.scoring.intake.submission`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from medqade import vocab
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.scoring.intake.upload_cells import NOT_TEXT, RawTable, cell_text, looks_like_formula

if TYPE_CHECKING:
    from medqade.dataset.release import Release

IGNORED_COLUMNS: Final = frozenset(
    {
        "evaluator",
        "error",
        "raw",
        "canary",
        "split",
        "position",
        "run",
        "input_tokens",
        "output_tokens",
    }
)
"""Columns a walker never warns about: ``run`` is split off before the walk
(:mod:`~medqade.scoring.intake.submission`), ``position`` is read by the judge row format;
``input_tokens`` / ``output_tokens`` are per-sample token counts of an Inspect log's rows."""


class Walker:
    """Row-level helpers bound to one table, its release and one problem log."""

    def __init__(self, table: RawTable, release: Release, log: ProblemLog) -> None:
        self.t = table
        self.release = release
        self.log = log
        self.items = release.item_index
        self.example_id = str(release.item_ids[0]) if release.n_items else "?"
        slots: dict[str, int] = {}
        for s, m in enumerate(release.roster.students):
            slots[m.id.casefold()] = s
            slots[m.name.casefold()] = s
        self.slots = slots
        self.exact_slots = {m.id: s for s, m in enumerate(release.roster.students)}
        self.students = ", ".join(release.roster.student_ids)
        self._labels: dict[str, int | str] = {}
        self._difficulties: dict[str, str | None] = {}

    def error(self, line: int, column: str | None, message: str, value: Any, fix: str) -> None:
        shown = None if value is None else str(value)[:80]
        self.log.error(
            Problem(self.t.name, line, message, column, shown, fix, row_kind=self.t.row_kind)
        )

    def text(self, line: int, column: str, value: Any) -> str | None:
        v = cell_text(value)
        if v is NOT_TEXT:
            self.error(line, column, "expected text, got a list or object", value, "give text")
            return None
        return None if v is None else str(v)

    def item(self, line: int, column: str, value: Any) -> int | None:
        if type(value) is str:  # fast path: a known id as written
            hit = self.items.get(value)
            if hit is not None:
                return hit
        qid = self.text(line, column, value)
        if qid is None:
            if cell_text(value) is not NOT_TEXT:
                self.error(line, column, "empty question id", None, "fill in the question id")
            return None
        i = self.items.get(qid.strip())
        if i is None:
            fix = (
                f"use the question ids of this release ({self.release.n_items} items, "
                f"e.g. {self.example_id}); is the file for another release (--data)?"
            )
            if looks_like_formula(qid):
                fix = "remove the spreadsheet formula and write the plain question id"
            self.error(line, column, "unknown question id", qid, fix)
        return i

    def slot(self, line: int, column: str, value: Any) -> int | None:
        if type(value) is str:
            hit = self.exact_slots.get(value)
            if hit is not None:
                return hit
        model = self.text(line, column, value)
        if model is None:
            if cell_text(value) is not NOT_TEXT:
                self.error(line, column, "empty model", None, f"use one of {self.students}")
            return None
        s = self.slots.get(" ".join(model.split()).casefold())
        if s is None:
            self.error(
                line,
                column,
                "unknown model (the student whose answer is judged)",
                model,
                f"use one of the student ids {self.students}",
            )
        return s

    def label(self, line: int, column: str, value: Any) -> int | None:
        """Label code, ``MISSING_CODE`` for null/empty, ``None`` after an error."""
        if type(value) is str:
            known = self._labels.get(value)
            if type(known) is int:
                return known
        if isinstance(value, (bool, np.bool_)):
            return vocab.LABEL_CODES[vocab.parse_label(bool(value))]
        text = self.text(line, column, value)
        if text is None:
            return None if cell_text(value) is NOT_TEXT else vocab.MISSING_CODE
        hit = self._labels.get(text)
        if hit is None:
            try:
                hit = vocab.LABEL_CODES[vocab.parse_label(text)]
            except ValueError as exc:
                hit = str(exc)
            self._labels[text] = hit
        if isinstance(hit, str):
            fix = f"use {', '.join(vocab.LABELS)} (or correct / incorrect / abstain); "
            fix += "leave it empty for a missing label"
            self.error(line, column, "invalid label", text, fix)
            return None
        return hit

    def difficulty(self, line: int, column: str, value: Any) -> None:
        if type(value) is str and value in self._difficulties and not self._difficulties[value]:
            return
        text = self.text(line, column, value)
        if text is None or text in self._difficulties:
            if text is not None and self._difficulties[text] is not None:
                self.error(line, column, "invalid difficulty", text, str(self._difficulties[text]))
            return
        try:
            vocab.parse_difficulty(text)
            self._difficulties[text] = None
        except ValueError:
            fix = (
                f"use {', '.join(vocab.DIFFICULTIES)} (or easy / medium / hard), or leave it empty"
            )
            self._difficulties[text] = fix
            self.error(line, column, "invalid difficulty", text, fix)


def cells(frame: Any, column: str) -> list[Any]:
    """A column as a list of Python objects (``None`` each when the column is absent)."""
    if column not in frame.columns:
        return [None] * len(frame)
    values: list[Any] = frame[column].tolist()
    return values


def require(table: RawTable, required: Iterable[str], what: str, log: ProblemLog) -> bool:
    missing = [c for c in required if c not in table.frame.columns]
    if missing:
        log.error(
            Problem(
                table.name,
                None,
                f"missing required column(s) {', '.join(missing)} for {what}",
                value=", ".join(table.columns)[:200] or "(none)",
                fix=f"the header must name {', '.join(required)}",
            )
        )
        return False
    return True


def ignored(table: RawTable, used: Iterable[str], log: ProblemLog) -> None:
    extra = [c for c in table.columns if c not in set(used) and c not in IGNORED_COLUMNS]
    if extra:
        log.warn(
            Problem(
                table.name,
                None,
                f"column(s) ignored: {', '.join(extra)}",
                fix="remove them, or check their names",
            )
        )


def require_usable(
    name: str, table: RawTable, present: int, usable: int, what: str = "label"
) -> None:
    """Refuse a file whose rows hold not a single usable label (or answer): it would score
    as full coverage with every statistic null."""
    if usable or not present:
        return
    column = "answer" if what == "answer" else "label"
    if table.format != "csv" and any(c.startswith("resp_") for c in table.columns):
        column = "resp_1..resp_5"
    fix = (
        "fill in the answers (the short answer text per question), or check that the "
        "answer column was exported"
        if what == "answer"
        else "fill in the labels (Richtig, Falsch or Keine Angabe; correct, incorrect, "
        "abstain), or check that the label column was exported"
    )
    raise InputError(
        name,
        [
            Problem(
                name,
                None,
                f"not a single usable {what}: it is empty or null in every one of the "
                f"{len(table.frame):,} {table.row_kind}s, so there is nothing to score",
                column=column,
                value="(empty)",
                fix=fix,
            )
        ],
    )


def summarise(
    log: ProblemLog, table: RawTable, lines: list[int], message: str, fix: str | None = None
) -> None:
    """One warning for a group of rows: at the row itself when there is one, else with the
    count and the first few row numbers."""
    if len(lines) == 1:
        log.warn(Problem(table.name, lines[0], message, fix=fix, row_kind=table.row_kind))
    elif lines:
        shown = ", ".join(str(x) for x in lines[:10]) + (" ..." if len(lines) > 10 else "")
        where = f"{len(lines)} {table.row_kind}s: {shown}"
        log.warn(Problem(table.name, None, f"{message} ({where})", fix=fix))


def evaluators(table: RawTable, log: ProblemLog) -> None:
    if "evaluator" not in table.frame.columns:
        return
    names = sorted(
        {str(v) for v in table.frame["evaluator"] if cell_text(v) not in (None, NOT_TEXT)}
    )
    if len(names) > 1:
        shown = ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
        log.error(
            Problem(
                table.name,
                None,
                f"the file holds the labels of {len(names)} evaluators ({shown})",
                column="evaluator",
                fix="submit one evaluator per file (keep the rows of one 'evaluator')",
            )
        )
