"""The latent model behind the synthetic release (:mod:`medqade.synthetic.simulate`): the
paper's design in numbers, the same tables for the same seed. Its agreement figures are
tests/synthetic/test_design.py's."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from medqade import vocab
from medqade.synthetic.facts import load_facts
from medqade.synthetic.parameters import N_CORE, TIER_ITEMS
from medqade.synthetic.simulate import simulate


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    return simulate(load_facts(), 1)


def test_the_design_in_numbers(tables: dict[str, Any]) -> None:
    questions = tables["questions"]
    assert len(questions) == sum(TIER_ITEMS) and questions["question_id"].is_unique
    assert (questions["split"] == vocab.CORE).sum() == N_CORE
    assert questions["question_id"].iloc[0] == "MQ-C0001"
    assert questions["question"].str.count("___").eq(1).all()
    answers = tables["answers"]
    assert len(answers) == vocab.N_SLOTS * len(questions)
    assert answers.groupby("question_id")["model"].nunique().eq(vocab.N_SLOTS).all()
    assert set(answers["model"]) == set(vocab.DEFAULT_ROSTER.student_ids)
    assert set(tables["ratings"]["rater"]) <= set(vocab.DEFAULT_ROSTER.physicians)
    assert {r["evaluator"] for r in tables["judgments"]} <= set(vocab.DEFAULT_ROSTER.evaluator_ids)


def test_the_same_seed_gives_the_same_tables(tables: dict[str, Any]) -> None:
    again = simulate(load_facts(), 1)
    for name in ("questions", "answers", "ratings", "difficulty"):
        pd.testing.assert_frame_equal(again[name], tables[name])
    assert again["judgments"] == tables["judgments"]
    other = simulate(load_facts(), 2)
    assert not other["answers"].equals(tables["answers"])
