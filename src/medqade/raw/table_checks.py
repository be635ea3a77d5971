"""The answer and judgment checks the benchmark (:mod:`medqade.raw.reader`) and the pool
(:mod:`medqade.raw.pool`) both run, each through a :class:`~medqade.raw.check.Checker`: one
answer per student model and question; judgments in their wide form (an ``order`` of the five
students and ``resp_1..5``) checked and turned long, one row per answer.
"""

from __future__ import annotations

import json

import pandas as pd

from medqade import vocab
from medqade.files.tables import LINE
from medqade.raw.check import Checker, strip_columns

__all__ = ["check_answers", "check_judgments", "empty_judgments", "parse_order"]


def check_answers(
    c: Checker, known: set[str], roster: vocab.Roster, table: str = "questions"
) -> pd.DataFrame:
    f = c.frame
    strip_columns(f, ["question_id", "model"])
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


def parse_order(value: object) -> list[str] | None:
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


def empty_judgments() -> pd.DataFrame:
    cols = ["question_id", "model", "evaluator", "label", "difficulty", "position"]
    return pd.DataFrame({c: pd.Series(dtype="int64" if c == "position" else object) for c in cols})


def check_judgments(
    c: Checker, known: set[str], roster: vocab.Roster, table: str = "questions"
) -> pd.DataFrame:
    f = c.frame
    if "difficulty" not in f.columns:
        f["difficulty"] = ""
    strip_columns(f, ["question_id", "evaluator"])
    c.check_known_questions(known, table)
    c.check_member("evaluator", roster.evaluator_ids, "evaluator")
    c.check_duplicates(["evaluator", "question_id"], "judgment")
    students = set(roster.student_ids)
    # Each distinct order is parsed and checked once (a pool has hundreds of thousands of rows).
    if pd.api.types.infer_dtype(f["order"], skipna=False) == "string":
        keys = f["order"]
        parsed = {v: parse_order(v) for v in keys.unique()}
    else:
        keys = f["order"].map(parse_order).map(lambda o: None if o is None else tuple(o))
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
    long = pd.concat(rows, ignore_index=True) if rows else empty_judgments()
    return long.fillna("").reset_index(drop=True)
