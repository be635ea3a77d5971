"""The raw release: the folder of tables the data owners hand over, read and validated once.

Layout (each table as ``.csv``, ``.jsonl`` or ``.parquet``, chosen by extension)::

    questions   question_id, split (core/extension), question, reference_answer [, extras...]
    answers     question_id, model, answer
    ratings     question_id, rater, model, label, round (primary/adjudication/rerating)
                [, rated_at (ISO 8601 date or date-time: calendar, week or ordinal)]
    difficulty  question_id, rater, difficulty
    judgments   evaluator, question_id, order, resp_1..resp_5, difficulty   (optional)
    pool        question_id, question, reference_answer [, the questions' extras] (optional)
    pool_answers    question_id, model, answer                 (with pool)
    pool_judgments  evaluator, question_id, order, resp_1..resp_5 (optional, with pool)
    reviews     question_id, model, reviewer, codes, note      (optional, medqade.raw.reviews)
    roster.json optional override of the default roster

:func:`load_raw_release` reads every table, checks every row, and either returns a
:class:`RawRelease` of clean frames (canonical German labels) or raises one
:class:`~medqade.files.problems.InputError` listing every problem, each with file, line and value.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from medqade import vocab
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.files.tables import LINE, find_table, read_table
from medqade.raw.check import (
    ISO_FORMS,
    LIST_COLUMNS,
    OPTIONAL,
    OPTIONAL_TABLES,
    REQUIRED,
    Checker,
    iso_moment,
    strip_columns,
)
from medqade.raw.pool import PoolTables, load_pool
from medqade.raw.reviews import ReviewTable, load_reviews
from medqade.raw.table_checks import check_answers, check_judgments, empty_judgments
from medqade.schema import published_columns


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

    checkers = {name: Checker(log, path, frame) for name, (path, frame) in frames.items()}
    if not all(checkers[n].require_columns(cols) for n, cols in REQUIRED.items() if n in checkers):
        log.raise_if_any(f"raw release {folder.name}")
    for name, checker in checkers.items():
        checker.check_cells(LIST_COLUMNS.get(name, ()))
        if name != "questions":
            checker.check_unknown_columns((*REQUIRED[name], *OPTIONAL.get(name, ())))
    log.raise_if_any(f"raw release {folder.name}")

    questions = _check_questions(checkers["questions"])
    known = set(questions["question_id"])
    answers = check_answers(checkers["answers"], known, roster)
    ratings = _check_ratings(checkers["ratings"], known, roster, questions)
    difficulty = _check_difficulty(checkers["difficulty"], known, roster)
    judgments = (
        check_judgments(checkers["judgments"], known, roster)
        if "judgments" in checkers
        else empty_judgments()
    )
    _check_lexical_flag(checkers["questions"], questions, answers)
    log.raise_if_any(f"raw release {folder.name}")

    pool = load_pool(folder, log, roster, questions, answers)
    log.raise_if_any(f"raw release {folder.name}")

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


def _check_questions(c: Checker) -> pd.DataFrame:
    f = c.frame
    strip_columns(f, ["question_id", "split"])
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


def _check_ratings(
    c: Checker, known: set[str], roster: vocab.Roster, questions: pd.DataFrame
) -> pd.DataFrame:
    f = c.frame
    strip_columns(f, ["question_id", "rater", "model", "round"])
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


def _check_rerating(c: Checker) -> None:
    """One vote per rater and answer, one re-rating beside it (of an answer the rater rated
    first), and a ``rated_at`` that parses and, where both are given, comes after the first."""
    f = c.frame
    if "rated_at" not in f.columns:
        f["rated_at"] = ""
    strip_columns(f, ["rated_at"])
    read = [iso_moment(v) if isinstance(v, str) and v else None for v in f["rated_at"]]
    bad = (f["rated_at"] != "") & pd.Series([r is None for r in read], index=f.index)
    when = pd.to_datetime(
        pd.Series([None if r is None else r[0] for r in read], index=f.index, dtype=object),
        utc=True,  # a date-time without a zone counts as UTC, as before
    )
    for line, value in f.loc[bad, [LINE, "rated_at"]].itertuples(index=False):
        c.problem(
            line,
            "rated_at is not a date",
            "rated_at",
            value,
            f"write {ISO_FORMS}, or leave it empty",
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
    # published in the extended calendar form (a week or ordinal date as the day it names)
    f["rated_at"] = [v if r is None else r[1] for v, r in zip(f["rated_at"], read, strict=True)]


def _check_difficulty(c: Checker, known: set[str], roster: vocab.Roster) -> pd.DataFrame:
    f = c.frame
    strip_columns(f, ["question_id", "rater"])
    c.check_known_questions(known)
    c.check_member("rater", roster.physicians, "rater")
    f["difficulty"] = c.canonicalise("difficulty", vocab.parse_difficulty)
    c.check_duplicates(["question_id", "rater"], "difficulty rating")
    return f


def _check_lexical_flag(c: Checker, questions: pd.DataFrame, answers: pd.DataFrame) -> None:
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
