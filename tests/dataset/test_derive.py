"""The configs' rows derived from the sample release (:mod:`medqade.dataset.derive`), against
the raw CSV files read with the standard library: release order, consensus by a plain vote
count, lexical match, difficulty tiers and the counts the card shows.

Hand-derived facts about the sample (``data/sample``): 2 core and 4 extension items, 5 answers
each; 150 ratings; S-C02/qwen3:4b is a tie and S-E04/gemma3:4b has only abstentions."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from medqade import vocab
from medqade.dataset.derive import BuiltTables, counts, derive_tables
from medqade.raw.reader import load_raw_release

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


@pytest.fixture(scope="module")
def tables() -> BuiltTables:
    return derive_tables(load_raw_release(SAMPLE))


def _csv(name: str) -> list[dict[str, str]]:
    with (SAMPLE / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_derive_tables_slot_order_follows_roster(tables: BuiltTables) -> None:
    models = tables.answers["model"].tolist()
    assert models == list(vocab.DEFAULT_ROSTER.student_ids) * 6


def test_questions_keep_the_raw_order_and_answers_follow_them(tables: BuiltTables) -> None:
    raw_ids = [r["question_id"] for r in _csv("questions.csv")]
    assert tables.questions["question_id"].tolist() == raw_ids
    assert tables.answers["question_id"].tolist() == [q for q in raw_ids for _ in range(5)]
    assert tables.answers["answer_id"].is_unique


def test_consensus_is_the_strict_majority_of_the_first_round(tables: BuiltTables) -> None:
    votes: dict[tuple[str, str], Counter[str]] = {}
    for row in tables.ratings.itertuples(index=False):
        if row.round == vocab.ROUNDS[0]:
            votes.setdefault((row.question_id, row.model), Counter())[row.label] += 1
    unresolved = set()
    for row in tables.answers.itertuples(index=False):
        if row.adjudicated:
            continue
        c = votes[(row.question_id, row.model)]
        r, f = c[vocab.RICHTIG], c[vocab.FALSCH]
        expected = vocab.RICHTIG if r > f else vocab.FALSCH if f > r else None
        got = None if row.consensus is None or row.consensus != row.consensus else row.consensus
        assert got == expected, (row.question_id, row.model)
        if expected is None:
            unresolved.add((row.question_id, row.model))
    assert ("S-C02", "qwen3:4b") in unresolved


def test_ratings_are_in_release_order_with_their_answer_ids(tables: BuiltTables) -> None:
    r = tables.ratings
    assert len(r) == 150 and set(r["split"]) == {"core", "extension"}
    assert r["answer_id"].tolist() == [
        f"{q}/{m}" for q, m in zip(r["question_id"], r["model"], strict=True)
    ]
    q_order = {q: i for i, q in enumerate(tables.questions["question_id"])}
    assert r["question_id"].map(q_order).is_monotonic_increasing
    assert set(r["canary"]) == {vocab.CANARY}


def test_counts_add_up_over_the_splits(tables: BuiltTables) -> None:
    got = counts(tables)
    assert got["all"]["items"] == 6 and got["core"]["items"] == 2
    assert got["all"]["slots"] == 30 and got["all"]["ratings"] == 150
    for key in ("items", "slots", "unresolved_slots", "richtig_slots", "ratings", "judgments"):
        assert got["all"][key] == sum(got[s][key] for s in vocab.SPLITS), key
    per_tier = sum(t["items"] for t in got["all"]["tiers"].values())
    assert per_tier + got["all"]["no_tier_items"] == 6
    assert (
        got["all"]["richtig_slots"] + got["all"]["falsch_slots"] + got["all"]["unresolved_slots"]
        == 30
    )


def test_frames_lists_the_configs_present(tables: BuiltTables) -> None:
    frames = tables.frames()
    assert list(frames)[:4] == ["questions", "answers", "ratings", "judgments"]
    assert ("reviews" in frames) == (tables.reviews is not None)
    assert ("pool" in frames) == (tables.pool is not None)
    assert len(frames) == 4 + (tables.reviews is not None) + 2 * (tables.pool is not None) + 1
