"""Tests of medqade.raw_pool: the optional pool tables of a raw release."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from medqade.problems import InputError
from medqade.raw import load_raw_release


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
