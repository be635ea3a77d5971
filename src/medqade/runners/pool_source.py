"""The item pool as runner input: ``medqade judge --split pool`` and ``medqade answer --split
pool`` ask about every pool item (questions and answers, no physician ratings).

Rows come in the pool's order, so ``--limit N`` takes its first ``N`` items; the response cache
makes a long run resumable exactly as over the benchmark.
"""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq

from medqade import vocab
from medqade.dataset.build import RELEASE_JSON
from medqade.dataset.sources import resolve_data
from medqade.schema import POOL_SPLIT


def pool_inputs(
    data: str | None, limit: int | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]]:
    """(questions, answers, student ids) of the pool of ``--data``; ``questions`` has
    ``question_id, question, reference_answer``, ``answers`` ``question_id, model, answer``."""
    folder = resolve_data(data)
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be at least 1, got {limit}")
    files = sorted((folder / "data" / "pool").glob(f"{POOL_SPLIT}-*.parquet"))
    if not files:
        raise FileNotFoundError(
            f"{folder}: this release has no pool; --split {POOL_SPLIT} needs a build of a raw "
            "release with pool.csv and pool_answers.csv"
        )
    meta = json.loads((folder / RELEASE_JSON).read_text(encoding="utf-8"))
    students = tuple(vocab.Roster.from_dict(meta["roster"]).student_ids)
    columns = ["question_id", "question", "reference_answer", "answers"]
    pool = pd.concat([pq.read_table(f, columns=columns).to_pandas() for f in files])
    if limit is not None:
        pool = pool.head(limit)
    pool = pool.reset_index(drop=True)
    answers = pd.DataFrame(
        [
            {"question_id": qid, "model": a["model"], "answer": a["answer"]}
            for qid, slots in zip(pool["question_id"], pool["answers"], strict=True)
            for a in slots
        ],
        columns=["question_id", "model", "answer"],
    )
    return pool.drop(columns=["answers"]), answers, students
