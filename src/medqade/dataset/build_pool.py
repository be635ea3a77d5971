"""The ``pool`` and ``pool_judgments`` configs: the whole item pool the benchmark was drawn from.

``pool`` has one row per pool item (``question_id``, texts, ``lexical_match`` computed with
the benchmark's rule, ``in_benchmark``, the five answers nested); ``pool_judgments`` one row
per (answer, judge) like ``judgments``, without difficulty. Both have the one split ``pool``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from medqade import vocab
from medqade.raw.pool import PoolTables
from medqade.raw.reader import exact_match_items
from medqade.schema import POOL_SPLIT


def _answer_ids(frame: pd.DataFrame) -> pd.Series:
    return frame["question_id"].astype(object) + "/" + frame["model"].astype(object)


def derive_pool(
    pool: PoolTables, benchmark_ids: set[str], roster: vocab.Roster, extras: tuple[str, ...]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``pool`` and ``pool_judgments`` rows, in pool order (answers in roster order)."""
    q = pool.questions.copy()
    q_rank = pd.Series(np.arange(len(q)), index=q["question_id"].to_numpy())
    model_rank = {m: i for i, m in enumerate(roster.student_ids)}
    a = pool.answers
    order = np.lexsort(
        (a["model"].map(model_rank).to_numpy(), a["question_id"].map(q_rank).to_numpy())
    )
    a = a.iloc[order].reset_index(drop=True)
    ref = q.set_index("question_id")["reference_answer"]
    exact = a["answer"].to_numpy() == a["question_id"].map(ref).to_numpy()
    lexical = exact_match_items(q, a)
    q["lexical_match"] = q["question_id"].isin(lexical)
    q["in_benchmark"] = q["question_id"].isin(benchmark_ids)
    slots = pd.DataFrame(
        {
            "answer_id": _answer_ids(a),
            "model": a["model"],
            "answer": a["answer"],
            "exact_match": exact,
        }
    ).to_dict("records")
    k = vocab.N_SLOTS
    q["answers"] = pd.Series(
        [slots[i * k : (i + 1) * k] for i in range(len(q))], index=q.index, dtype=object
    )
    for col in extras:
        if col not in q.columns:
            q[col] = None
    q["split"] = POOL_SPLIT
    q["canary"] = vocab.CANARY

    # Judgments: positions from category codes, answer ids taken from the answers' ids.
    j = pool.judgments
    qi = j["question_id"].map(q_rank).to_numpy(dtype=np.int64)
    mi = pd.Categorical(j["model"], categories=list(roster.student_ids)).codes.astype(np.int64)
    ei = pd.Categorical(j["evaluator"], categories=list(roster.evaluator_ids)).codes
    jorder = np.lexsort((ei, mi, qi))
    ids = _answer_ids(a).to_numpy(dtype=object)
    judgments = pd.DataFrame(
        {
            "answer_id": ids[qi[jorder] * k + mi[jorder]],
            "question_id": j["question_id"].to_numpy(dtype=object)[jorder],
            "model": j["model"].to_numpy(dtype=object)[jorder],
            "evaluator": j["evaluator"].to_numpy(dtype=object)[jorder],
            "label": j["label"].where(j["label"] != "", None).to_numpy(dtype=object)[jorder],
            "position": j["position"].to_numpy(dtype=np.int8)[jorder],
            "split": POOL_SPLIT,
            "canary": vocab.CANARY,
        }
    )
    return q, judgments


def pool_counts(pool: pd.DataFrame, judgments: pd.DataFrame) -> dict[str, Any]:
    """Stratum sizes of the pool and of the benchmark inside it (card and ``release.json``)."""
    lexical = pool["lexical_match"].to_numpy(dtype=bool)
    bench = pool["in_benchmark"].to_numpy(dtype=bool)
    return {
        "items": len(pool),
        "slots": len(pool) * vocab.N_SLOTS,
        "benchmark_items": int(bench.sum()),
        "strata": {
            name: {
                "pool_items": int(mask.sum()),
                "benchmark_items": int((mask & bench).sum()),
                "pool_share": float(mask.mean()) if len(pool) else 0.0,
            }
            for name, mask in (("exact_match", lexical), ("no_match", ~lexical))
        },
        "judgments": len(judgments),
        "judges": [str(e) for e in pd.unique(judgments["evaluator"])],
    }
