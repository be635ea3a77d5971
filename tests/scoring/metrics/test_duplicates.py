"""Copies of reference rows: flagged ``duplicate_of_reference`` (naming the row) when scored."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from medqade import vocab
from medqade.cli import main
from medqade.dataset.release import Release
from medqade.scoring import parse_submission
from medqade.scoring.metrics.baselines import BASELINES, baseline_labels
from medqade.scoring.metrics.duplicates import (
    DUPLICATE_FLAG,
    MIN_SLOTS,
    NEAR_FLAG,
    NEAR_SHARE,
    reference_match,
)

from ..helpers import answers_csv, codes_to_rows, scored

Write = Callable[[str, str | bytes], Path]
EVALUATOR = "gemma3:4b"
STUDENT = "qwen3:4b"


def evaluator_codes(release: Release, evaluator: str = EVALUATOR) -> np.ndarray:
    k = release.roster.evaluator_ids.index(evaluator)
    return np.array(release.evaluator_labels[k], copy=True)


def student_answers(release: Release, student: str = STUDENT) -> list[str | None]:
    s = release.roster.student_ids.index(student)
    return [a if isinstance(a, str) and a.strip() else None for a in release.answer_text[:, s]]


def flip(codes: np.ndarray, share: float, seed: int = 1) -> np.ndarray:
    """``codes`` with ``share`` of the labelled slots moved to another label."""
    out = codes.copy()
    labelled = np.flatnonzero(out.ravel() != vocab.MISSING_CODE)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(labelled, size=max(1, round(share * labelled.size)), replace=False)
    flat = out.reshape(-1)
    flat[chosen] = np.where(
        flat[chosen] == vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.RICHTIG_CODE
    )
    return out


def test_cli_flags_a_copy_of_a_paper_evaluator(
    full_dir: Path, full: Release, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("mine.csv", codes_to_rows(full, evaluator_codes(full)))
    code = main(["score", str(path), "--data", str(full_dir), "--json", "--resamples", "0"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0
    assert DUPLICATE_FLAG in record["flags"] and NEAR_FLAG not in record["flags"]
    assert record["submission"]["duplicate_of"] == EVALUATOR
    assert record["submission"]["duplicate_of_agreement"] == 1.0
    assert any("Gemma 3 4B" in w and EVALUATOR in w for w in record["warnings"])


def test_copy_with_holes_is_still_a_copy(full: Release) -> None:
    codes = evaluator_codes(full)
    codes[::3] = vocab.MISSING_CODE  # a third of the items left empty
    sub = parse_submission(codes_to_rows(full, codes).encode(), "holes.csv", full)
    match = reference_match(full, sub)
    assert match is not None and match.exact and match.model_id == EVALUATOR
    assert match.compared == int((codes != vocab.MISSING_CODE).sum())


def test_copy_of_the_core_only_is_a_copy(full: Release) -> None:
    core = np.flatnonzero(full.is_core)
    text = codes_to_rows(full, evaluator_codes(full, "gpt-5-nano"), items=core)
    record = scored(full, parse_submission(text.encode(), "core.csv", full), resamples=0)
    assert DUPLICATE_FLAG in record["flags"]
    assert record["submission"]["duplicate_of"] == "gpt-5-nano"


def test_near_copy_is_flagged_not_called_a_duplicate(full: Release) -> None:
    near = flip(evaluator_codes(full), share=(1 - NEAR_SHARE) / 2)
    record = scored(
        full, parse_submission(codes_to_rows(full, near).encode(), "n.csv", full), resamples=0
    )
    assert NEAR_FLAG in record["flags"] and DUPLICATE_FLAG not in record["flags"]
    assert record["submission"]["near_duplicate_of"] == EVALUATOR
    assert NEAR_SHARE <= record["submission"]["near_duplicate_of_agreement"] < 1.0
    assert "duplicate_of" not in record["submission"]


def test_an_independent_judge_is_not_flagged(full: Release) -> None:
    own = flip(evaluator_codes(full), share=0.05)
    record = scored(
        full, parse_submission(codes_to_rows(full, own).encode(), "o.csv", full), resamples=0
    )
    assert not {DUPLICATE_FLAG, NEAR_FLAG} & set(record["flags"])
    assert not {"duplicate_of", "near_duplicate_of"} & set(record["submission"])


def test_a_tiny_partial_copy_is_not_flagged(full: Release) -> None:
    few = range((MIN_SLOTS // vocab.N_SLOTS) - 1)  # fewer slots than the minimum
    sub = parse_submission(
        codes_to_rows(full, evaluator_codes(full), items=few).encode(), "f.csv", full
    )
    assert reference_match(full, sub) is None


def test_copy_of_a_baseline_judge_names_it(full: Release) -> None:
    baseline = BASELINES[0]
    text = codes_to_rows(full, np.array(baseline_labels(full, baseline)))
    match = reference_match(full, parse_submission(text.encode(), "b.csv", full))
    assert match is not None and match.exact and match.model_id == baseline.id


def test_cli_flags_a_copy_of_a_paper_student(
    full_dir: Path, full: Release, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("answers.csv", answers_csv(full, student_answers(full)))
    code = main(["score", str(path), "--data", str(full_dir), "--json", "--resamples", "0"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0
    assert DUPLICATE_FLAG in record["flags"]
    assert record["submission"]["duplicate_of"] == STUDENT


def test_student_copy_with_other_case_and_spacing_is_a_copy(full: Release) -> None:
    answers = [None if a is None else f"  {a.upper()} " for a in student_answers(full)]
    sub = parse_submission(answers_csv(full, answers).encode(), "a.csv", full)
    match = reference_match(full, sub)
    assert match is not None and match.exact and match.model_id == STUDENT


def test_own_answers_are_not_flagged(full: Release) -> None:
    answers = student_answers(full)
    own = [f"{a} (eigene Antwort)" if a and i % 10 == 0 else a for i, a in enumerate(answers)]
    record = scored(
        full, parse_submission(answers_csv(full, own).encode(), "a.csv", full), resamples=0
    )
    assert not {DUPLICATE_FLAG, NEAR_FLAG} & set(record["flags"])
