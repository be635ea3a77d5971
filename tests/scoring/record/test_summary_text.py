"""The text summary of a score record (:mod:`medqade.scoring.record.summary_text`), the one
``medqade score`` prints: every section in one module, read from the typed record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import seeds
from medqade.measures.aat import alt_test
from medqade.scoring import parse_submission, score
from medqade.scoring.intake.settings import Settings
from medqade.scoring.record.score_record import ScoreRecord
from medqade.scoring.record.summary_text import alt_test_text, behaviour_lines, summary

from ..helpers import codes_to_rows, fidelity_oracle, jsonl, student_accuracies

STORED = Path(__file__).resolve().parents[2] / "fixtures" / "records"


def _stored(kind: str) -> dict[str, Any]:
    for path in sorted(STORED.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record["kind"] == kind:
            return dict(record)
    raise AssertionError(f"no stored {kind} record")


def test_a_judge_record_in_lines() -> None:
    record = _stored("judge")
    lines = summary(record).splitlines()
    assert lines[0] == f"Fixture judge (judge), scope full, 30 rows; record {record['id'][:16]}"
    assert lines[1] == (
        " core: kappa 0.333 [0.333, 0.333]  PA 50.0% [50.0%, 60.0%]  "
        "PABAK 0.000 [0.000, 0.200]  n=9"
    )
    assert (
        "  evidence: judge - physicians (core, judge in each physician's place): kappa -0.250 "
        "[-0.250, -0.250]"
    ) in lines
    assert not any(line.startswith("verdict:") for line in lines)  # a record of schema 2
    assert "abstention: 20.0% (tiers 1-4: 20.0%, 20.0%, n/a, 20.0%)" in lines
    assert "family bias on gemma3:4b: -31.4 points [-51.2, -13.0]" in lines
    assert lines[-1] == "disagrees with a unanimous physician panel on 6 answers"
    assert summary(ScoreRecord.from_json(record)) == summary(record)


def test_an_answers_record_in_lines() -> None:
    record = _stored("answers")
    record["flags"] = ["partial_coverage"]
    record["warnings"] = [f"warning {i}" for i in range(25)]
    lines = summary(record).splitlines()
    assert lines[0].startswith("Fixture model (answers), scope full, 6 rows; record ")
    assert lines[1].startswith("core: anchored accuracy 0.0% [0.0%, 79.3%], bounds 0.0%-50.0%")
    assert lines[2].startswith(" all: anchored accuracy 40.0%")
    assert "kappa" not in summary(record)
    assert "flags: partial_coverage" in lines
    assert [x for x in lines if x.startswith("note: ")] == [f"note: warning {i}" for i in range(20)]


def test_behaviour_lines() -> None:
    assert behaviour_lines({"kind": "judge"}) == []
    ci = [0.1, 0.3]
    block = {
        "split": "core",
        "position": {
            "richtig": [0.5, 0.25, 0.5, 0.5, 0.75],
            "chi2": 3.5,
            "cramers_v": 0.12,
            "p_value": 0.0004,
        },
        "caution": {
            "judge": {"slope": 0.02, "slope_ci": ci},
            "physicians": {"slope": 0.05, "slope_ci": ci},
            "slope_difference": -0.03,
            "slope_difference_ci": [-0.1, None],
        },
        "cost": {
            "input_tokens_per_1000": 1200.4,
            "output_tokens_per_1000": 10,
            "eur_per_1000": 0.5,
        },
        "breakdowns": {
            "tier": {"1": {"kappa": 0.9}},
            "specialty": {"a": {"kappa": 0.4}, "b": {"kappa": 0.7}, "c": None},
        },
    }
    lines = behaviour_lines({"behaviour": block})
    assert lines[0] == (
        "position bias (core): Richtig by position 1-5 50.0%, 25.0%, 50.0%, 50.0%, 75.0%; "
        "chi2 3.50, Cramér's V 0.120, permutation p < 0.001"
    )
    assert lines[1].startswith("caution (core, abstention slope per tier): judge 2.0% [10.0%,")
    assert lines[1].endswith("judge - physicians -3.0% [-10.0%, n/a]")
    assert lines[2] == ("tokens per 1,000 answers: 1200 in, 10 out; EUR 0.5000 per 1,000 answers")
    assert lines[3] == "kappa by specialty: lowest a 0.400, highest b 0.700 (2 groups)"
    assert len(lines) == 4


def test_a_synthetic_release_is_named() -> None:
    record = _stored("answers")
    record["dataset"] = {**record["dataset"], "synthetic": True}
    assert summary(record).splitlines()[1] == "dataset: SYNTHETIC release (not physician data)"


def test_the_alt_test_sentence_shows_rho_beside_omega_and_says_it_is_evidence() -> None:
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 2, size=(60, 5))
    phys = np.where(rng.random((4, 60, 5)) < 0.1, 1 - truth[None], truth[None])
    block = json.loads(json.dumps(alt_test(truth, phys).to_dict()))
    text = alt_test_text(block)
    assert text.startswith("alt-test (Calderon et al. 2025; answers as instances, epsilon 0.2")
    assert f"passed, omega {block['omega']:.2f}" in text and f"rho {block['rho']:.2f}" in text
    assert "not a verdict" in text and "question-clustered (robustness)" in text
    few = json.loads(json.dumps(alt_test(truth[:4], phys[:, :4]).to_dict()).replace("NaN", "null"))
    assert "not run: no physician has 30 instances" in alt_test_text(few)
    # a record scored before answers were the instances: its winning rate is not shown as one
    old = _stored("judge")
    assert "unit" not in old["alt_test"]
    assert "score the submission again" in alt_test_text(old["alt_test"])
    assert alt_test_text(old["alt_test"]) in summary(old).splitlines()


def test_the_physicians_line_says_their_abstentions_are_dropped() -> None:
    """The physicians' leave-one-out kappa is their agreement when rated (each physician on
    the answers they rated): the label says so, not "abstentions count as disagreements"."""
    record = _stored("judge")
    (line,) = [x for x in summary(record).splitlines() if x.startswith("physicians")]
    kappa = record["physician_reference"]["kappa"]
    assert line.startswith(
        "physicians (leave-one-out, each physician on the answers they rated, abstentions "
        f"dropped): kappa {kappa:.3f}"
    )
    assert "count as disagreements" not in line


def test_agreement_when_rated_shows_its_n_for_a_partial_submission() -> None:
    record = _stored("judge")
    record["flags"] = ["partial_coverage"]
    record["submission"] = {**record["submission"], "scope": "partial"}
    rated = {**record["core"]["rated"], "kappa": 0.25, "n": 1234}
    record["core"] = {**record["core"], "rated": rated, "coverage": 0.2}
    (line,) = [x for x in summary(record).splitlines() if x.startswith(" core when rated")]
    assert "kappa 0.250  PA 62.5%  n=1,234  coverage 20.0%" in line


def test_the_caution_line_carries_the_questions_per_tier_and_warns() -> None:
    caution = {
        "tiers": [1, 2, 3, 4],
        "judge": {"slope": 0.02, "slope_ci": [0.01, 0.03], "questions_by_tier": [90, 67, 32, 11]},
        "physicians": {"slope": 0.05, "slope_ci": [0.04, 0.06]},
        "slope_difference": -0.03,
        "slope_difference_ci": [-0.05, -0.01],
        "warning": "tier 4: 11 questions (fewer than 20): the slope leans on few questions",
    }
    lines = behaviour_lines({"behaviour": {"split": "core", "caution": caution}})
    assert lines[0].endswith("[-5.0%, -1.0%]; questions per tier 1-4: 90, 67, 32, 11")
    assert lines[1] == "caution: " + caution["warning"]


def _fidelity_record(sample: Release, text: str, name: str, resamples: int = 40) -> ScoreRecord:
    sub = parse_submission(text.encode(), name, sample)
    return score(sample, sub, settings=Settings(resamples=resamples, seed=3))


def test_score_prints_ranking_fidelity_length_bias_and_parse_failures(sample: Release) -> None:
    codes = np.array(sample.evaluator_labels[1], dtype=np.int8)
    codes[0, :2] = vocab.MISSING_CODE
    record = _fidelity_record(sample, codes_to_rows(sample, codes), "j.csv")
    text = summary(record)
    w = seeds.question_weights(sample.n_items, 40, 3, seeds.STREAM_ALL)  # the view: all items
    oracle = fidelity_oracle(codes, sample.consensus, w)
    lo, hi = oracle["tau_ci"]
    assert f"Kendall tau-b {oracle['tau']:.3f} [{lo:.3f}, {hi:.3f}]" in text
    judge, phys = student_accuracies(codes, sample.consensus, range(sample.n_items))
    errors = np.subtract(judge, phys)
    worst = int(np.argmax(np.abs(errors)))
    assert f"largest student error {errors[worst]:+.3f}" in text
    assert f"on {sample.roster.student_ids[worst]} (judge {100 * judge[worst]:.1f}%" in text
    assert "length bias (all): Richtig-rate slope per answer-length quartile" in text
    assert "unparseable replies: not recorded (a plain label file has no invalid outputs" in text
    assert "missing of 30 answers" in text and f"{100 * 2 / 30:.1f}% missing" in text


def test_the_unparseable_share_of_a_judge_run_is_printed(sample: Release) -> None:
    rows = []
    for i, qid in enumerate(sample.item_ids):
        row: dict[str, Any] = {"question_id": str(qid), "order": list(sample.roster.student_ids)}
        for k in range(vocab.N_SLOTS):
            code = int(sample.evaluator_labels[0][i, k])
            row[f"resp_{k + 1}"] = None if i < 2 else vocab.CODE_LABELS.get(code)
        if i < 2:
            row["error"] = "invalid: not JSON" if i == 0 else "error: timeout"
        rows.append(row)
    text = summary(_fidelity_record(sample, jsonl(rows), "judge.jsonl"))
    line = next(x for x in text.splitlines() if x.startswith("outputs (all)"))
    assert f"unparseable {100 * 5 / 30:.1f}%" in line and "(5 answers; 20.0% of replies)" in line
    assert f"{100 * 5 / 30:.1f}% missing" in line  # the timeout: no reply, not unparseable


def test_a_record_scored_before_issue_37_prints_no_such_lines() -> None:
    text = summary(_stored("judge"))
    assert "ranking fidelity" not in text and "unparseable" not in text
