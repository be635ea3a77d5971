"""Tests of medqade.raw.pool: the optional pool tables of a raw release."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from medqade.files.problems import InputError
from medqade.raw.reader import load_raw_release


def _messages(raw: Path) -> str:
    with pytest.raises(InputError) as info:
        load_raw_release(raw)
    return "\n".join(str(p) for p in info.value.problems)


def test_load_pool_reads_items_answers_and_judgments(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    pool = load_raw_release(raw).pool
    assert pool is not None
    assert len(pool.questions) == 8
    assert len(pool.answers) == 40
    judged = pool.judgments.set_index(["question_id", "model"])["label"]
    assert judged[("P-1", "gemini-2.5-flash")] == "Richtig"
    assert judged[("P-1", "qwen3:4b")] == "Falsch"


def test_load_pool_absent_is_none(copy_sample: Callable[[], Path]) -> None:
    assert load_raw_release(copy_sample()).pool is None


def test_load_pool_without_judgments_is_empty(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample(judged=False)
    pool = load_raw_release(raw).pool
    assert pool is not None and pool.judgments.empty


def test_load_pool_names_missing_benchmark_item(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool[pool["question_id"] != "S-C02"].to_csv(raw / "pool.csv", index=False)
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    answers[answers["question_id"] != "S-C02"].to_csv(raw / "pool_answers.csv", index=False)
    judgments = pd.read_csv(raw / "pool_judgments.csv", dtype=str)
    judgments[judgments["question_id"] != "S-C02"].to_csv(raw / "pool_judgments.csv", index=False)
    assert "benchmark item S-C02 is not in the pool" in _messages(raw)


def test_load_pool_names_changed_benchmark_answer(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    answers.loc[0, "answer"] = "Humerus"
    answers.to_csv(raw / "pool_answers.csv", index=False)
    text = _messages(raw)
    assert "pool_answers.csv" in text and "line 2" in text
    assert "differs from the benchmark's answer" in text and "Humerus" in text


def test_load_pool_names_changed_benchmark_question(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool.loc[1, "question"] = "Geändert ___."
    pool.to_csv(raw / "pool.csv", index=False)
    text = _messages(raw)
    assert "line 3" in text and "the question of benchmark item S-C02 differs" in text


def test_load_pool_needs_five_answers(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    answers.iloc[:-1].to_csv(raw / "pool_answers.csv", index=False)
    assert "question P-1 has 4 answers, expected 5" in _messages(raw)


def test_load_pool_answers_without_pool(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    (raw / "pool.csv").unlink()
    assert "pool_answers without a pool table" in _messages(raw)


def test_load_pool_without_answers(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    (raw / "pool_answers.csv").unlink()
    assert "a pool table needs its answers" in _messages(raw)


def test_load_pool_names_unknown_column(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str).assign(source="x")
    pool.to_csv(raw / "pool.csv", index=False)
    assert "unknown column 'source'" in _messages(raw)


def test_load_pool_names_unknown_judge_label(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    judgments = pd.read_csv(raw / "pool_judgments.csv", dtype=str)
    judgments.loc[7, "resp_2"] = "vielleicht"
    judgments.to_csv(raw / "pool_judgments.csv", index=False)
    text = _messages(raw)
    assert "pool_judgments.csv" in text and "line 9" in text and "vielleicht" in text


# --- issue 23 ----------------------------------------------------------------------------------


def test_load_pool_without_extra_column_keeps_benchmark_values(
    pool_sample: Callable[..., Path],
) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool.drop(columns=["specialty"]).to_csv(raw / "pool.csv", index=False)
    release = load_raw_release(raw)
    assert release.pool is not None
    specialty = release.pool.questions.set_index("question_id")["specialty"]
    assert specialty["S-C01"] == "Anatomie" and specialty["P-0"] is None
    assert any("the pool has no column 'specialty'" in str(w) for w in release.warnings)


def test_load_pool_extra_column_differs_for_benchmark_item(
    pool_sample: Callable[..., Path],
) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool.loc[0, "specialty"] = "Chirurgie"
    pool.to_csv(raw / "pool.csv", index=False)
    assert (
        "pool.csv, line 2, column 'specialty': the specialty of benchmark item S-C01 differs "
        "from the questions table (value 'Chirurgie')"
    ) in _messages(raw)


def test_load_pool_benchmark_item_repeated_under_new_id(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample(judged=False)
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    twin = pool.iloc[[0]].assign(question_id="P-X")
    pd.concat([pool, twin]).to_csv(raw / "pool.csv", index=False)
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    more = answers[answers["question_id"] == "S-C01"].assign(question_id="P-X")
    pd.concat([answers, more]).to_csv(raw / "pool_answers.csv", index=False)
    text = _messages(raw)
    assert (
        f"pool.csv, line {len(pool) + 2}, column 'question_id': pool item P-X repeats benchmark "
        "item S-C01 (the same question, reference answer and answers) under another id"
    ) in text


def test_load_pool_missing_benchmark_item_with_answers(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool[pool["question_id"] != "S-C02"].to_csv(raw / "pool.csv", index=False)
    text = _messages(raw)
    assert "pool.csv, column 'question_id': benchmark item S-C02 is not in the pool" in text
    assert "not in the questions table" not in text
    assert "question id not in the pool table (value 'S-C02')" in text


def test_load_pool_integer_question_id_in_parquet(pool_sample: Callable[..., Path]) -> None:
    raw = pool_sample()
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool["question_id"] = range(len(pool))
    pool.to_parquet(raw / "pool.parquet")
    (raw / "pool.csv").unlink()
    text = _messages(raw)
    assert text == (
        "pool.parquet, column 'question_id': the ids are stored as int64, not as text, so they "
        "cannot match the ids of the other tables; store the column as text (string) in the "
        "Parquet file, e.g. frame[column].astype(str) before to_parquet, with the ids as written "
        "in the questions table"
    )
