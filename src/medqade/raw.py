"""The raw release: the folder of tables the data owners hand over, read and validated once.

Layout (each table as ``.csv``, ``.jsonl`` or ``.parquet``, chosen by extension)::

    questions   question_id, split (core/extension), question, reference_answer [, extras...]
    answers     question_id, model, answer
    ratings     question_id, rater, model, label, round (primary/adjudication/rerating)
                [, rated_at (ISO 8601 date or date-time)]
    difficulty  question_id, rater, difficulty
    judgments   evaluator, question_id, order, resp_1..resp_5, difficulty   (optional)
    pool        question_id, question, reference_answer [, the questions' extras] (optional)
    pool_answers    question_id, model, answer                 (with pool)
    pool_judgments  evaluator, question_id, order, resp_1..resp_5 (optional, with pool)
    reviews     question_id, model, reviewer, codes, note      (optional, medqade.raw_reviews)
    roster.json optional override of the default roster

:func:`load_raw_release` reads every table, checks every row, and either returns a
:class:`RawRelease` of clean frames (canonical German labels) or raises one
:class:`~medqade.problems.InputError` listing every problem, each with file, line and value.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from medqade import vocab
from medqade.problems import InputError, Problem, ProblemLog
from medqade.schema import published_columns
from medqade.tables import LINE, STORED_TYPES, find_table, read_table, row_kind

if TYPE_CHECKING:
    from medqade.raw_reviews import ReviewTable

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
"""An ISO 8601 date or date-time (pandas alone also reads ``today`` and ``now``)."""
ID_COLUMNS = ("question_id", "model", "rater", "evaluator")
"""Columns whose values name rows of other tables: a number stored there is refused."""
LIST_COLUMNS: dict[str, tuple[str, ...]] = {"judgments": ("order",)}
"""Columns whose cells may be lists (JSONL, Parquet); every other cell must be text."""


@functools.cache
def reserved_question_columns() -> frozenset[str]:
    """Names an extra ``questions`` column may not have: every column the build publishes."""
    return published_columns() - set(REQUIRED["questions"]) - set(OPTIONAL["questions"])


@dataclass(frozen=True)
class RawRelease:
    """Validated raw tables. Labels and difficulties are canonical German strings.

    ``judgments`` is long: one row per (evaluator, question, model) with ``label`` ("" when the
    evaluator gave no parseable label), ``difficulty`` ("" when missing) and ``position`` (1-5).
    """

    questions: pd.DataFrame
    answers: pd.DataFrame
    ratings: pd.DataFrame
    difficulty: pd.DataFrame
    judgments: pd.DataFrame
    roster: vocab.Roster
    extra_columns: tuple[str, ...]
    source_hash: str
    warnings: tuple[Problem, ...]
    pool: PoolTables | None = None
    reviews: ReviewTable | None = None


@dataclass(frozen=True)
class PoolTables:
    """The optional item pool the benchmark was sampled from (see :mod:`medqade.raw_pool`);
    ``judgments`` is long like :attr:`RawRelease.judgments` (empty without the table)."""

    questions: pd.DataFrame
    answers: pd.DataFrame
    judgments: pd.DataFrame


JSON_INPUTS = ("roster.json", "codebook.json")
"""The JSON files a raw release may hold besides its tables; each one changes the build."""


def release_hash(folder: Path) -> str:
    """SHA-256 over the names and bytes of every input file in ``folder``: every table, the
    roster and the codebook (the ``--data RAW`` cache key, so a changed input rebuilds)."""
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.is_file() and (
            path.suffix in {".csv", ".jsonl", ".parquet"} or path.name in JSON_INPUTS
        ):
            digest.update(path.name.encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class _Checker:
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


def _strip(frame: pd.DataFrame, columns: Iterable[str]) -> None:
    for c in columns:
        if c in frame.columns:
            frame[c] = frame[c].map(lambda v: v.strip() if isinstance(v, str) else v)


def load_raw_release(folder: Path) -> RawRelease:
    """Read and validate the raw release in ``folder`` (see the module docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(
            str(folder),
            [Problem(str(folder), None, "not a folder", fix="pass the raw release folder")],
        )
    log = ProblemLog()
    roster = vocab.DEFAULT_ROSTER
    roster_path = folder / "roster.json"
    if roster_path.exists():
        try:
            roster = vocab.Roster.from_json(roster_path)
        except InputError as exc:
            raise InputError(str(folder), exc.problems) from None
        except ValueError as exc:
            raise InputError(str(folder), [Problem("roster.json", None, str(exc))]) from None

    frames: dict[str, tuple[Path, pd.DataFrame]] = {}
    for name in REQUIRED:
        path = find_table(folder, name)
        if path is None:
            if name not in OPTIONAL_TABLES:
                log.error(
                    Problem(
                        f"{name}.csv",
                        None,
                        f"table {name!r} not found in the release",
                        fix=f"add {name}.csv, {name}.jsonl or {name}.parquet",
                    )
                )
            continue
        try:
            frames[name] = (path, read_table(path))
        except InputError as exc:
            log.errors.extend(exc.problems)
    log.raise_if_any(f"raw release {folder.name}")

    checkers = {name: _Checker(log, path, frame) for name, (path, frame) in frames.items()}
    if not all(checkers[n].require_columns(cols) for n, cols in REQUIRED.items() if n in checkers):
        log.raise_if_any(f"raw release {folder.name}")
    for name, checker in checkers.items():
        checker.check_cells(LIST_COLUMNS.get(name, ()))
        if name != "questions":
            checker.check_unknown_columns((*REQUIRED[name], *OPTIONAL.get(name, ())))
    log.raise_if_any(f"raw release {folder.name}")

    questions = _check_questions(checkers["questions"])
    known = set(questions["question_id"])
    answers = _check_answers(checkers["answers"], known, roster)
    ratings = _check_ratings(checkers["ratings"], known, roster, questions)
    difficulty = _check_difficulty(checkers["difficulty"], known, roster)
    judgments = (
        _check_judgments(checkers["judgments"], known, roster)
        if "judgments" in checkers
        else _empty_judgments()
    )
    _check_lexical_flag(checkers["questions"], questions, answers)
    log.raise_if_any(f"raw release {folder.name}")
    from medqade.raw_pool import load_pool

    pool = load_pool(folder, log, roster, questions, answers)
    log.raise_if_any(f"raw release {folder.name}")
    from medqade.raw_reviews import load_reviews

    reviews = load_reviews(folder, log, roster, answers)
    log.raise_if_any(f"raw release {folder.name}")

    extras = tuple(
        c
        for c in questions.columns
        if c not in REQUIRED["questions"] and c not in {LINE, "lexical_match"}
    )
    return RawRelease(
        questions=questions.drop(columns=[LINE, "lexical_match"], errors="ignore").reset_index(
            drop=True
        ),
        answers=answers.drop(columns=[LINE]).reset_index(drop=True),
        ratings=ratings.drop(columns=[LINE]).reset_index(drop=True),
        difficulty=difficulty.drop(columns=[LINE]).reset_index(drop=True),
        judgments=judgments,
        roster=roster,
        extra_columns=extras,
        source_hash=release_hash(folder),
        warnings=tuple(log.warnings),
        pool=pool,
        reviews=reviews,
    )


def _check_questions(c: _Checker) -> pd.DataFrame:
    f = c.frame
    _strip(f, ["question_id", "split"])
    for col in ("question_id", "question", "reference_answer"):
        for line in f.loc[f[col].astype(str).str.strip() == "", LINE]:
            c.problem(
                line,
                f"empty {col}",
                col,
                "",
                "every question needs an id, a text and a reference answer",
            )
    c.check_member("split", vocab.SPLITS, "split")
    c.check_duplicates(["question_id"], "question id")
    for col in sorted(reserved_question_columns() & set(f.columns)):
        c.problem(
            None,
            "an extra column may not have the name of a column the build publishes "
            "(it would replace the published one, or be replaced by it)",
            col,
            fix=f"rename it (e.g. to source_{col}) or remove it",
        )
    return f


def _check_answers(
    c: _Checker, known: set[str], roster: vocab.Roster, table: str = "questions"
) -> pd.DataFrame:
    f = c.frame
    _strip(f, ["question_id", "model"])
    c.check_known_questions(known, table)
    c.check_member("model", roster.student_ids, "student model")
    c.check_duplicates(["question_id", "model"], "answer")
    counts = f.groupby("question_id")["model"].nunique()
    first_line = f.groupby("question_id")[LINE].min()
    for qid in sorted(known):
        n = int(counts.get(qid, 0))
        if n != vocab.N_SLOTS:
            c.problem(
                None if n == 0 else int(first_line[qid]),
                f"question {qid} has {n} answers, expected {vocab.N_SLOTS} (one per student model)",
                "question_id",
                qid,
                "give exactly one answer per student model",
            )
    return f


def _check_ratings(
    c: _Checker, known: set[str], roster: vocab.Roster, questions: pd.DataFrame
) -> pd.DataFrame:
    f = c.frame
    _strip(f, ["question_id", "rater", "model", "round"])
    c.check_known_questions(known)
    c.check_member("rater", roster.physicians, "rater")
    c.check_member("model", roster.student_ids, "student model")
    c.check_member("round", vocab.ROUNDS, "round")
    f["label"] = c.canonicalise("label", vocab.parse_label)
    adj = (f["round"] == vocab.ADJUDICATION) & (f["rater"] != roster.adjudicator)
    for line, rater in f.loc[adj, [LINE, "rater"]].itertuples(index=False):
        c.problem(
            line,
            f"only the adjudicator {roster.adjudicator} rates in the adjudication round",
            "rater",
            rater,
        )
    extension = set(questions.loc[questions["split"] == vocab.EXTENSION, "question_id"])
    early = (
        f["question_id"].isin(extension)
        & (f["rater"] == roster.adjudicator)
        & (f["round"] == vocab.PRIMARY)
    )
    for line, qid in f.loc[early, [LINE, "question_id"]].itertuples(index=False):
        c.problem(
            line,
            f"the adjudicator {roster.adjudicator} rates extension items only in the "
            f"{vocab.ADJUDICATION} round (extension item {qid})",
            "round",
            vocab.PRIMARY,
            f"record this rating with round {vocab.ADJUDICATION}, or give the primary rating "
            f"to one of {', '.join(roster.primary_raters[:3])}, ...",
        )
    _check_rerating(c)
    rated = set(f[f["round"] != vocab.RERATING]["question_id"])
    for qid in sorted(known - rated):
        c.problem(
            None, f"question {qid} has no physician ratings", "question_id", qid, "add its ratings"
        )
    # Core items: every physician rates every answer (missing ratings are allowed, with a warning).
    core = set(questions.loc[questions["split"] == vocab.CORE, "question_id"])
    votes = f[f["round"] != vocab.RERATING]
    got = (
        votes[votes["question_id"].isin(core)].groupby(["question_id", "model"])["rater"].nunique()
    )
    short = got[got < len(roster.physicians)].reset_index(name="n")
    for qid, model, n in short.itertuples(index=False):
        c.problem(
            None,
            f"core answer {qid}/{model} has {n} of {len(roster.physicians)} physician ratings",
            "question_id",
            qid,
            "missing ratings are excluded from every statistic",
            warn=True,
        )
    return f


def _check_rerating(c: _Checker) -> None:
    """One vote per rater and answer, one re-rating beside it (of an answer the rater rated
    first), and a ``rated_at`` that parses and, where both are given, comes after the first."""
    f = c.frame
    if "rated_at" not in f.columns:
        f["rated_at"] = ""
    _strip(f, ["rated_at"])
    when = pd.to_datetime(
        f["rated_at"].where(f["rated_at"] != ""), errors="coerce", utc=True, format="ISO8601"
    )
    iso = f["rated_at"].map(lambda v: bool(ISO_DATE.match(v)) if isinstance(v, str) else False)
    bad = (f["rated_at"] != "") & (when.isna() | ~iso.astype(bool))
    when = when.where(~bad)
    for line, value in f.loc[bad, [LINE, "rated_at"]].itertuples(index=False):
        c.problem(
            line,
            "rated_at is not a date",
            "rated_at",
            value,
            "write an ISO 8601 date or date-time (2025-03-01 or 2025-03-01T14:30:00Z), or leave "
            "it empty",
        )
    again = f["round"] == vocab.RERATING
    keys = ["question_id", "model", "rater"]
    c.frame = f[~again]
    c.check_duplicates(keys, "rating")
    c.frame = f[again]
    c.check_duplicates(keys, "re-rating")
    c.frame = f
    first = f[~again].assign(first_at=when[~again])[[*keys, "first_at"]]
    first = first.drop_duplicates(keys)
    merged = f[again].assign(at=when[again]).merge(first, on=keys, how="left", indicator=True)
    for line, qid, model, rater in merged.loc[
        merged["_merge"] == "left_only", [LINE, *keys]
    ].itertuples(index=False):
        c.problem(
            line,
            f"a re-rating of {qid}/{model} by {rater}, who has no first rating of it",
            "round",
            vocab.RERATING,
            "a re-rating repeats a rater's own earlier rating: add the first rating, or give "
            "this row round primary",
        )
    early = merged["at"].notna() & merged["first_at"].notna() & (merged["at"] <= merged["first_at"])
    for line, value in merged.loc[early, [LINE, "rated_at"]].itertuples(index=False):
        c.problem(
            line,
            "the re-rating is not later than the rater's first rating of this answer",
            "rated_at",
            value,
            "check the dates: the re-rating comes after a washout",
        )


def _check_difficulty(c: _Checker, known: set[str], roster: vocab.Roster) -> pd.DataFrame:
    f = c.frame
    _strip(f, ["question_id", "rater"])
    c.check_known_questions(known)
    c.check_member("rater", roster.physicians, "rater")
    f["difficulty"] = c.canonicalise("difficulty", vocab.parse_difficulty)
    c.check_duplicates(["question_id", "rater"], "difficulty rating")
    return f


def _parse_order(value: object) -> list[str] | None:
    if isinstance(value, list):
        return [str(v).strip() for v in value]
    if hasattr(value, "tolist"):
        return [str(v).strip() for v in value.tolist()]
    text = str(value).strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return None
        return [str(v).strip() for v in parsed] if isinstance(parsed, list) else None
    return [v.strip() for v in text.replace(";", ",").split(",")]


def _empty_judgments() -> pd.DataFrame:
    cols = ["question_id", "model", "evaluator", "label", "difficulty", "position"]
    return pd.DataFrame({c: pd.Series(dtype="int64" if c == "position" else object) for c in cols})


def _check_judgments(
    c: _Checker, known: set[str], roster: vocab.Roster, table: str = "questions"
) -> pd.DataFrame:
    f = c.frame
    if "difficulty" not in f.columns:
        f["difficulty"] = ""
    _strip(f, ["question_id", "evaluator"])
    c.check_known_questions(known, table)
    c.check_member("evaluator", roster.evaluator_ids, "evaluator")
    c.check_duplicates(["evaluator", "question_id"], "judgment")
    students = set(roster.student_ids)
    # Each distinct order is parsed and checked once (a pool has hundreds of thousands of rows).
    if pd.api.types.infer_dtype(f["order"], skipna=False) == "string":
        keys = f["order"]
        parsed = {v: _parse_order(v) for v in keys.unique()}
    else:
        keys = f["order"].map(_parse_order).map(lambda o: None if o is None else tuple(o))
        parsed = {k: None if k is None else list(k) for k in keys.unique()}
    valid = {
        k: o is not None and len(o) == vocab.N_SLOTS and set(o) == students
        for k, o in parsed.items()
    }
    bad = ~keys.map(valid).astype(bool)
    for line, value in f.loc[bad, [LINE, "order"]].itertuples(index=False):
        c.problem(
            line,
            "order must list the five student ids, each once",
            "order",
            value,
            f"e.g. {json.dumps(list(roster.student_ids))}",
        )
    labels = {
        k: c.canonicalise(f"resp_{k}", vocab.parse_label, allow_empty=True) for k in range(1, 6)
    }
    diff = c.canonicalise("difficulty", vocab.parse_difficulty, allow_empty=True)
    good = ~bad
    rows = []
    for k in range(1, 6):
        rows.append(
            pd.DataFrame(
                {
                    "question_id": f.loc[good, "question_id"],
                    "model": keys[good].map(
                        {v: o[k - 1] for v, o in parsed.items() if o and valid[v]}
                    ),
                    "evaluator": f.loc[good, "evaluator"],
                    "label": labels[k][good],
                    "difficulty": diff[good],
                    "position": k,
                }
            )
        )
    long = pd.concat(rows, ignore_index=True) if rows else _empty_judgments()
    return long.fillna("").reset_index(drop=True)


def _check_lexical_flag(c: _Checker, questions: pd.DataFrame, answers: pd.DataFrame) -> None:
    """If questions carries ``lexical_match``, it must equal the computed flag on every item."""
    if "lexical_match" not in questions.columns:
        return
    computed = exact_match_items(questions, answers)
    for line, qid, flag in questions[[LINE, "question_id", "lexical_match"]].itertuples(
        index=False
    ):
        stated = str(flag).strip().casefold() in {"true", "1", "yes", "ja"}
        if stated != (qid in computed):
            c.problem(
                line,
                f"item {qid}: lexical_match says {stated} but the answers say {qid in computed}",
                "lexical_match",
                flag,
                "lexical match is computed from the answers; drop the column or correct it",
            )


def exact_match_items(questions: pd.DataFrame, answers: pd.DataFrame) -> set[str]:
    """Question ids where at least one answer equals the reference under strict equality."""
    ref = questions.set_index("question_id")["reference_answer"]
    merged = answers.assign(reference=answers["question_id"].map(ref))
    return set(merged.loc[merged["answer"] == merged["reference"], "question_id"])


__all__ = [
    "REQUIRED",
    "InputError",
    "RawRelease",
    "exact_match_items",
    "load_raw_release",
    "release_hash",
]
