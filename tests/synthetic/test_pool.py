"""Tests of medqade.synthetic.pool: the 26,598-item pool around the synthetic benchmark."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from medqade import vocab
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic import simulate
from medqade.synthetic.facts import load_facts
from medqade.synthetic.pool import POOL_EXACT, POOL_ITEMS, Pool, latent_consensus


@pytest.fixture(scope="module")
def pool() -> Pool:
    return latent_consensus(SYNTHETIC_SEED)


def test_simulate_pool_sizes_and_strata(pool: Pool) -> None:
    assert len(pool.pool) == POOL_ITEMS == 26_598
    assert pool.pool["question_id"].is_unique
    assert len(pool.answers) == 5 * POOL_ITEMS
    assert len(pool.judgments) == 9 * POOL_ITEMS
    assert int(pool.exact.sum()) == POOL_EXACT
    assert int(pool.in_benchmark.sum()) == 3800
    assert int((pool.in_benchmark & pool.exact).sum()) == 760


def test_simulate_pool_lexical_flag_follows_answers(pool: Pool) -> None:
    ref = pool.pool.set_index("question_id")["reference_answer"]
    verbatim = pool.answers["answer"].to_numpy() == pool.answers["question_id"].map(ref).to_numpy()
    assert np.array_equal(verbatim.reshape(-1, 5).any(axis=1), pool.exact)


def test_simulate_pool_keeps_benchmark_items(pool: Pool) -> None:
    facts = load_facts()
    bench = simulate(facts, SYNTHETIC_SEED)
    ids = pool.pool.loc[pool.in_benchmark, "question_id"]
    assert set(ids) == set(bench["questions"]["question_id"])
    merged = bench["answers"].merge(pool.answers, on=["question_id", "model"], suffixes=("", "_p"))
    assert len(merged) == 19_000 and (merged["answer"] == merged["answer_p"]).all()
    # the pool's judgments of benchmark items are the benchmark's judgments
    first = bench["judgments"][0]
    row = pool.judgments[
        (pool.judgments["question_id"] == first["question_id"])
        & (pool.judgments["evaluator"] == first["evaluator"])
    ].iloc[0]
    assert [row[f"resp_{k}"] for k in range(1, 6)] == [
        first[f"resp_{k}"] or "" for k in range(1, 6)
    ]


def test_simulate_pool_latent_consensus_matches_benchmark(
    synthetic_build: Path, pool: Pool
) -> None:
    from medqade.dataset.release import load_release

    rel = load_release(synthetic_build)
    index = {q: i for i, q in enumerate(pool.pool["question_id"])}
    rows = [index[q] for q in rel.item_ids]
    assert np.array_equal(pool.consensus[rows], rel.consensus)


def test_simulate_pool_latent_consensus_is_not_published(synthetic_raw: Path) -> None:
    names = {p.name for p in synthetic_raw.iterdir()}
    assert {"pool.parquet", "pool_answers.parquet", "pool_judgments.parquet"} <= names
    assert not any("truth" in n or "consensus" in n for n in names)
    for name in ("pool", "pool_answers", "pool_judgments"):
        columns = pd.read_parquet(synthetic_raw / f"{name}.parquet").columns
        assert not any("consensus" in c or "truth" in c for c in columns)


def test_simulate_pool_is_seeded(pool: Pool) -> None:
    again = latent_consensus(SYNTHETIC_SEED)
    assert again.pool.equals(pool.pool) and again.judgments.equals(pool.judgments)
    assert np.array_equal(again.consensus, pool.consensus)
    other = latent_consensus(SYNTHETIC_SEED + 1)
    assert not np.array_equal(other.consensus, pool.consensus)


def test_simulate_pool_judges_see_every_answer(pool: Pool) -> None:
    labels = pool.judgments[[f"resp_{k}" for k in range(1, 6)]].to_numpy().ravel()
    assert set(labels) <= {vocab.RICHTIG, vocab.FALSCH, vocab.KEINE_ANGABE, ""}
    assert set(pool.judgments["evaluator"]) == set(vocab.DEFAULT_ROSTER.evaluator_ids)
