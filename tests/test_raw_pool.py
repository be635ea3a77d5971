"""Tests of medqade.raw_pool: the optional pool tables of a raw release."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from medqade.problems import InputError
from medqade.raw import load_raw_release

STUDENTS = ["gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b"]


def _add_pool(raw: Path, *, extra_items: int = 2, judged: bool = True) -> None:
    """Pool = the sample's items plus ``extra_items`` new ones, written as CSV."""
    q = pd.read_csv(raw / "questions.csv", dtype=str)
    a = pd.read_csv(raw / "answers.csv", dtype=str)
    new = pd.DataFrame(
        {
            "question_id": [f"P-{i}" for i in range(extra_items)],
            "question": [f"Frage {i} ___." for i in range(extra_items)],
            "reference_answer": ["Femur"] * extra_items,
            "specialty": ["Anatomie"] * extra_items,
        }
    )
    pool = pd.concat([q.drop(columns=["split"]), new], ignore_index=True)
    pool.to_csv(raw / "pool.csv", index=False)
    new_answers = pd.DataFrame(
        {
            "question_id": [qid for qid in new["question_id"] for _ in STUDENTS],
            "model": STUDENTS * extra_items,
            "answer": ["Femur", "Tibia", "Tibia", "Humerus", "Knochen"] * extra_items,
        }
    )
    pd.concat([a, new_answers], ignore_index=True).to_csv(raw / "pool_answers.csv", index=False)
    if judged:
        rows = [
            {
                "evaluator": "gemini-3-flash-preview",
                "question_id": qid,
                "order": json.dumps(STUDENTS),
                **{f"resp_{k}": "Richtig" if k == 1 else "Falsch" for k in range(1, 6)},
            }
            for qid in pool["question_id"]
        ]
        pd.DataFrame(rows).to_csv(raw / "pool_judgments.csv", index=False)


def _messages(raw: Path) -> str:
    with pytest.raises(InputError) as info:
        load_raw_release(raw)
    return "\n".join(str(p) for p in info.value.problems)


def test_load_pool_reads_items_answers_and_judgments(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    pool = load_raw_release(raw).pool
    assert pool is not None
    assert len(pool.questions) == 8
    assert len(pool.answers) == 40
    judged = pool.judgments.set_index(["question_id", "model"])["label"]
    assert judged[("P-1", "gemini-2.5-flash")] == "Richtig"
    assert judged[("P-1", "qwen3:4b")] == "Falsch"


def test_load_pool_absent_is_none(copy_sample: Callable[[], Path]) -> None:
    assert load_raw_release(copy_sample()).pool is None


def test_load_pool_without_judgments_is_empty(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw, judged=False)
    pool = load_raw_release(raw).pool
    assert pool is not None and pool.judgments.empty


def test_load_pool_names_missing_benchmark_item(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool[pool["question_id"] != "S-C02"].to_csv(raw / "pool.csv", index=False)
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    answers[answers["question_id"] != "S-C02"].to_csv(raw / "pool_answers.csv", index=False)
    judgments = pd.read_csv(raw / "pool_judgments.csv", dtype=str)
    judgments[judgments["question_id"] != "S-C02"].to_csv(raw / "pool_judgments.csv", index=False)
    assert "benchmark item S-C02 is not in the pool" in _messages(raw)


def test_load_pool_names_changed_benchmark_answer(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    answers.loc[0, "answer"] = "Humerus"
    answers.to_csv(raw / "pool_answers.csv", index=False)
    text = _messages(raw)
    assert "pool_answers.csv" in text and "line 2" in text
    assert "differs from the benchmark's answer" in text and "Humerus" in text


def test_load_pool_names_changed_benchmark_question(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    pool = pd.read_csv(raw / "pool.csv", dtype=str)
    pool.loc[1, "question"] = "Geändert ___."
    pool.to_csv(raw / "pool.csv", index=False)
    text = _messages(raw)
    assert "line 3" in text and "the question of benchmark item S-C02 differs" in text


def test_load_pool_needs_five_answers(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    answers = pd.read_csv(raw / "pool_answers.csv", dtype=str)
    answers.iloc[:-1].to_csv(raw / "pool_answers.csv", index=False)
    assert "question P-1 has 4 answers, expected 5" in _messages(raw)


def test_load_pool_answers_without_pool(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    (raw / "pool.csv").unlink()
    assert "pool_answers without a pool table" in _messages(raw)


def test_load_pool_without_answers(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    (raw / "pool_answers.csv").unlink()
    assert "a pool table needs its answers" in _messages(raw)


def test_load_pool_names_unknown_column(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    pool = pd.read_csv(raw / "pool.csv", dtype=str).assign(source="x")
    pool.to_csv(raw / "pool.csv", index=False)
    assert "unknown column 'source'" in _messages(raw)


def test_load_pool_names_unknown_judge_label(copy_sample: Callable[[], Path]) -> None:
    raw = copy_sample()
    _add_pool(raw)
    judgments = pd.read_csv(raw / "pool_judgments.csv", dtype=str)
    judgments.loc[7, "resp_2"] = "vielleicht"
    judgments.to_csv(raw / "pool_judgments.csv", index=False)
    text = _messages(raw)
    assert "pool_judgments.csv" in text and "line 9" in text and "vielleicht" in text
