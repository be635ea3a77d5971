"""Scope, coverage shares, content hashes and the partial-coverage note of a submission."""

from __future__ import annotations

import hashlib
import math
from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from medqade.scoring.intake.coverage import (
    answers_content_hash,
    coverage_note,
    coverage_of,
    hash_lines,
    judge_content_hash,
    scope_of,
)
from medqade.scoring.intake.kinds import ANSWERS, JUDGE

CORE = np.array([True, True, False, False])


def test_scope() -> None:
    assert scope_of(np.array([True, True, True, True]), CORE) == "full"
    assert scope_of(np.array([True, True, False, False]), CORE) == "core"
    assert scope_of(np.array([True, True, True, False]), CORE) == "partial"
    assert scope_of(np.array([True, False, False, False]), CORE) == "partial"
    assert scope_of(np.array([False, False, True, True]), CORE) == "partial"


def test_coverage_shares() -> None:
    cov = coverage_of(np.array([True, False, True, True]), CORE)
    assert cov == {"core": 0.5, "extension": 1.0, "all": 0.75}
    only_core = coverage_of(np.array([True, True]), np.array([True, True]))
    assert only_core["core"] == 1.0 and math.isnan(only_core["extension"])


def test_hash_lines_is_sha256_of_newline_terminated_lines() -> None:
    assert hash_lines(["a", "b"]) == hashlib.sha256(b"a\nb\n").hexdigest()
    assert hash_lines([]) == hashlib.sha256(b"").hexdigest()
    assert hash_lines(["ab"]) != hash_lines(["a", "b"])


def _release() -> Any:
    roster = SimpleNamespace(student_ids=["s1", "s2"])
    return cast(Any, SimpleNamespace(item_ids=["q1", "q2", "q3"], roster=roster))


def test_judge_hash_covers_present_slots_in_release_order() -> None:
    labels = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.int8)
    present = np.array([[True, False], [False, False], [True, True]])
    expected = hash_lines(["judge\tq1/s1\t1", "judge\tq3/s1\t1", "judge\tq3/s2\t1"])
    assert judge_content_hash(_release(), labels, present) == expected
    other = labels.copy()
    other[1, 0] = 1  # an absent slot does not count
    assert judge_content_hash(_release(), other, present) == expected
    other[0, 0] = 0
    assert judge_content_hash(_release(), other, present) != expected


def test_answers_hash_is_json_of_present_answers() -> None:
    present = np.array([True, False, True])
    got = answers_content_hash(_release(), ["Ä", None, 'x"y'], present)
    assert got == hash_lines(['answers\tq1\t"Ä"', 'answers\tq3\t"x\\"y"'])


def test_coverage_note_names_the_unit() -> None:
    cov = {"core": 0.5, "extension": 0.25, "all": 0.3}
    judge = coverage_note("sub.csv", JUDGE, cov)
    assert "30.0% of all answer slots (50.0% of the core)" in judge.message
    assert "kappa" in judge.message and judge.file == "sub.csv" and judge.row is None
    answers = coverage_note("a.csv", ANSWERS, cov)
    assert "of all questions" in answers.message and "not counted as wrong" in answers.message
