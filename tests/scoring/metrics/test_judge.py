"""Judge scoring against the physician consensus, checked against the analyses it reuses."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from medqade import vocab
from medqade.analyses import rq3, rq4
from medqade.cli import main
from medqade.dataset.release import Release
from medqade.measures import in_place, paired, seeds
from medqade.measures import reference_agreement as alignment
from medqade.scoring import leaderboard, parse_submission
from medqade.scoring.metrics.breakdowns import abstention

from ..conftest import RESAMPLES
from ..helpers import codes_to_rows, judge_rows, scored, scored_file

SEED = 5
EVALUATOR = "gpt-5.4-mini"


def _core_reference(full: Release, evaluator: str, seed: int = SEED) -> alignment.Agreement:
    core = full.is_core
    k = full.roster.evaluator_ids.index(evaluator)
    weights = seeds.question_weights(int(core.sum()), RESAMPLES, seed)
    return alignment.agreement(
        full.evaluator_labels[k][core],
        full.consensus[core],
        full.roster.student_ids,
        weights,
        abstain_disagrees=True,
    )


def test_score_cli_equals_alignment_to_the_last_digit(
    full: Release,
    full_dir: Path,
    write: Callable[[str, str | bytes], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Done when: `medqade score` on an evaluator's own judgments = alignment.agreement."""
    path = write("judge.csv", judge_rows(full, EVALUATOR).to_csv(index=False))
    argv = ["score", str(path), "--data", str(full_dir), "--json"]
    argv += ["--resamples", str(RESAMPLES), "--seed", str(SEED)]
    assert main(argv) == 0
    record = json.loads(capsys.readouterr().out)
    ref = _core_reference(full, EVALUATOR)
    core = record["core"]
    assert core["kappa"] == ref.kappa.value
    assert core["pa"] == ref.pa.value
    assert core["pabak"] == ref.pabak.value
    assert core["kappa_ci"] == list(ref.kappa.ci)
    assert core["pa_ci"] == list(ref.pa.ci)
    assert core["pabak_ci"] == list(ref.pabak.ci)
    assert core["n"] == ref.n
    for slot, values in ref.slots.items():
        assert core["slots"][slot]["kappa"] == values.kappa.value
        assert core["slots"][slot]["kappa_ci"] == list(values.kappa.ci)


def test_score_per_question_run_output_equals_rq3(full: Release, full_raw: Path) -> None:
    """The raw evaluator-run lines (order, resp_k, nulls) score as in RQ3 (Table 3)."""
    lines = [
        line
        for line in (full_raw / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
        if json.loads(line)["evaluator"] == "gemma3:4b"
    ]
    sub = parse_submission(("\n".join(lines) + "\n").encode(), "run.jsonl", full)
    assert sub.format == "per_question" and sub.scope == "full"
    record = scored(full, sub, {"name": "rerun"}, resamples=RESAMPLES, seed=SEED)
    weights = seeds.question_weights(int(full.is_core.sum()), RESAMPLES, SEED)
    table3 = rq3.evaluator_alignment(full, weights)
    expected = table3.evaluators["gemma3:4b"]
    # the paper's agreement when rated (abstentions dropped pairwise) stays beside the verdict's
    assert record["core"]["rated"]["kappa"] == expected.kappa.value
    assert record["core"]["rated"]["kappa_ci"] == list(expected.kappa.ci)
    assert record["core"]["kappa"] < expected.kappa.value  # gemma3:4b abstains: disagreements
    loo = record["physician_reference"]["rated"]
    assert loo["kappa"] == table3.physician_loo.kappa.value
    assert loo["kappa_ci"] == list(table3.physician_loo.kappa.ci)


def test_score_full_set_matches_alignment(full: Release) -> None:
    k = full.roster.evaluator_ids.index(EVALUATOR)
    text = codes_to_rows(full, full.evaluator_labels[k])
    record = scored(full, parse_submission(text.encode(), "j.csv", full), resamples=RESAMPLES)
    weights = seeds.question_weights(
        full.n_items, RESAMPLES, seeds.BOOTSTRAP_SEED, seeds.STREAM_ALL
    )
    expected = alignment.agreement(
        full.evaluator_labels[k],
        full.consensus,
        full.roster.student_ids,
        weights,
        abstain_disagrees=True,
    )
    assert record["full"]["kappa"] == expected.kappa.value
    assert record["full"]["kappa_ci"] == list(expected.kappa.ci)
    assert record["full"]["n"] == expected.n  # unresolved slots excluded, abstentions counted
    resolved = full.consensus >= 0
    assert expected.n == int(resolved.sum())
    rated = alignment.agreement(
        full.evaluator_labels[k], full.consensus, full.roster.student_ids, weights
    )
    assert record["full"]["rated"]["kappa"] == rated.kappa.value
    labelled = (full.evaluator_labels[k] == 0) | (full.evaluator_labels[k] == 1)
    assert record["full"]["rated"]["n"] == int((resolved & labelled).sum())


def test_score_consensus_copy_is_above_ceiling(full: Release) -> None:
    """Done when: a file that copies the consensus is flagged and never ranked as verified."""
    text = codes_to_rows(full, full.consensus)
    sub = parse_submission(text.encode(), "copy.csv", full)
    record = scored(full, sub, {"name": "copy", "verified": True}, resamples=RESAMPLES)
    assert record["core"]["kappa"] == 1.0
    assert record["verdict"] == paired.ABOVE
    assert "above_physician_ceiling" in record["flags"]
    judges = leaderboard([record]).judges_frame()
    row = judges.iloc[0]
    assert row["status"] == "above_physician_ceiling"
    assert pd.isna(row["rank"])


def test_score_partial_coverage_and_core_only(full: Release) -> None:
    k = full.roster.evaluator_ids.index(EVALUATOR)
    core_items = np.flatnonzero(full.is_core)
    text = codes_to_rows(full, full.evaluator_labels[k], core_items)
    record = scored(full, parse_submission(text.encode(), "c.csv", full), resamples=RESAMPLES)
    assert record["submission"]["scope"] == "core"
    assert record["full"] is None
    assert "partial_coverage" not in record["flags"]
    assert (
        record["core"]["kappa"]
        == _core_reference(full, EVALUATOR, seeds.BOOTSTRAP_SEED).kappa.value
    )
    half = core_items[:100]
    text = codes_to_rows(full, full.evaluator_labels[k], half)
    record = scored(full, parse_submission(text.encode(), "h.csv", full), resamples=RESAMPLES)
    assert "partial_coverage" in record["flags"]
    assert record["core"]["coverage"] == 0.5
    assert record["core"]["n_items"] == 100


def test_score_extension_only_has_no_core(full: Release) -> None:
    k = full.roster.evaluator_ids.index(EVALUATOR)
    items = np.flatnonzero(~full.is_core)[:300]
    text = codes_to_rows(full, full.evaluator_labels[k], items)
    record = scored(full, parse_submission(text.encode(), "e.csv", full), resamples=RESAMPLES)
    assert record["core"] is None and record["verdict"] is None
    assert record["full"]["n_items"] == 300
    assert {"no_core", "partial_coverage"} <= set(record["flags"])


def test_abstention_by_hand() -> None:
    labels = np.array([[2, 1, 0, -1, 2], [0, 0, 1, 1, 1]], dtype=np.int8)
    present = np.ones_like(labels, dtype=bool)
    present[1, 4] = False
    out = abstention(labels, present, np.array([1, 4], dtype=np.int8))
    # 2 abstentions of 9 slots with a row; tier 1: 2 of 5; tier 4: 0 of 4; tiers 2-3 empty
    assert out["global"] == pytest.approx(2 / 9)
    assert out["by_tier"][0] == pytest.approx(2 / 5)
    assert np.isnan(out["by_tier"][1]) and np.isnan(out["by_tier"][2])
    assert out["by_tier"][3] == 0.0
    assert out["n_missing"] == 1
    assert out["answered_share"] == pytest.approx(6 / 8)


def test_score_abstention_matches_rq5_denominators(full: Release) -> None:
    k = full.roster.evaluator_ids.index("gemma3:4b")
    labels = full.evaluator_labels[k]
    record = scored(
        full, parse_submission(codes_to_rows(full, labels).encode(), "j.csv", full), resamples=0
    )
    tiers = np.broadcast_to(full.tier[:, None], labels.shape)
    for t in vocab.TIERS:
        in_tier = tiers == t
        expected = int((labels[in_tier] == vocab.ABSTAIN_CODE).sum()) / int(in_tier.sum())
        assert record["abstention"]["by_tier"][t - 1] == pytest.approx(expected, abs=0)


def test_score_bias_for_a_family_judge(full: Release) -> None:
    """A re-submitted reference evaluator gets RQ4's self and family bias (to rounding)."""
    evaluator = "gemma3:27b"
    k = full.roster.evaluator_ids.index(evaluator)
    text = codes_to_rows(full, full.evaluator_labels[k])
    meta = {"family": "gemma", "model_id": evaluator}
    record = scored(full, parse_submission(text.encode(), "j.csv", full), meta, resamples=RESAMPLES)
    weights = seeds.question_weights(
        full.n_items, RESAMPLES, seeds.BOOTSTRAP_SEED, seeds.STREAM_BIAS
    )
    expected = rq4.evaluator_bias(full, weights)
    targets = {t["student"]: t for t in record["bias"]["targets"]}
    assert targets[evaluator]["kind"] == "self"
    assert targets[evaluator]["bias"] == pytest.approx(expected.self_bias[evaluator].delta.value)
    assert targets[evaluator]["bias_ci"] == pytest.approx(
        list(expected.self_bias[evaluator].delta.ci)
    )
    fam = next(b for b in expected.family if b.evaluator == evaluator)
    assert targets[fam.student]["kind"] == "family"
    assert targets[fam.student]["bias"] == pytest.approx(fam.delta.value)
    assert "gemma3:27b" not in record["bias"]["peers"]


def test_score_bias_absent_for_a_new_family(full: Release) -> None:
    k = full.roster.evaluator_ids.index(EVALUATOR)
    text = codes_to_rows(full, full.evaluator_labels[k], np.flatnonzero(full.is_core))
    sub = parse_submission(text.encode(), "j.csv", full)
    assert scored(full, sub, {"family": "Mistral"}, resamples=0)["bias"] is None


def test_score_confusion_disagreements_and_strata(full: Release) -> None:
    k = full.roster.evaluator_ids.index(EVALUATOR)
    labels = full.evaluator_labels[k]
    record = scored(
        full,
        parse_submission(codes_to_rows(full, labels).encode(), "j.csv", full),
        resamples=RESAMPLES,
    )
    conf = record["confusion"]["all"]
    assert sum(sum(row.values()) for row in conf.values()) == labels.size
    assert conf[vocab.RICHTIG][vocab.FALSCH] == int(((labels == 1) & (full.consensus == 0)).sum())
    # disagreements: unanimous physician panels (>= 2 substantive votes, all equal)
    p = full.physician_labels
    r, f = (p == 1).sum(0), (p == 0).sum(0)
    unanimous = ((r >= 2) & (f == 0)) | ((f >= 2) & (r == 0))
    panel = np.where(r > 0, 1, 0)
    hit = unanimous & ((labels == 0) | (labels == 1)) & (labels != panel)
    assert record["disagreements"]["n"] == int(hit.sum())
    i, s = np.argwhere(hit)[0]
    first = f"{full.item_ids[i]}/{full.roster.student_ids[s]}"
    assert record["disagreements"]["answer_ids"][0] == first
    # per-tier agreement is the same statistic restricted to the tier
    t2 = full.tier == 2
    expected = alignment.agreement(labels[t2], full.consensus[t2], full.roster.student_ids)
    assert record["by_tier"]["2"]["kappa"] == pytest.approx(expected.kappa.value, abs=1e-12)
    assert record["by_tier"]["2"]["n"] == expected.n
    lexical = full.lexical
    expected = alignment.agreement(
        labels[lexical], full.consensus[lexical], full.roster.student_ids
    )
    assert record["by_lexical"]["exact_match"]["pa"] == pytest.approx(expected.pa.value, abs=1e-12)


def test_grouped_agreement_replicates_equal_alignment(full: Release) -> None:
    core = full.is_core
    k = full.roster.evaluator_ids.index("qwen3:4b")
    labels, ref = full.evaluator_labels[k][core], full.consensus[core]
    weights = seeds.question_weights(int(core.sum()), 50, 3)
    mask = full.tier[core] <= 2
    slots = full.roster.student_ids
    out = alignment.grouped_agreement(labels, ref, {"t12": mask}, slots, weights)["t12"]
    assert out is not None
    # a subgroup bootstrapped by resampling all questions: zero weight outside the group
    expected = alignment.agreement(
        labels[mask], ref[mask], full.roster.student_ids, weights[:, mask]
    )
    assert out.kappa.value == pytest.approx(expected.kappa.value, abs=1e-12)
    assert list(out.kappa.ci) == pytest.approx(list(expected.kappa.ci), abs=1e-12)
    assert list(out.pa.ci) == pytest.approx(list(expected.pa.ci), abs=1e-12)
    assert out.n_items == int(mask.sum())


def test_score_ensembles_with_and_without_the_judge(full: Release) -> None:
    k = full.roster.evaluator_ids.index(EVALUATOR)
    text = codes_to_rows(full, full.evaluator_labels[k])
    meta = {"model_id": EVALUATOR}  # a re-run of a pool member: left out of its own pool
    record = scored(full, parse_submission(text.encode(), "j.csv", full), meta, resamples=RESAMPLES)
    ens = record["ensembles"]
    assert EVALUATOR not in ens["pool"] and len(ens["pool"]) == 6
    sizes = [p["size"] for p in ens["panels"]]
    assert sizes == [3, 5, 7]
    three = ens["panels"][0]
    assert three["with"]["members"][0] == "submission" and len(three["with"]["members"]) == 3
    assert len(three["without"]["members"]) == 3
    assert three["kappa_gain"] == pytest.approx(three["with"]["kappa"] - three["without"]["kappa"])
    assert three["helps"] == (three["kappa_gain"] > 0)
    # the chosen panel's numbers are the panel's own agreement
    pool = ens["pool"]
    members = [full.roster.evaluator_ids.index(e) for e in three["with"]["members"][1:]]
    core = full.is_core
    votes = alignment.ensemble_vote(
        np.stack([full.evaluator_labels[k][core], *full.evaluator_labels[members][:, core]])
    )
    _, kappa = rq3.macro_agreement(votes[None], full.consensus[core])
    assert three["with"]["kappa"] == kappa[0]
    assert ens["panels"][2]["without"] is None  # 7 of a 6-member pool does not exist
    assert set(pool) < set(full.roster.ensemble_pool)


def test_score_verdict_is_the_headline_of_the_two_way_differences(full: Release) -> None:
    """The verdict reads the like-for-like differences on the same resamples (questions and
    physicians), pooled by the rule of medqade.measures.verdicts, not CI overlap."""
    k = full.roster.evaluator_ids.index(EVALUATOR)
    text = codes_to_rows(full, full.evaluator_labels[k])
    record = scored(full, parse_submission(text.encode(), "j.csv", full), resamples=RESAMPLES)
    core = full.is_core
    w = seeds.question_weights(int(core.sum()), RESAMPLES, seeds.BOOTSTRAP_SEED)
    v = seeds.physician_weights(full.physician_labels.shape[0], RESAMPLES, seeds.BOOTSTRAP_SEED)
    place = in_place.judge_in_place(
        full.evaluator_labels[k][core], full.physician_labels[:, core], full.roster.student_ids, w
    )
    diff = record["physician_difference"]
    assert diff["kappa"] == place.judge.kappa.value - place.physicians.kappa.value
    two_way = place.difference("kappa", v)
    assert diff["kappa_ci"] == pytest.approx(list(two_way.ci), abs=1e-15)
    given = place.difference("kappa")  # questions only: the secondary interval
    assert diff["given_panel"]["kappa_ci"] == pytest.approx(list(given.ci), abs=1e-15)
    assert "margins" not in diff and "verdict" not in diff
    head = record["headline"]
    ext = record["extension_difference"]
    assert head["decided_on"] == "pooled" and head["margin"] == paired.DEFAULT_MARGIN
    assert head["kappa"] == pytest.approx((diff["kappa"] + ext["kappa"]) / 2, abs=1e-15)
    low, high = head["kappa_ci"]
    if low > 0:
        want = paired.ABOVE
    elif low > -0.05:
        want = paired.NON_INFERIOR if high >= 0 else paired.NON_INFERIOR_BELOW
    elif high < -0.05:
        want = paired.INFERIOR
    else:
        want = paired.BELOW if high < 0 else paired.INCONCLUSIVE
    assert record["verdict"] == want
    wide = scored(
        full, parse_submission(text.encode(), "j.csv", full), resamples=RESAMPLES, margin=1.0
    )
    # any judge is within a margin of 1 (or above the physicians)
    assert wide["verdict"] in (paired.NON_INFERIOR, paired.NON_INFERIOR_BELOW, paired.ABOVE)
    assert wide["settings"]["margin"] == 1.0


def test_score_file_same_input_same_record(
    full: Release, write: Callable[[str, str | bytes], Path]
) -> None:
    from datetime import UTC, datetime

    path = write("j.csv", judge_rows(full, EVALUATOR).to_csv(index=False))
    clock = lambda: datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)  # noqa: E731
    a = scored_file(full, path, meta={"name": "x"}, resamples=RESAMPLES, clock=clock)
    b = scored_file(full, path, meta={"name": "x"}, resamples=RESAMPLES, clock=clock)
    assert a == b
    assert a["timestamp"] == "2026-01-02T03:04:05Z"
    later = scored_file(
        full,
        path,
        meta={"name": "x"},
        resamples=RESAMPLES,
        clock=lambda: datetime(2027, 1, 1, tzinfo=UTC),
    )
    assert later["id"] == a["id"] and later["timestamp"] != a["timestamp"]
    other_seed = scored_file(full, path, meta={"name": "x"}, resamples=RESAMPLES, seed=1)
    assert other_seed["id"] != a["id"]
