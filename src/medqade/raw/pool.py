"""The optional item pool of a raw release: read and validated like the other tables.

Tables (each ``.csv``, ``.jsonl`` or ``.parquet``)::

    pool            question_id, question, reference_answer [, the questions' extra columns]
    pool_answers    question_id, model, answer        (required with pool: five per pool item)
    pool_judgments  evaluator, question_id, order, resp_1..resp_5 [, difficulty]   (optional)

The pool is every item the benchmark was sampled from. A benchmark item appears in the pool
once, under its benchmark ``question_id``, with the same question, reference answer, extra
columns and answers (in a real release, a pool item under another id with a benchmark item's
question, reference answer and answers is refused as a repeat). An extra column of the
questions table that the pool lacks keeps the benchmark items' values (the other pool items
publish none; a warning).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from medqade import vocab
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.files.tables import LINE, find_table, read_table
from medqade.raw.check import (
    OPTIONAL,
    REQUIRED,
    Checker,
    strip_columns,
)
from medqade.raw.table_checks import check_answers, check_judgments, empty_judgments


@dataclass(frozen=True)
class PoolTables:
    """The optional item pool the benchmark was sampled from (see :func:`load_pool`);
    ``judgments`` is long like :attr:`RawRelease.judgments` (empty without the table)."""

    questions: pd.DataFrame
    answers: pd.DataFrame
    judgments: pd.DataFrame


POOL_REQUIRED: dict[str, tuple[str, ...]] = {
    "pool": ("question_id", "question", "reference_answer"),
    "pool_answers": REQUIRED["answers"],
    "pool_judgments": REQUIRED["judgments"],
}


def load_pool(
    folder: Path,
    log: ProblemLog,
    roster: vocab.Roster,
    questions: pd.DataFrame,
    answers: pd.DataFrame,
) -> PoolTables | None:
    """The validated pool tables of ``folder`` (``None`` without ``pool``); problems go to
    ``log`` with file, line and value. ``questions`` and ``answers`` are the validated
    benchmark tables (with their line columns)."""
    paths = {name: find_table(folder, name) for name in POOL_REQUIRED}
    if paths["pool"] is None:
        for name in ("pool_answers", "pool_judgments"):
            found = paths[name]
            if found is not None:
                log.error(
                    Problem(
                        found.name,
                        None,
                        f"{name} without a pool table",
                        fix="add pool.csv (the pool's questions) or remove this file",
                    )
                )
        return None
    if paths["pool_answers"] is None:
        log.error(
            Problem(
                "pool_answers.csv",
                None,
                "a pool table needs its answers",
                fix="add pool_answers.csv (question_id, model, answer), five per pool item",
            )
        )
        return None
    checkers: dict[str, Checker] = {}
    for name, path in paths.items():
        if path is None:
            continue
        try:
            checkers[name] = Checker(log, path, read_table(path))
        except InputError as exc:
            log.errors.extend(exc.problems)
    if log.errors or not all(c.require_columns(POOL_REQUIRED[n]) for n, c in checkers.items()):
        return None
    extras = [c for c in questions.columns if c not in {LINE, "split", "lexical_match"}]
    known_columns = {
        "pool": extras,
        "pool_answers": REQUIRED["answers"],
        "pool_judgments": (*REQUIRED["judgments"], *OPTIONAL["judgments"]),
    }
    for name, checker in checkers.items():
        checker.check_cells(("order",) if name == "pool_judgments" else ())
        checker.check_unknown_columns(known_columns[name])
    if log.errors:
        return None

    pool = _check_pool_questions(checkers["pool"])
    _check_benchmark_ids(checkers["pool"], questions)
    known = set(pool["question_id"])
    pool_answers = check_answers(checkers["pool_answers"], known, roster, "pool")
    judgments = (
        check_judgments(checkers["pool_judgments"], known, roster, "pool")
        if "pool_judgments" in checkers
        else None
    )
    if log.errors:
        return None
    bench_extras = [c for c in extras if c not in REQUIRED["questions"]]
    _fill_benchmark_extras(checkers["pool"], questions, bench_extras)
    _check_benchmark_in_pool(
        checkers["pool"],
        checkers["pool_answers"],
        questions,
        answers,
        bench_extras,
        synthetic=roster.synthetic,
    )
    pool = checkers["pool"].frame
    return PoolTables(
        questions=pool.drop(columns=[LINE]).reset_index(drop=True),
        answers=pool_answers.drop(columns=[LINE]).reset_index(drop=True),
        judgments=empty_judgments() if judgments is None else judgments,
    )


def _check_pool_questions(c: Checker) -> pd.DataFrame:
    f = c.frame
    strip_columns(f, ["question_id"])
    for col in POOL_REQUIRED["pool"]:
        for line in f.loc[f[col].astype(str).str.strip() == "", LINE]:
            c.problem(
                line,
                f"empty {col}",
                col,
                "",
                "every pool item needs an id, a text and a reference answer",
            )
    c.check_duplicates(["question_id"], "question id")
    return f


def _item_keys(questions: pd.DataFrame, answers: pd.DataFrame) -> pd.Series:
    """Per question id, its question, reference answer and answers (by model) as one key."""
    texts = answers.sort_values(["question_id", "model"], kind="stable")
    joined = texts.groupby("question_id", sort=False)["answer"].agg("\x00".join)
    by_id = questions.set_index("question_id")
    return (
        by_id["question"]
        + "\x00"
        + by_id["reference_answer"]
        + "\x00"
        + joined.reindex(by_id.index).fillna("")
    )


def _repeats(
    pool: pd.DataFrame, pool_answers: pd.DataFrame, questions: pd.DataFrame, answers: pd.DataFrame
) -> list[tuple[int, str, str]]:
    """(line, pool id, benchmark id) of each pool item under a new id that has a benchmark
    item's question, reference answer and answers."""
    bench_ids = set(questions["question_id"])
    bench = _item_keys(questions, answers)
    first = {k: q for q, k in reversed(list(bench.items()))}
    others = pool[~pool["question_id"].isin(bench_ids)]
    if others.empty:
        return []
    keys = _item_keys(
        others, pool_answers[pool_answers["question_id"].isin(set(others["question_id"]))]
    )
    out = []
    for line, qid in others[[LINE, "question_id"]].itertuples(index=False):
        twin = first.get(keys[qid])
        if twin is not None:
            out.append((int(line), str(qid), twin))
    return out


def _check_benchmark_ids(c: Checker, questions: pd.DataFrame) -> None:
    """Every benchmark item is in the pool under its benchmark id."""
    missing = sorted(set(questions["question_id"]) - set(c.frame["question_id"]))
    for qid in missing[:50]:
        c.problem(
            None,
            f"benchmark item {qid} is not in the pool",
            "question_id",
            qid,
            "the pool holds every item, the benchmark's under their benchmark ids",
        )


def _fill_benchmark_extras(c: Checker, questions: pd.DataFrame, extras: list[str]) -> None:
    """An extra column of the questions table that the pool lacks: the benchmark items keep
    their values (from the questions table), the other pool items have none (a warning)."""
    for col in extras:
        if col in c.frame.columns:
            continue
        values = questions.set_index("question_id")[col]
        filled = c.frame["question_id"].map(values.to_dict())
        c.frame[col] = filled.astype(object).where(filled.notna(), None)
        c.problem(
            None,
            f"the pool has no column {col!r} of the questions table: the benchmark items keep "
            f"theirs, the other pool items publish none",
            col,
            fix=f"add the column {col!r} to the pool table to publish it for every pool item",
            warn=True,
        )


def _check_benchmark_in_pool(
    c: Checker,
    ca: Checker,
    questions: pd.DataFrame,
    answers: pd.DataFrame,
    extras: list[str],
    *,
    synthetic: bool = False,
) -> None:
    """Every benchmark item is a pool item with the same question, reference, extra columns
    and answers, and appears there once (not again under another id)."""
    by_id = c.frame.set_index("question_id")
    missing = sorted(set(questions["question_id"]) - set(by_id.index))
    bench = questions[~questions["question_id"].isin(missing)].set_index("question_id")
    for col in ("question", "reference_answer", *extras):
        differs = by_id.loc[bench.index, col].to_numpy() != bench[col].to_numpy()
        rows = by_id.loc[bench.index[differs][:50], [LINE, col]]
        for qid, line, value in rows.itertuples():
            c.problem(
                int(line),
                f"the {col} of benchmark item {qid} differs from the questions table",
                col,
                value,
                "a benchmark item keeps its text in the pool",
            )
    # A synthetic release draws pool items from a few facts and templates: identical items
    # happen there by chance, so only a real release is checked for repeated benchmark items.
    repeats = [] if synthetic else _repeats(c.frame, ca.frame, questions, answers)
    for line, qid, bench_id in repeats[:50]:
        c.problem(
            line,
            f"pool item {qid} repeats benchmark item {bench_id} (the same question, reference "
            "answer and answers) under another id",
            "question_id",
            qid,
            f"list each item once: the benchmark item under its id {bench_id}; remove this "
            "row and its answers and judgments",
        )
    key = ["question_id", "model"]
    merged = answers[[*key, "answer"]].merge(
        ca.frame[[*key, "answer", LINE]], on=key, how="inner", suffixes=("", "_pool")
    )
    bad = merged[merged["answer"] != merged["answer_pool"]].head(50)
    for qid, model, text, line in bad[[*key, "answer_pool", LINE]].itertuples(index=False):
        ca.problem(
            int(line),
            f"pool answer {qid}/{model} differs from the benchmark's answer",
            "answer",
            text,
            "a benchmark item keeps its answers in the pool",
        )
