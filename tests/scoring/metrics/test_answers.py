"""Model-answer scoring: anchoring on physician-labelled answers, bounds, judged estimates."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from medqade import stats
from medqade.dataset.build import build
from medqade.dataset.release import Release, load_release
from medqade.scoring import attach_labels, parse_submission
from medqade.scoring.metrics.answers import anchor

from ..conftest import SAMPLE
from ..helpers import answers_csv, scored


@pytest.mark.parametrize("slot", range(5))
def test_student_answers_reproduce_student_accuracy(full: Release, slot: int) -> None:
    """Done when: a student's own answers give its accuracy within 1 point, with anchored
    coverage >= 97% of its resolved slots."""
    student = full.roster.students[slot]
    text = answers_csv(full, full.answer_text[:, slot])
    sub = parse_submission(text.encode(), "a.csv", full)
    record = scored(full, sub, {"model_id": student.id, "family": student.family}, resamples=0)
    acc = record["accuracy"]
    consensus = full.consensus[:, slot]
    resolved = int((consensus >= 0).sum())
    paper = int((consensus == 1).sum()) / resolved
    assert abs(acc["anchored"] - paper) <= 0.01
    assert acc["n_anchored"] / resolved >= 0.97
    # identity anchoring makes it exact, as RQ2 computes it
    assert acc["anchored"] == paper
    assert acc["ci"] == list(stats.wilson_interval(int((consensus == 1).sum()), resolved))
    assert acc["coverage"] == 1.0 and acc["lower"] == acc["upper"] == paper


def test_student_answers_without_model_id_anchor_by_text(full: Release) -> None:
    """Without the model id the same answers anchor by text alone: every answer still
    anchors, and pooled conflicts are counted."""
    text = answers_csv(full, full.answer_text[:, 0])
    record = scored(full, parse_submission(text.encode(), "a.csv", full), resamples=0)
    acc = record["accuracy"]
    assert acc["n_unmatched"] == 0 and acc["coverage"] == 1.0
    assert acc["own_anchors"] == 0
    assert acc["n_anchored"] + acc["n_anchored_unresolved"] == acc["n_answered"]
    consensus = full.consensus[:, 0]
    conflicts = 0
    keys = pd.Series(full.answer_text.ravel()).str.strip().str.casefold().to_numpy()
    keys = keys.reshape(full.answer_text.shape)
    for i in range(full.n_items):
        same = keys[i] == keys[i, 0]
        conflicts += len(set(full.consensus[i, same].tolist())) > 1
    assert acc["pooled_anchors"] >= conflicts  # normalisation can only add matches
    assert abs(acc["n_anchored"] - int((consensus >= 0).sum())) <= acc["pooled_anchors"]


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Release:
    """The sample with two edited answers, so that identical answers disagree:
    S-C01 qwen3:4b says ``femur`` (physicians: Falsch, 0-10) while two ``Femur`` are Richtig
    (10-0 each); S-E01 gpt-5-nano says ``N. Medianus`` (Falsch, 0-2) while ``N. medianus``
    is Richtig (2-0)."""
    raw = tmp_path_factory.mktemp("edited") / "raw"
    shutil.copytree(SAMPLE, raw)
    answers = pd.read_csv(raw / "answers.csv", dtype=str, keep_default_na=False)
    at = answers.set_index(["question_id", "model"])
    at.loc[("S-C01", "qwen3:4b"), "answer"] = "femur"
    at.loc[("S-E01", "gpt-5-nano"), "answer"] = "N. Medianus"
    at.reset_index().to_csv(raw / "answers.csv", index=False)
    out = raw.parent / "build"
    build(raw, out)
    return load_release(out)


ANSWERS = [
    "Der Femur",  # S-C01: matches 3 answers, consensus differs -> pooled 20:10 -> Richtig
    "Antidot",  # S-C02: matches an unresolved answer -> stays unresolved
    "n. medianus",  # S-E01: pooled 2:2 -> tie -> unresolved
    "Blutgruppe 0 negativ",  # S-E02: matches nothing
    "„McBurney-Punkt“",  # S-E03: quotes trimmed -> Richtig
    "Meningokokken.",  # S-E04: -> Falsch
]


def test_anchor_rules_by_hand(edited: Release) -> None:
    a = anchor(edited, ANSWERS)
    assert list(a.matched) == [True, True, True, False, True, True]
    assert list(a.code) == [1, -1, -1, -1, 1, 0]
    assert list(a.pooled) == [True, False, True, False, False, False]
    assert list(a.n_matches) == [3, 1, 2, 0, 1, 1]


def test_score_answers_bounds_by_hand(edited: Release) -> None:
    sub = parse_submission(answers_csv(edited, ANSWERS).encode(), "a.csv", edited)
    acc = scored(edited, sub, resamples=0)["accuracy"]
    # A = 3 anchored to a resolved consensus (C = 2 Richtig), M = 1 unmatched
    assert acc["anchored"] == pytest.approx(2 / 3)
    assert acc["lower"] == pytest.approx(2 / 4)
    assert acc["upper"] == pytest.approx(3 / 4)
    assert acc["coverage"] == pytest.approx(3 / 4)
    assert acc["pooled_anchors"] == 2
    assert acc["n_anchored_unresolved"] == 2
    assert acc["ci"] == pytest.approx(list(stats.wilson_interval(2, 3)))
    assert acc["judged"] is None
    # by tier: tiers 1, 1, 2, 4, 1, 4
    tier1 = acc["by_tier"][0]
    assert (tier1["n_anchored"], tier1["n_correct"]) == (2, 2)
    assert acc["by_tier"][2] is None
    assert acc["by_lexical"]["no_match"]["n_unmatched"] == 1


def test_score_answers_judged_estimate(edited: Release) -> None:
    sub = parse_submission(answers_csv(edited, ANSWERS).encode(), "a.csv", edited)
    labels = "question_id,label\nS-E02,Richtig\nS-C01,Richtig\nS-E04,Richtig\n"
    sub = attach_labels(sub, labels.encode(), "l.csv", edited)
    meta = {
        "family": "GPT",
        "judge": {"name": "Mini", "model_id": "gpt-5.4-mini"},
    }
    record = scored(edited, sub, meta, resamples=0)
    judged = record["accuracy"]["judged"]
    # C = 2 of A = 3, plus the one unmatched answer judged Richtig
    assert judged["estimate"] == pytest.approx(3 / 4)
    assert judged["ci"] == pytest.approx(list(stats.wilson_interval(3, 4)))
    assert (judged["n_judged"], judged["n_unjudged"]) == (1, 0)
    judge = record["judge"]
    assert judge["core_kappa_source"] == "release" and judge["family"] == "GPT"
    assert judge["same_family"] and "same_family_judge" in record["flags"]
    assert any("+4 to +16 points" in w for w in record["warnings"])
    # the judge's agreement with the anchors: S-C01 (Richtig = Richtig), S-E04 (Richtig != Falsch)
    assert judge["agreement_on_anchored"]["n"] == 2
    assert judge["agreement_on_anchored"]["pa"] == 0.5


def test_score_answers_submitted_judge_kappa(edited: Release) -> None:
    sub = parse_submission(answers_csv(edited, ANSWERS).encode(), "a.csv", edited)
    meta = {"family": "Qwen", "judge": {"name": "Other", "family": "Mistral", "core_kappa": 0.5}}
    record = scored(edited, sub, meta, resamples=0)
    assert record["judge"]["core_kappa"] == 0.5
    assert record["judge"]["core_kappa_source"] == "submitted"
    assert "same_family_judge" not in record["flags"]


def test_score_answers_partial_and_core(full: Release) -> None:
    core = np.flatnonzero(full.is_core)
    text = answers_csv(full, full.answer_text[:, 2], core)
    record = scored(full, parse_submission(text.encode(), "a.csv", full), resamples=0)
    assert record["submission"]["scope"] == "core"
    both = ("anchored", "ci", "lower", "upper", "n_anchored", "n_answered")
    assert all(record["accuracy_core"][k] == record["accuracy"][k] for k in both)
    text = answers_csv(full, full.answer_text[:, 2], core[:50])
    record = scored(full, parse_submission(text.encode(), "a.csv", full), resamples=0)
    assert "partial_coverage" in record["flags"]
    assert record["accuracy_core"]["n_answered"] == 50


def test_score_answers_unanswered_are_left_out(sample: Release) -> None:
    text = "question_id,answer\nS-C01,Femur\nS-C02,\nS-E01,Tibia\n"
    record = scored(sample, parse_submission(text.encode(), "a.csv", sample), resamples=0)
    acc = record["accuracy"]
    assert acc["n_answered"] == 2 and acc["n_unmatched"] == 1
    assert acc["lower"] == 0.5 and acc["upper"] == 1.0


def test_answers_normalisation_matches_variants(sample: Release) -> None:
    a = anchor(sample, ["  FEMUR!  ", "acc", None, "0", "mcburney", "pneumokokken"])
    assert list(a.matched) == [True, True, False, True, True, True]
    assert list(a.answered) == [True, True, False, True, True, True]
    assert list(a.code) == [1, 1, -1, 0, 1, -1]  # Pneumokokken is unresolved in the sample
