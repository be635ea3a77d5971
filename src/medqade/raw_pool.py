"""The optional item pool of a raw release: read and validated like the other tables.

Tables (each ``.csv``, ``.jsonl`` or ``.parquet``)::

    pool            question_id, question, reference_answer [, the questions' extra columns]
    pool_answers    question_id, model, answer        (required with pool: five per pool item)
    pool_judgments  evaluator, question_id, order, resp_1..resp_5 [, difficulty]   (optional)

The pool is every item the benchmark was sampled from. A benchmark item appears in the pool
under its benchmark ``question_id``, with the same question, reference answer and answers.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from medqade import vocab
from medqade.problems import InputError, Problem, ProblemLog
from medqade.raw import (
    OPTIONAL,
    REQUIRED,
    PoolTables,
    _check_answers,
    _check_judgments,
    _Checker,
    _empty_judgments,
    _strip,
)
from medqade.tables import LINE, find_table, read_table

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
    checkers: dict[str, _Checker] = {}
    for name, path in paths.items():
        if path is None:
            continue
        try:
            checkers[name] = _Checker(log, path, read_table(path))
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
    known = set(pool["question_id"])
    pool_answers = _check_answers(checkers["pool_answers"], known, roster)
    judgments = (
        _check_judgments(checkers["pool_judgments"], known, roster)
        if "pool_judgments" in checkers
        else None
    )
    if log.errors:
        return None
    _check_benchmark_in_pool(checkers["pool"], checkers["pool_answers"], questions, answers)
    return PoolTables(
        questions=pool.drop(columns=[LINE]).reset_index(drop=True),
        answers=pool_answers.drop(columns=[LINE]).reset_index(drop=True),
        judgments=_empty_judgments() if judgments is None else judgments,
    )


def _check_pool_questions(c: _Checker) -> pd.DataFrame:
    f = c.frame
    _strip(f, ["question_id"])
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


def _check_benchmark_in_pool(
    c: _Checker,
    ca: _Checker,
    questions: pd.DataFrame,
    answers: pd.DataFrame,
) -> None:
    """Every benchmark item is a pool item with the same question, reference and answers."""
    by_id = c.frame.set_index("question_id")
    missing = sorted(set(questions["question_id"]) - set(by_id.index))
    for qid in missing[:50]:
        c.problem(
            None,
            f"benchmark item {qid} is not in the pool",
            "question_id",
            qid,
            "the pool holds every item, the benchmark's under their benchmark ids",
        )
    bench = questions[~questions["question_id"].isin(missing)].set_index("question_id")
    for col in ("question", "reference_answer"):
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
