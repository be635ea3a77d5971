"""The synthetic 26,598-item pool around the synthetic benchmark.

The paper drew its 3,800 items from a pool of 26,598 flashcards, 20:80 by lexical match. Here
the benchmark items of :func:`medqade.synthetic.simulate.simulate` *are* a stratified random
sample of the pool: the pool holds them unchanged (same id, text, answers and judgments) plus
22,798 further items drawn from the same latent model (:func:`draw_answers`, :func:`draw_merit`,
:func:`draw_physician_labels`, :func:`draw_evaluators` and their parameters).

Choices the paper leaves open
    *Exact-match share.* The paper calls its 20% exact-match allocation "deliberately
    enriched" and does not give the pool's share. We set it to :data:`POOL_EXACT_SHARE` = 7.5%
    (1,995 exact-match items, so the benchmark over-samples them 2.7-fold: 760 of 1,995 exact,
    3,040 of 24,603 no-match).
    *Difficulty.* A non-benchmark item's tier is drawn from the benchmark's tier shares within
    its lexical stratum, so that within a stratum the benchmark is exchangeable with the rest.
    *Facts.* 900 facts with five phrasings give 4,500 questions; pool items reuse the
    hand-written facts and phrasings (drawn with replacement), so many pool questions repeat
    a benchmark question's text with freshly simulated answers.
    *Latent consensus.* Every non-benchmark answer gets the ratings the extension design would
    give it (two primary physicians, the adjudicator where a slot is tied) and their majority.
    For benchmark answers it is the published consensus. The latent consensus is never
    written to the raw release: :func:`latent_consensus` recomputes it from the seed.
    *Format.* The pool tables are written as Parquet (the raw release reads any of its three
    formats), which keeps ``medqade synthesize`` + ``build`` with the pool cheap.

Randomness: the pool uses its own generator ``default_rng([seed, 15])``, so the benchmark
tables of a seed are byte-identical with and without the pool.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade import vocab
from medqade.consensus import majority, majority_of_codes
from medqade.files import atomic
from medqade.synthetic.draws import (
    draw_answers,
    draw_evaluators,
    draw_merit,
    draw_physician_labels,
    same_text,
    tie,
)
from medqade.synthetic.facts import Fact
from medqade.synthetic.parameters import TIER_EXACT, TIER_ITEMS, TIER_LATENT
from medqade.synthetic.simulate import simulate

POOL_ITEMS = 26_598
POOL_EXACT_SHARE = 0.075
POOL_EXACT = round(POOL_ITEMS * POOL_EXACT_SHARE)
POOL_STREAM = 15
"""Second entry of the pool generator's seed sequence (the issue that added the pool)."""
POOL_TABLES = ("pool", "pool_answers", "pool_judgments")
POOL_ID = "MQ-P{:05d}"


@dataclass(frozen=True)
class Pool:
    """The pool's raw tables and, kept apart, the latent consensus of every pool answer.

    ``consensus`` (items, 5) holds codes (``-1`` unresolved, ``0`` Falsch, ``1`` Richtig) in
    the row order of ``pool`` and the roster's student order; ``in_benchmark`` (items,) flags
    the benchmark items; ``exact`` (items,) the lexical stratum.
    """

    pool: pd.DataFrame
    answers: pd.DataFrame
    judgments: pd.DataFrame
    consensus: npt.NDArray[np.int8]
    in_benchmark: npt.NDArray[np.bool_]
    exact: npt.NDArray[np.bool_]


def _rest_strata(
    rng: np.random.Generator, n_exact: int, n_other: int
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int8]]:
    """Exact flag and tier of the non-benchmark items, tiers by the benchmark's shares."""
    exact_share = np.asarray(TIER_EXACT, dtype=float)
    other_share = np.asarray(TIER_ITEMS, dtype=float) - exact_share
    tiers = np.concatenate(
        [
            rng.choice(4, size=n_exact, p=exact_share / exact_share.sum()),
            rng.choice(4, size=n_other, p=other_share / other_share.sum()),
        ]
    ).astype(np.int8)
    exact = np.arange(n_exact + n_other) < n_exact
    order = rng.permutation(len(exact))
    return exact[order], (tiers[order] + 1).astype(np.int8)


def _wide_judgments(
    labels: npt.NDArray[np.int8], qids: npt.NDArray[np.str_], rng: np.random.Generator
) -> pd.DataFrame:
    """Judgment rows (evaluator, question_id, order, resp_1..5), one per evaluator and item,
    each with its own random presentation order; built with array operations."""
    students = np.asarray(vocab.DEFAULT_ROSTER.student_ids)
    text = np.array([vocab.FALSCH, vocab.RICHTIG, vocab.KEINE_ANGABE, ""], dtype=object)
    n = len(qids)
    frames = []
    for e, eid in enumerate(vocab.DEFAULT_ROSTER.evaluator_ids):
        perms = rng.permuted(np.tile(np.arange(5), (n, 1)), axis=1)
        shown = np.take_along_axis(labels[e], perms, axis=1)
        names = students[perms]
        order = pd.Series(['["'] * n, dtype=object)
        for k in range(5):
            order = order + names[:, k].astype(object) + ('","' if k < 4 else '"]')
        frame = pd.DataFrame({"evaluator": eid, "question_id": qids, "order": order})
        for k in range(5):
            frame[f"resp_{k + 1}"] = text[shown[:, k]]  # code -1 indexes "" (unparseable)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _benchmark_judgments(records: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(records)
    frame["order"] = [
        json.dumps(o, ensure_ascii=False, separators=(",", ":")) for o in frame["order"]
    ]
    for k in range(1, 6):
        frame[f"resp_{k}"] = frame[f"resp_{k}"].fillna("")
    return frame.drop(columns=["difficulty"], errors="ignore")


def _benchmark_consensus(bench: dict[str, Any]) -> npt.NDArray[np.int8]:
    """The published consensus of the benchmark answers (all rounds' votes), (items, 5)."""
    qids = bench["questions"]["question_id"].tolist()
    students = list(vocab.DEFAULT_ROSTER.student_ids)
    r = bench["ratings"]
    votes = r.groupby(["question_id", "model", "label"]).size().unstack("label", fill_value=0)
    index = pd.MultiIndex.from_product([qids, students])
    votes = votes.reindex(index, fill_value=0).reindex(columns=list(vocab.LABELS), fill_value=0)
    codes = majority(votes[vocab.RICHTIG].to_numpy(), votes[vocab.FALSCH].to_numpy())
    return codes.reshape(len(qids), vocab.N_SLOTS)


def simulate_pool(facts: tuple[Fact, ...], seed: int, bench: dict[str, Any]) -> Pool:
    """The pool around ``bench`` (the output of :func:`~medqade.synthetic.simulate.simulate`
    for the same ``facts`` and ``seed``)."""
    rng = np.random.default_rng([seed, POOL_STREAM])
    questions = bench["questions"]
    ref = questions.set_index("question_id")["reference_answer"]
    bench_answers = bench["answers"]
    verbatim = (
        bench_answers["answer"].to_numpy() == bench_answers["question_id"].map(ref).to_numpy()
    )
    bench_exact = verbatim.reshape(-1, vocab.N_SLOTS).any(axis=1)
    n_bench = len(questions)
    n_exact = POOL_EXACT - int(bench_exact.sum())
    n_rest = POOL_ITEMS - n_bench
    exact, tiers = _rest_strata(rng, n_exact, n_rest - n_exact)
    d = np.clip(np.asarray(TIER_LATENT)[tiers - 1] + rng.normal(0.0, 0.12, size=n_rest), 0, 2)
    phrasings = [(f, q) for f in facts for q in f.phrasings[:5]]
    items = [phrasings[i] for i in rng.integers(len(phrasings), size=n_rest)]
    texts, kind = draw_answers(items, d, exact, rng)
    same = same_text(texts)
    z = tie(draw_merit(kind, d, rng), same)
    no_core = np.zeros(n_rest, dtype=bool)
    primary, _all, _adj = draw_physician_labels(z, tiers, no_core, same, rng)
    rest_consensus = majority_of_codes(primary, axis=0)
    ev_labels, _diff = draw_evaluators(z, tiers, d, same, rng)

    # Pool order: benchmark and new items shuffled together; new items numbered by position.
    is_bench = np.concatenate([np.ones(n_bench, dtype=bool), np.zeros(n_rest, dtype=bool)])
    order = rng.permutation(POOL_ITEMS)
    rest_pos = np.empty(n_rest, dtype=np.int64)
    new_rank = np.cumsum(~is_bench[order])
    rest_pos[order[~is_bench[order]] - n_bench] = new_rank[~is_bench[order]]
    rest_ids = np.array([POOL_ID.format(int(k)) for k in rest_pos], dtype=object)

    extras = [c for c in ("specialty", "fact_id") if c in questions.columns]
    rest = pd.DataFrame(
        {
            "question_id": rest_ids,
            "question": [q for _f, q in items],
            "reference_answer": [f.reference for f, _q in items],
            "specialty": [f.specialty for f, _q in items],
            "fact_id": [f.fact_id for f, _q in items],
        }
    )
    pool = pd.concat(
        [
            questions[["question_id", "question", "reference_answer", *extras]],
            rest[["question_id", "question", "reference_answer", *extras]],
        ],
        ignore_index=True,
    ).iloc[order]
    students = list(vocab.DEFAULT_ROSTER.student_ids)
    rest_answers = pd.DataFrame(
        {
            "question_id": np.repeat(rest_ids, vocab.N_SLOTS),
            "model": np.tile(students, n_rest),
            "answer": [a for row in texts for a in row],
        }
    )
    all_answers = pd.concat([bench_answers, rest_answers], ignore_index=True)
    slot_rows = (order[:, None] * vocab.N_SLOTS + np.arange(vocab.N_SLOTS)[None, :]).ravel()
    judgments = pd.concat(
        [
            _benchmark_judgments(bench["judgments"]),
            _wide_judgments(ev_labels, rest_ids.astype(str), rng),
        ],
        ignore_index=True,
    )
    pool_rank = pd.Series(np.arange(POOL_ITEMS), index=pool["question_id"].to_numpy())
    eval_rank = {e: i for i, e in enumerate(vocab.DEFAULT_ROSTER.evaluator_ids)}
    jorder = np.lexsort(
        (
            judgments["question_id"].map(pool_rank).to_numpy(),
            judgments["evaluator"].map(eval_rank).to_numpy(),
        )
    )
    consensus = np.concatenate([_benchmark_consensus(bench), rest_consensus])[order]
    return Pool(
        pool=pool.reset_index(drop=True),
        answers=all_answers.iloc[slot_rows].reset_index(drop=True),
        judgments=judgments.iloc[jorder].reset_index(drop=True),
        consensus=consensus.astype(np.int8),
        in_benchmark=is_bench[order],
        exact=np.concatenate([bench_exact, exact])[order],
    )


def write_pool(folder: Path, facts: tuple[Fact, ...], seed: int, bench: dict[str, Any]) -> None:
    """Write ``pool``, ``pool_answers`` and ``pool_judgments`` into ``folder`` as Parquet
    (all-text columns; 1.2 MB instead of 44 MB of CSV, and faster to read)."""
    p = simulate_pool(facts, seed, bench)
    for name, frame in zip(POOL_TABLES, (p.pool, p.answers, p.judgments), strict=True):
        table = pa.Table.from_pandas(frame.astype(object), preserve_index=False)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd")
        atomic.write_bytes(folder / f"{name}.parquet", sink.getvalue().to_pybytes())


def latent_consensus(seed: int = 6, facts_path: Path | None = None) -> Pool:
    """The pool of the synthetic release of ``seed``, with its latent consensus (for tests
    and the coverage study; never published)."""
    from medqade.synthetic.facts import load_facts

    facts = load_facts(facts_path)
    return simulate_pool(facts, seed, simulate(facts, seed))
