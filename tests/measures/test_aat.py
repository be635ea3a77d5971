"""The alt-test (:mod:`medqade.measures.aat`) against an independent implementation of the
paper's procedure: answers as instances, written out with plain loops, scipy's one-sample t-test
on ``W_h - W_f`` against epsilon (as in the paper's code) and statsmodels' Benjamini-Yekutieli."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from medqade.dataset.release import Release, load_release
from medqade.measures import aat
from medqade.measures.aat import EPSILON, FDR, MIN_INSTANCES, AltTest, alt_test

SUBSTANTIVE = (0, 1)


def _paper(
    judge: np.ndarray,
    phys: np.ndarray,
    unit: str = "answer",
    eps: float = EPSILON,
    q: float = FDR,
    min_n: int = MIN_INSTANCES,
) -> dict[str, Any]:
    """The alt-test written out physician by physician and instance by instance."""
    n_phys, n_items, n_slots = phys.shape
    per: list[dict[str, Any]] = []
    for j in range(n_phys):
        w_f: list[int] = []
        w_h: list[int] = []
        for i in range(n_items):
            pairs_f = pairs_h = pairs = 0
            for s in range(n_slots):
                if phys[j, i, s] not in SUBSTANTIVE:
                    continue  # j gave no label: not j's instance
                others = [
                    phys[k, i, s] for k in range(n_phys) if k != j and phys[k, i, s] in SUBSTANTIVE
                ]
                if not others:
                    continue
                hits_f = sum(1 for o in others if judge[i, s] == o)
                hits_h = sum(1 for o in others if phys[j, i, s] == o)
                if unit == "answer":
                    sf, sh = hits_f / len(others), hits_h / len(others)
                    w_f.append(int(sf >= sh))
                    w_h.append(int(sh >= sf))
                else:
                    pairs_f += hits_f
                    pairs_h += hits_h
                    pairs += len(others)
            if unit == "question" and pairs:
                sf, sh = pairs_f / pairs, pairs_h / pairs
                w_f.append(int(sf >= sh))
                w_h.append(int(sh >= sf))
        tested = len(w_f) >= min_n
        p = math.nan
        if tested:
            diff = [h - f for h, f in zip(w_h, w_f, strict=True)]
            with warnings.catch_warnings():  # scipy warns on constant differences
                warnings.simplefilter("ignore", RuntimeWarning)
                p = float(sps.ttest_1samp(diff, eps, alternative="less").pvalue)
        rho_f = sum(w_f) / len(w_f) if w_f else math.nan
        per.append({"n": len(w_f), "tested": tested, "rho_f": rho_f, "p": p})
    tested_p = [r["p"] for r in per if r["tested"]]
    rejected = list(multipletests(tested_p, alpha=q, method="fdr_by")[0]) if tested_p else []
    it = iter(rejected)
    for r in per:
        r["rejected"] = bool(next(it)) if r["tested"] else False
    omega = sum(rejected) / len(rejected) if rejected else math.nan
    rho_fs = [r["rho_f"] for r in per if r["tested"]]
    rho = sum(rho_fs) / len(rho_fs) if rho_fs else math.nan
    return {"per": per, "omega": omega, "rho": rho, "passed": omega >= 0.5}


def _assert_equal(got: AltTest, want: dict[str, Any]) -> None:
    per = want["per"]
    assert list(got.n) == [r["n"] for r in per]
    assert list(got.tested) == [r["tested"] for r in per]
    assert np.allclose(got.rho_f, [r["rho_f"] for r in per], rtol=0, atol=1e-12, equal_nan=True)
    assert np.allclose(got.pvalues, [r["p"] for r in per], rtol=0, atol=1e-12, equal_nan=True)
    assert list(got.rejected) == [r["rejected"] for r in per]
    if math.isnan(want["omega"]):
        assert math.isnan(got.omega) and math.isnan(got.rho) and not got.passed
        return
    assert got.omega == pytest.approx(want["omega"], abs=1e-12)
    assert got.rho == pytest.approx(want["rho"], abs=1e-12)
    assert got.passed == want["passed"]


def _panel(
    rng: np.random.Generator, n_items: int, n_phys: int, noise: float, abstain: float
) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.integers(0, 2, size=(n_items, 5))
    flips = rng.random((n_phys, n_items, 5)) < noise
    phys = np.where(flips, 1 - truth[None], truth[None])
    phys[rng.random(phys.shape) < abstain] = 2  # Keine Angabe
    phys[rng.random(phys.shape) < abstain / 2] = -1  # missing
    return truth, phys.astype(np.int64)


@pytest.mark.parametrize("seed", range(6))
def test_equals_the_papers_procedure_on_random_panels_with_abstentions(seed: int) -> None:
    rng = np.random.default_rng([33, seed])
    n_items = int(rng.integers(8, 60))
    truth, phys = _panel(rng, n_items, int(rng.integers(3, 8)), 0.1 + 0.1 * (seed % 3), 0.08)
    judge = np.where(rng.random(truth.shape) < 0.15, 1 - truth, truth)
    judge[rng.random(judge.shape) < 0.1] = 2
    judge[rng.random(judge.shape) < 0.03] = -1
    min_n = 30 if seed % 2 else 5
    got = alt_test(judge, phys, min_instances=min_n)
    assert got.unit == "answer" and got.by_question is not None
    _assert_equal(got, _paper(judge, phys, min_n=min_n))
    _assert_equal(got.by_question, _paper(judge, phys, "question", min_n=min_n))


def test_equals_the_papers_procedure_on_the_sample_core(built_sample: Path) -> None:
    sample: Release = load_release(built_sample)
    core = sample.is_core
    phys = sample.physician_labels[:, core]
    for k in range(len(sample.roster.evaluator_ids)):
        judge = sample.evaluator_labels[k][core]
        for min_n in (MIN_INSTANCES, 2):  # the sample's core has 10 answers: none tested at 30
            got = alt_test(judge, phys, min_instances=min_n)
            _assert_equal(got, _paper(judge, phys, min_n=min_n))
            assert got.by_question is not None
            _assert_equal(got.by_question, _paper(judge, phys, "question", min_n=min_n))
    assert not any(alt_test(judge, phys).tested)


def test_equals_the_papers_procedure_on_the_release_core(full: Release) -> None:
    core = full.is_core
    phys = full.physician_labels[:, core]
    for k in (0, len(full.roster.evaluator_ids) - 1):
        judge = full.evaluator_labels[k][core]
        got = alt_test(judge, phys)
        _assert_equal(got, _paper(judge, phys))
        assert got.n_items > 5 * 100  # answers, not questions


def test_answers_and_questions_as_instances_give_different_tests() -> None:
    """Physicians who agree on everything and a judge that misses one answer of every second
    question: per answer it loses 10% of the comparisons (within epsilon 0.2), per question
    half of them, so the answer test passes it and the question-clustered one fails it."""
    n_items = 60
    truth = np.tile(np.array([1, 0, 1, 0, 1]), (n_items, 1))
    phys = np.repeat(truth[None], 4, axis=0).copy()
    judge = truth.copy()
    judge[::2, 4] = 1 - judge[::2, 4]
    got = alt_test(judge, phys)
    assert got.by_question is not None
    by_q = got.by_question
    assert got.rho == pytest.approx(0.9) and by_q.rho == pytest.approx(0.5)
    assert got.passed and got.omega == 1.0
    assert not by_q.passed and by_q.omega == 0.0
    assert got.n_items == 5 * n_items and by_q.n_items == n_items
    _assert_equal(got, _paper(judge, phys))
    _assert_equal(by_q, _paper(judge, phys, "question"))


def test_a_judge_that_abstains_everywhere_fails() -> None:
    rng = np.random.default_rng(5)
    _, phys = _panel(rng, 80, 6, 0.1, 0.05)
    for code in (2, -1):
        got = alt_test(np.full((80, 5), code), phys)
        assert not got.passed and got.omega == 0.0
        assert got.by_question is not None and not got.by_question.passed
        assert got.rho < 0.1  # wins only where the left-out physician matches no one
        _assert_equal(got, _paper(np.full((80, 5), code), phys))


def test_a_judge_that_knows_the_answers_passes_and_its_opposite_fails() -> None:
    rng = np.random.default_rng(7)
    truth, phys = _panel(rng, 80, 4, 0.15, 0.0)
    good = alt_test(truth, phys)
    assert (good.epsilon, good.q, good.n_items) == (EPSILON, FDR, 400)
    assert good.passed and good.omega == 1.0 and good.rho > 0.8
    bad = alt_test(1 - truth, phys)
    assert not bad.passed and bad.omega == 0.0 and bad.rho < 0.3


def test_the_record_block_names_unit_rho_omega_epsilon_and_meaning() -> None:
    rng = np.random.default_rng(3)
    truth, phys = _panel(rng, 40, 3, 0.1, 0.05)
    result = alt_test(truth, phys)
    d = result.to_dict()
    assert d["unit"] == "answer" and d["epsilon"] == 0.2 and d["q"] == 0.05
    assert d["omega"] == d["winning_rate"] == result.omega
    assert d["rho"] == result.rho and d["passed"] == result.passed
    assert "expert" in d["epsilon_reason"] and "cost" in d["epsilon_reason"]
    assert "not a verdict" in d["meaning"] and "epsilon" in d["meaning"]
    assert [p["rejected"] for p in d["per_physician"]] == list(result.rejected)
    assert [p["n"] for p in d["per_physician"]] == list(result.n)
    assert result.by_question is not None
    assert d["by_question"] == {
        "unit": "question",
        "omega": result.by_question.omega,
        "rho": result.by_question.rho,
        "passed": result.by_question.passed,
        "n_items": result.by_question.n_items,
    }
    other = alt_test(truth, phys, epsilon=0.1).to_dict()
    assert other["epsilon_reason"] != d["epsilon_reason"] and "0.1" in other["epsilon_reason"]


def test_no_physician_means_no_rate() -> None:
    empty = AltTest(EPSILON, FDR, (), (), (), (), ())
    assert math.isnan(empty.omega) and math.isnan(empty.rho) and not empty.passed
    assert empty.n_items == 0 and aat.MEANING in str(empty.to_dict()["meaning"])
