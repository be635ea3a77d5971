"""The synthetic release follows the paper's design exactly where the paper gives numbers."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from medqade.dataset.build import build
from medqade.dataset.release import Release
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic import load_facts, synthesize
from medqade.synthetic.draws import extension_pairs


def test_facts_count_specialties_and_variants() -> None:
    facts = load_facts()
    assert len(facts) >= 800
    assert len({f.reference.casefold() for f in facts}) >= 800
    assert len({f.specialty for f in facts}) >= 15
    for f in facts:
        assert len(f.wrong) >= 2 and len(f.vague) >= 1, f.fact_id
        assert all(q.count("___") == 1 for q in f.phrasings), f.fact_id
    text = "".join(f.reference + "".join(f.phrasings) for f in facts)
    assert any(ch in text for ch in "äöüß")


def test_items_unique_text_and_at_most_five_per_fact(synthetic: Release) -> None:
    q = synthetic.questions
    assert q["question"].is_unique
    assert Counter(q["fact_id"]).most_common(1)[0][1] <= 5
    assert {"specialty", "fact_id"} <= set(q.columns)


def test_split_and_stratum_sizes(synthetic: Release) -> None:
    q = synthetic.questions
    assert (q["split"] == "core").sum() == 200
    assert (q["split"] == "extension").sum() == 3600
    assert q.loc[q["split"] == "core", "lexical_match"].sum() == 40
    assert q.loc[q["split"] == "extension", "lexical_match"].sum() == 720


def test_lexical_match_comes_from_the_answers(synthetic: Release) -> None:
    a = synthetic.answers
    ref = synthetic.questions.set_index("question_id")["reference_answer"]
    verbatim = (a["answer"] == a["question_id"].map(ref)).groupby(a["question_id"]).any()
    lexical = synthetic.questions.set_index("question_id")["lexical_match"]
    pd.testing.assert_series_equal(verbatim.reindex(lexical.index), lexical, check_names=False)


def test_tier_counts_exact(synthetic: Release) -> None:
    q = synthetic.questions
    assert q["difficulty_tier"].value_counts().sort_index().tolist() == [1802, 1266, 572, 160]
    exact = q[q["lexical_match"]]["difficulty_tier"].value_counts().sort_index().tolist()
    assert exact == [489, 182, 73, 16]


def test_primary_raters_have_800_extension_items(synthetic: Release) -> None:
    r = synthetic.ratings
    ext = r[(r["split"] == "extension") & (r["round"] == "primary")]
    per_rater = ext.groupby("rater")["question_id"].nunique()
    assert per_rater.to_dict() == {f"P{i:02d}": 800 for i in range(1, 10)}
    pairs = extension_pairs(3600)
    assert (pairs[:, 0] != pairs[:, 1]).all()


def test_core_rated_by_all_ten(synthetic: Release) -> None:
    r = synthetic.ratings
    core = r[r["split"] == "core"]
    assert core.groupby("question_id")["rater"].nunique().eq(10).all()


def test_adjudicator_rates_exactly_the_unresolved_items(synthetic: Release) -> None:
    r = synthetic.ratings
    ext = r[r["split"] == "extension"]
    prim = ext[ext["round"] == "primary"]
    votes = prim.groupby(["question_id", "model", "label"]).size().unstack(fill_value=0)
    tied = votes.get("Richtig", 0) == votes.get("Falsch", 0)
    all_slots = synthetic.answers.loc[synthetic.answers["split"] == "extension"]
    tied = tied.reindex(
        pd.MultiIndex.from_frame(all_slots[["question_id", "model"]]), fill_value=True
    )
    needs = set(tied[tied].index.get_level_values(0))
    adjudicated = ext[ext["round"] == "adjudication"]
    assert set(adjudicated["question_id"]) == needs
    assert set(adjudicated["rater"]) == {"P10"}
    per_item = adjudicated.groupby("question_id")["model"].nunique()
    # P10 rates all five answers; a rating can be missing at the small missing-rating rate.
    assert (per_item == 5).mean() > 0.98
    assert per_item.ge(3).all()


def test_missing_ratings_occur_at_a_small_rate(synthetic: Release) -> None:
    core = synthetic.physician_labels[:, synthetic.is_core]
    share = (core < 0).mean()
    assert 0 < share < 0.01


def test_synthetic_flag_travels_with_the_data(synthetic_raw: Path, synthetic_build: Path) -> None:
    assert json.loads((synthetic_raw / "roster.json").read_text("utf-8"))["synthetic"] is True
    meta = json.loads((synthetic_build / "release.json").read_text("utf-8"))
    assert meta["synthetic"] is True
    card = (synthetic_build / "README.md").read_text("utf-8")
    assert "SYNTHETIC DATA" in card and "medqade_synthetic: true" in card


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_same_seed_gives_byte_identical_release(
    tmp_path: Path, synthetic_raw: Path, synthetic_build: Path
) -> None:
    raw = synthesize(tmp_path / "raw", seed=SYNTHETIC_SEED)
    assert _digest(raw) == _digest(synthetic_raw)
    build(raw, tmp_path / "build")
    assert _digest(tmp_path / "build") == _digest(synthetic_build)


def test_other_seed_gives_other_release(tmp_path: Path, synthetic_raw: Path) -> None:
    raw = synthesize(tmp_path / "raw", seed=SYNTHETIC_SEED + 1)
    assert (raw / "answers.csv").read_bytes() != (synthetic_raw / "answers.csv").read_bytes()
