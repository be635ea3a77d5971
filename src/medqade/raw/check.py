"""The checks every raw table shares: the tables' columns, ISO 8601 dates, and
:class:`Checker`, which records each problem with file, line and value. The answer and judgment
checks built on it, which the benchmark and the pool both run: :mod:`medqade.raw.table_checks`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from pathlib import Path

import pandas as pd

from medqade.files.problems import Problem, ProblemLog
from medqade.files.tables import LINE, STORED_TYPES, row_kind

REQUIRED: dict[str, tuple[str, ...]] = {
    "questions": ("question_id", "split", "question", "reference_answer"),
    "answers": ("question_id", "model", "answer"),
    "ratings": ("question_id", "rater", "model", "label", "round"),
    "difficulty": ("question_id", "rater", "difficulty"),
    "judgments": ("evaluator", "question_id", "order", *(f"resp_{k}" for k in range(1, 6))),
}


OPTIONAL_TABLES = ("judgments",)


OPTIONAL: dict[str, tuple[str, ...]] = {
    "questions": ("lexical_match",),
    "ratings": ("rated_at",),
    "judgments": ("difficulty",),
}
"""Columns a table may carry besides the required ones (``questions`` also takes extras)."""


ISO_DATE = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$"
)
"""An ISO 8601 calendar date or date-time in extended format (``2025-04-02T14:30:00Z``): the
form a ``rated_at`` is published in (:func:`iso_moment` reads the others ISO 8601 allows)."""

_ISO_MOMENT = re.compile(
    r"^(?P<date>\d{4}(?:-\d{2}-\d{2}|\d{4}|-W\d{2}-\d|W\d{3}|-\d{3}|\d{3}))"
    r"(?:[T ](?P<time>\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?"
    r"(?:Z|[+-]\d{2}(?::?\d{2})?)?))?$"
)
ISO_FORMS = (
    "an ISO 8601 date: calendar 2025-04-02 (or 20250402), week 2025-W14-3 (or 2025W143) or "
    "ordinal 2025-092 (or 2025092), optionally with a time after T (2025-04-02T14:30, "
    "2025-04-02T14:30:00Z, 2025-W14-3T14:30:00+02:00)"
)
"""The ``rated_at`` forms :func:`iso_moment` accepts, for messages."""


def iso_moment(text: str) -> tuple[datetime, str] | None:
    """An ISO 8601 date or date-time (:data:`ISO_FORMS`) as a datetime (midnight for a date;
    no zone when none is given) and its extended calendar spelling (the text itself when it
    already is one), or ``None`` for anything else: a month or a week without a day, a time
    without a date, ``today``."""
    match = _ISO_MOMENT.match(text.strip())
    if match is None:
        return None
    raw_date, raw_time = match.group("date"), match.group("time")
    digits = raw_date.replace("-", "")
    try:
        if "W" in digits:
            year, week, day = int(digits[:4]), int(digits[5:7]), int(digits[7])
            day_of = date.fromisocalendar(year, week, day)
        elif len(digits) == 7:  # ordinal: the day of the year
            year, number = int(digits[:4]), int(digits[4:])
            day_of = date(year, 1, 1) + timedelta(days=number - 1)
            if number < 1 or day_of.year != year:
                return None
        else:
            day_of = date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
        moment = datetime.fromisoformat(f"{day_of.isoformat()}T{raw_time or '00:00'}")
    except (ValueError, OverflowError):
        return None
    if ISO_DATE.match(text.strip()):
        return moment, text.strip()
    return moment, moment.isoformat() if raw_time else day_of.isoformat()


ID_COLUMNS = ("question_id", "model", "rater", "evaluator")
"""Columns whose values name rows of other tables: a number stored there is refused."""


LIST_COLUMNS: dict[str, tuple[str, ...]] = {"judgments": ("order",)}
"""Columns whose cells may be lists (JSONL, Parquet); every other cell must be text."""


class Checker:
    """Per-table validation helpers that record problems with file and line."""

    def __init__(self, log: ProblemLog, path: Path, frame: pd.DataFrame) -> None:
        self.log = log
        self.name = path.name
        self.kind = row_kind(path)
        self.frame = frame

    def problem(
        self,
        line: int | None,
        message: str,
        column: str | None = None,
        value: object = None,
        fix: str | None = None,
        *,
        warn: bool = False,
    ) -> None:
        p = Problem(
            self.name, line, message, column, None if value is None else str(value), fix, self.kind
        )
        (self.log.warn if warn else self.log.error)(p)

    def require_columns(self, columns: Iterable[str]) -> bool:
        missing = [c for c in columns if c not in self.frame.columns]
        if missing:
            self.problem(
                None,
                f"missing required column(s) {', '.join(missing)}",
                fix=f"the header must contain {', '.join(columns)}",
            )
        return not missing

    def check_cells(self, list_columns: Iterable[str] = ()) -> None:
        """Every cell must be text (lists only in ``list_columns``) without NUL characters and
        encodable as UTF-8; anything else is a problem naming line, column and value."""
        lists = set(list_columns)
        stored = self.frame.attrs.get(STORED_TYPES, {})
        for column in ID_COLUMNS:
            if column in stored:
                self.problem(
                    None,
                    f"the ids are stored as {stored[column]}, not as text, so they cannot match "
                    "the ids of the other tables",
                    column,
                    fix="store the column as text (string) in the Parquet file, e.g. "
                    "frame[column].astype(str) before to_parquet, with the ids as written in "
                    "the questions table",
                )
        for column in self.frame.columns:
            if column == LINE:
                continue
            cells = self.frame[column]
            if _clean_text(cells):  # fast path for the common case (large pool tables)
                continue
            is_text = cells.map(lambda v: isinstance(v, str)).astype(bool)
            allowed = is_text | (
                cells.map(lambda v: isinstance(v, list)).astype(bool) if column in lists else False
            )
            for line, value in self.frame.loc[~allowed, [LINE, column]].itertuples(index=False):
                self.problem(
                    line,
                    f"expected text, got {_kind_of(value)}",
                    column,
                    _shown(value),
                    "store plain text in this column"
                    + (" (or a list of the five student ids)" if column in lists else ""),
                )
            text = cells[is_text]
            nul = text.str.contains("\x00", regex=False)
            for line, value in self.frame.loc[nul[nul].index, [LINE, column]].itertuples(
                index=False
            ):
                self.problem(
                    line,
                    "the text contains a NUL character (\\0)",
                    column,
                    _shown(value),
                    "remove the NUL character; it is not allowed in the dataset",
                )
            bad = text.map(_not_unicode).astype(bool)
            for line, value in self.frame.loc[bad[bad].index, [LINE, column]].itertuples(
                index=False
            ):
                self.problem(
                    line,
                    "the text is not valid Unicode (a lone surrogate)",
                    column,
                    _shown(value),
                    "write the characters themselves, not \\ud800-style escapes",
                )

    def check_unknown_columns(self, known: Iterable[str]) -> None:
        """A column the build would not publish is a problem (never silently dropped)."""
        known = set(known)
        for column in self.frame.columns:
            if column == LINE or column in known:
                continue
            filled = self.frame.loc[self.frame[column].map(lambda v: v != ""), LINE]
            self.problem(
                int(filled.iloc[0]) if len(filled) and self.kind == "line" else None,
                f"unknown column {column!r} (the build would drop it"
                + (f"; it is filled in {len(filled)} rows)" if len(filled) else ")"),
                column,
                None,
                f"remove it: this table has the columns {', '.join(sorted(known))}; put "
                "information about a question into the questions table",
            )

    def check_member(self, column: str, allowed: Iterable[str], what: str) -> pd.Series:
        """Flag values of ``column`` outside ``allowed``; return the mask of good rows."""
        allowed = set(allowed)
        ok = self.frame[column].isin(allowed)
        for line, value in self.frame.loc[~ok, [LINE, column]].itertuples(index=False):
            self.problem(
                line,
                f"unknown {what}",
                column,
                value,
                f"use one of {', '.join(sorted(allowed)[:12])}",
            )
        return ok

    def canonicalise(
        self, column: str, parse: Callable[[object], str], *, allow_empty: bool = False
    ) -> pd.Series:
        """Map ``column`` through ``parse`` (cached per distinct value); bad values are problems."""
        mapping: dict[object, str | None] = {}
        for value in self.frame[column].unique():
            if allow_empty and str(value).strip() == "":
                mapping[value] = ""
                continue
            try:
                mapping[value] = parse(value)
            except ValueError:
                mapping[value] = None
        out = self.frame[column].map(mapping)
        for line, value in self.frame.loc[out.isna(), [LINE, column]].itertuples(index=False):
            try:
                parse(value)
            except ValueError as exc:
                self.problem(
                    line, str(exc).split(":")[0], column, value, str(exc).split(": ", 1)[-1]
                )
        return out

    def check_duplicates(self, keys: list[str], what: str) -> None:
        dup = self.frame.duplicated(keys, keep="first")
        for row in self.frame.loc[dup, [LINE, *keys]].itertuples(index=False):
            line, *values = row
            self.problem(
                line,
                f"duplicate {what}",
                "/".join(keys),
                "/".join(map(str, values)),
                "keep one row per " + ", ".join(keys),
            )

    def check_known_questions(self, known: set[str], table: str = "questions") -> pd.Series:
        """Flag question ids that are not in ``known`` (the ids of the ``table`` table)."""
        ok = self.frame["question_id"].isin(known)
        for line, value in self.frame.loc[~ok, [LINE, "question_id"]].itertuples(index=False):
            self.problem(
                line,
                f"question id not in the {table} table",
                "question_id",
                value,
                f"add the item to the {table} table or remove the row",
            )
        return ok


def _kind_of(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bytes):
        return "binary data"
    return f"a {type(value).__name__}"


def _shown(value: object) -> str:
    """A short printable form of a cell for a problem message."""
    if isinstance(value, (list, dict)):
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = value if isinstance(value, str) else repr(value)
    text = text.replace("\x00", "\\0").encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 60 else text[:57] + "..."


def _clean_text(cells: pd.Series) -> bool:
    """Whether every cell is a string without NUL that encodes as UTF-8 (checked in C)."""
    if pd.api.types.infer_dtype(cells, skipna=False) not in {"string", "empty"}:
        return False
    joined = "".join(cells.tolist())
    return "\x00" not in joined and not _not_unicode(joined)


def _not_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def strip_columns(frame: pd.DataFrame, columns: Iterable[str]) -> None:
    for c in columns:
        if c in frame.columns:
            frame[c] = frame[c].map(lambda v: v.strip() if isinstance(v, str) else v)
