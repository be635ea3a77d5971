"""Result records, reference rows, baselines and the leaderboard."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from medqade.dataset.release import Release, load_release
from medqade.files.problems import InputError
from medqade.measures import paired
from medqade.scoring import (
    BASELINES,
    JUDGE_COLUMNS,
    MODEL_COLUMNS,
    SCHEMA_VERSION,
    baseline_labels,
    leaderboard,
    normalise,
    parse_submission,
    prepare,
    record_id,
)
from medqade.scoring.intake.normalize import char_ngram_dice, fuzzy_ratio, token_f1
from medqade.scoring.metrics import context
from medqade.scoring.record import replicates

from ..helpers import answers_csv, codes_to_rows, reference_json, scored

CLOCK = lambda: datetime(2026, 5, 1, 12, 0, tzinfo=UTC)  # noqa: E731


@pytest.fixture(scope="module")
def references(full: Release) -> list[dict[str, Any]]:
    return reference_json(full, resamples=50, clock=CLOCK)


def test_record_has_the_documented_keys(sample: Release) -> None:
    sub = parse_submission(codes_to_rows(sample, sample.consensus).encode(), "j.csv", sample)
    record = scored(sample, sub, {"name": "x"}, resamples=20, clock=CLOCK)
    for key in (
        "schema_version", "id", "timestamp", "kind", "meta", "dataset", "scorer_version",
        "core", "full", "physician_reference", "abstention", "flags",
        "physician_difference", "extension_difference", "alt_test", "verdict", "headline",
    ):  # fmt: skip
        assert key in record
    assert record["schema_version"] == SCHEMA_VERSION
    assert set(record["dataset"]) >= {"hash", "synthetic"}
    assert set(record["core"]) >= {"kappa", "kappa_ci", "pa", "pa_ci", "pabak", "pabak_ci", "n"}
    assert set(record["core"]["slots"]) == set(sample.roster.student_ids)
    assert {"rated", "coverage", "abstention"} <= set(record["core"])
    diff = record["physician_difference"]
    assert {"primary", "inference", "given_panel", "panel_error", "n_physicians"} <= set(diff)
    assert "verdict" not in diff and "margins" not in diff  # evidence, not a verdict
    head = record["headline"]
    assert head["metric"] == "kappa" and head["margin"] == 0.05
    assert head["decided_on"] in ("pooled", "core", "extension")
    assert len(record["abstention"]["by_tier"]) == 4
    assert record["meta"] == {"name": "x", "source": "submission", "verified": False}
    json.dumps(record, allow_nan=False)  # NaN became null


def test_record_id_is_the_content_hash(sample: Release) -> None:
    text = answers_csv(sample, ["Femur", "ACC", "N. medianus", "0", "Lanz-Punkt", "Bakterien"])
    sub = parse_submission(text.encode(), "a.csv", sample)
    record = scored(sample, sub, {"name": "m"}, resamples=0, clock=CLOCK)
    assert record["id"] == record_id(record)
    assert record_id(record | {"timestamp": "other"}) == record["id"]
    assert record_id(record | {"meta": {"name": "n"}}) != record["id"]
    again = parse_submission(text.replace("\n", "\r\n").encode(), "b.csv", sample)
    assert scored(sample, again, {"name": "m"}, resamples=0, clock=CLOCK) == record
    acc = record["accuracy"]
    assert set(acc) >= {"anchored", "ci", "lower", "upper", "coverage", "pooled_anchors"}
    assert len(acc["by_tier"]) == 4 and set(acc["by_lexical"]) == {"exact_match", "no_match"}


def test_score_rejects_bad_metadata(sample: Release) -> None:
    sub = parse_submission(b"question_id,answer\nS-C01,Femur\n", "a.csv", sample)
    with pytest.raises(InputError, match="unknown metadata key"):
        scored(sample, sub, {"colour": "blue"}, resamples=0)
    with pytest.raises(ValueError, match="resamples"):
        scored(sample, sub, {}, resamples=-1)


def test_explicit_meta_overrides_the_header(sample: Release) -> None:
    text = '{"meta": {"name": "from file", "family": "Qwen"}}\n'
    text += '{"question_id": "S-C01", "answer": "Femur"}\n'
    sub = parse_submission(text.encode(), "a.jsonl", sample)
    record = scored(sample, sub, {"name": "from form"}, resamples=0)
    assert record["meta"]["name"] == "from form" and record["meta"]["family"] == "Qwen"


def test_reference_records_cover_the_paper(full: Release, references: list[dict[str, Any]]) -> None:
    sources = [r["meta"]["source"] for r in references]
    assert sources.count("paper") == 9 + 5
    assert sources.count("physicians") == 1
    assert sources.count("baseline") == len(BASELINES)
    physicians = next(r for r in references if r["meta"]["source"] == "physicians")
    assert physicians["kind"] == "judge" and "physician_reference" in physicians["flags"]
    students = [r for r in references if r["kind"] == "answers"]
    assert [r["meta"]["model_id"] for r in students] == list(full.roster.student_ids)
    for slot, rec in enumerate(students):
        c = full.consensus[:, slot]
        assert rec["accuracy"]["anchored"] == int((c == 1).sum()) / int((c >= 0).sum())
    assert all(r["id"] == record_id(r) for r in references)


def test_reference_evaluator_equals_its_submission(
    full: Release, references: list[dict[str, Any]]
) -> None:
    k = 3
    evaluator = full.roster.evaluators[k]
    rec = next(
        r for r in references if r["meta"].get("model_id") == evaluator.id and r["kind"] == "judge"
    )
    sub = parse_submission(codes_to_rows(full, full.evaluator_labels[k]).encode(), "j.csv", full)
    assert sub.content_hash == rec["submission"]["content_hash"]
    mine = scored(full, sub, {"model_id": evaluator.id}, resamples=50)
    assert mine["core"] == rec["core"] and mine["full"] == rec["full"]


def test_baseline_labels(sample: Release) -> None:
    exact = baseline_labels(sample, BASELINES[0])
    expected = sample.answers["exact_match"].to_numpy().reshape(6, 5)
    assert (exact == expected.astype(np.int8)).all()
    normalised = baseline_labels(sample, BASELINES[1])
    assert (normalised >= exact).all()


def test_normalise_and_similarities() -> None:
    assert normalise("„Die  Straße.“", strip_articles=True) == "strasse"
    assert normalise("die", strip_articles=True) == "die"
    assert normalise("ＦＥＭＵＲ") == "femur"  # NFKC full-width
    assert token_f1("Nervus medianus", "Nervus ulnaris") == 0.5
    assert token_f1("", "x") == 0.0
    assert char_ngram_dice("Femur", "Femur") == 1.0
    assert 0 < char_ngram_dice("Femur", "Femora") < 1
    assert fuzzy_ratio("McBurney-Punkt", "mcburney punkt") > 0.9


def test_leaderboard_tables(full: Release, references: list[dict[str, Any]]) -> None:
    board = leaderboard(references, view="core")
    judges, models = board.judges_frame(), board.models_frame()
    assert tuple(judges.columns) == JUDGE_COLUMNS and tuple(models.columns) == MODEL_COLUMNS
    assert len(judges) == 9 + 1 + len(BASELINES) and len(models) == 5
    assert (judges["kappa"].diff().dropna() <= 0).all()  # best first
    physicians = judges[judges["source"] == "physicians"].iloc[0]
    assert physicians["status"] == "reference" and pd.isna(physicians["rank"])
    ranked = judges[(judges["status"] == "verified") & (judges["source"] != "baseline")]
    assert ranked["rank"].iloc[0] == 1 and ranked["rank"].notna().all()
    assert judges[judges["source"] == "baseline"]["rank"].isna().all()  # shown, not ranked
    board = leaderboard(references, view="full")
    full_judges, full_models = board.judges_frame(), board.models_frame()
    ceiling = full_judges[full_judges["source"] == "physicians"]
    assert list(ceiling["scope"]) == ["core"] and len(full_models) == 5
    with pytest.raises(ValueError, match="view"):
        leaderboard(references, view="all")


def test_leaderboard_never_ranks_unverified_or_flagged(
    full: Release, references: list[dict[str, Any]]
) -> None:
    k = full.roster.evaluator_ids.index("gpt-5.4-mini")
    sub = parse_submission(codes_to_rows(full, full.evaluator_labels[k]).encode(), "j.csv", full)
    mine = scored(full, sub, {"name": "unverified run"}, resamples=50)
    copy = parse_submission(codes_to_rows(full, full.consensus).encode(), "c.csv", full)
    cheat = scored(full, copy, {"name": "copy", "verified": True}, resamples=50)
    judges = leaderboard([*references, mine, mine, cheat]).judges_frame()
    assert list(judges["name"]).count("unverified run") == 1  # same id once
    row = judges[judges["name"] == "unverified run"].iloc[0]
    assert row["status"] == "unverified" and pd.isna(row["rank"])
    top = judges.iloc[0]
    assert top["name"] == "copy" and top["status"] == "above_physician_ceiling"
    assert pd.isna(top["rank"])


def _pair_se(reps: dict[str, np.ndarray], a: str, b: str) -> float:
    both = ~np.isnan(reps[a]) & ~np.isnan(reps[b])
    return float(np.std(reps[a][both] - reps[b][both], ddof=1)) if both.sum() > 1 else math.nan


def _simultaneous_critical(est: dict[str, float], reps: dict[str, np.ndarray]) -> float:
    """Studentized max-T written out over pairs: the 95% quantile over resamples of the
    largest |(rep_a - rep_b) - (est_a - est_b)| / se_ab over every pair of ranked rows."""
    ids = list(est)
    stat = np.full(len(reps[ids[0]]), -np.inf)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            se = _pair_se(reps, a, b)
            if not se > 1e-12:
                continue
            centred = np.abs(reps[a] - reps[b] - (est[a] - est[b])) / se
            stat = np.maximum(stat, np.where(np.isnan(centred), -np.inf, centred))
    return float(np.quantile(stat[np.isfinite(stat)], 0.95))


@pytest.mark.parametrize("metric", ["kappa", "pa"])
def test_leaderboard_rank_interval_from_simultaneous_intervals(
    references: list[dict[str, Any]], metric: str
) -> None:
    """Done when: rank = 1 + the ranked rows significantly better, rank_worst = K - the rows
    significantly worse, each pair judged by its simultaneous (studentized max-T) 95% interval;
    the string baselines are shown without a rank."""
    board = leaderboard(references, metric=metric)
    judges, models = board.judges_frame(), board.models_frame()
    by_id = {r["id"]: r for r in references}
    for frame, view_metric in ((judges, metric), (models, "accuracy")):
        ranked = frame[frame["rank"].notna()]
        assert len(ranked) >= 5 and ranked["rank_worst"].notna().all()
        reps = {rid: replicates.of_record(by_id[rid], "core", view_metric) for rid in ranked["id"]}
        est = dict(zip(ranked["id"], ranked[view_metric].astype(float), strict=True))
        crit = _simultaneous_critical(est, reps)
        k = len(ranked)
        for rid, best, worst in zip(
            ranked["id"], ranked["rank"], ranked["rank_worst"], strict=True
        ):
            se = {o: _pair_se(reps, rid, o) for o in est if o != rid}
            better = sum(1 for o in se if (est[o] - est[rid]) / se[o] > crit)
            lower = sum(1 for o in se if (est[rid] - est[o]) / se[o] > crit)
            assert (best, worst) == (1 + better, k - lower)
    assert judges[judges["source"] == "baseline"]["rank"].isna().all()
    # the paper judges do not all share rank 1 (they did with overlap tiers)
    paper = judges[judges["source"] == "paper"]
    assert paper["rank"].nunique() > 1
    # the physician reference is shown, never ranked, and the verdict comes from the library
    ceiling = judges[judges["status"] == "reference"].iloc[0]
    assert pd.isna(ceiling["rank"]) and pd.isna(ceiling["verdict"])


def test_leaderboard_full_view_keeps_the_core_ceiling(references: list[dict[str, Any]]) -> None:
    judges = leaderboard(references, view="full").judges_frame()
    ceiling = judges[judges["status"] == "reference"]
    assert len(ceiling) == 1 and ceiling.iloc[0]["scope"] == "core"
    paper = judges[judges["source"] == "paper"]
    assert set(paper["scope"]) == {"full"}
    assert paper["verdict"].notna().all()  # the core verdict is shown in the full view too


def test_leaderboard_margin_changes_only_the_verdict(references: list[dict[str, Any]]) -> None:
    strict = leaderboard(references, margin=0.0).judges_frame()
    loose = leaderboard(references, margin=1.0).judges_frame()
    assert list(strict["rank"].fillna(-1)) == list(loose["rank"].fillna(-1))
    judged = loose[loose["source"] == "paper"]
    # within a margin of 1 every judge is non-inferior (possibly also below, or above)
    assert set(judged["verdict"]) <= {paired.ABOVE, paired.NON_INFERIOR, paired.NON_INFERIOR_BELOW}
    assert paired.NON_INFERIOR in set(judged["verdict"])
    with pytest.raises(ValueError, match="margin"):
        leaderboard(references, margin=-0.1)


def test_leaderboard_models_use_bounds_for_rank(
    full: Release, references: list[dict[str, Any]]
) -> None:
    rng = np.random.default_rng(0)
    answers = [
        a if rng.random() < 0.6 else f"neu {i}" for i, a in enumerate(full.answer_text[:, 0])
    ]
    sub = parse_submission(answers_csv(full, answers).encode(), "a.csv", full)
    settings = references[0]["settings"]
    rec = scored(
        full,
        sub,
        {"name": "new", "verified": True},
        resamples=settings["resamples"],
        seed=settings["seed"],
    )
    models = leaderboard([*references, rec]).models_frame()
    row = models[models["name"] == "new"].iloc[0]
    assert row["lower"] < row["accuracy"] < row["upper"]
    assert row["coverage"] == pytest.approx(rec["accuracy_core"]["coverage"])
    assert row["status"] == "verified" and not pd.isna(row["rank"])


def test_prepare_fills_the_caches_without_changing_results(sample_dir: Path) -> None:
    fresh = load_release(sample_dir)
    text = codes_to_rows(fresh, fresh.consensus).encode()
    before = scored(fresh, parse_submission(text, "j.csv", fresh), resamples=30, clock=CLOCK)
    context.clear(fresh)
    prepare(fresh, resamples=30)
    after = scored(fresh, parse_submission(text, "j.csv", fresh), resamples=30, clock=CLOCK)
    assert before == after


def test_a_record_of_the_old_schema_is_stale(references: list[dict[str, Any]]) -> None:
    """A schema-1 record (abstentions dropped pairwise, the old verdict) is shown, marked
    stale, with neither rank nor verdict, and the fresh rows are ranked without it."""
    paper = next(r for r in references if (r.get("meta") or {}).get("source") == "paper")
    old = dict(paper, schema_version=1, id="old-" + str(paper["id"]))
    old["meta"] = dict(paper["meta"], name="old row")
    judges = leaderboard([*references, old]).judges_frame()
    row = judges[judges["name"] == "old row"].iloc[0]
    assert row["status"] == "stale"
    assert pd.isna(row["rank"]) and pd.isna(row["verdict"]) and pd.isna(row["d"])
    fresh = leaderboard(references).judges_frame()
    ranked = judges[judges["name"] != "old row"]
    assert list(ranked["rank"].fillna(-1)) == list(fresh["rank"].fillna(-1))


def test_every_metric_board_gives_every_row_the_same_verdict(
    references: list[dict[str, Any]],
) -> None:
    """The verdict is decided on kappa: ranking on PA or PABAK changes the order, never the
    word, at any margin."""
    for margin in (0.0, 0.02, 0.05, 0.2):
        words = []
        for metric in ("kappa", "pa", "pabak"):
            board = leaderboard(references, metric=metric, margin=margin).judges_frame()
            words.append(dict(zip(board["id"], board["verdict"], strict=True)))
            assert set(board["margin"].dropna()) <= {margin}
        assert words[0] == words[1] == words[2]
