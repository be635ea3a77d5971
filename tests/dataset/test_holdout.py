"""Held-out labels: the stratified choice against a hand count and a plain loop, and a build of
the sample (with reviews added) with a hold-out read back with pyarrow: every label column of a
held-out row is null, the private part holds exactly what was withheld, the same seed gives the
same bytes, and the public build plus its private part loads as the build without a hold-out."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from medqade import vocab
from medqade.dataset.build import build
from medqade.dataset.holdout import (
    ANSWER_LABELS,
    HoldOut,
    allocate,
    choose,
    public_data_hash,
)
from medqade.dataset.release import load_release

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
REVIEWS = (
    "question_id,model,reviewer,codes,note\n"
    "S-C01,gemma3:4b,R1,unscharf,zu vage\n"
    "S-C02,qwen3:4b,R2,treffend,\n"
)


def _parquet(folder: Path, config: str) -> pd.DataFrame:
    parts = []
    for split in vocab.SPLITS:
        for f in sorted((folder / "data" / config).glob(f"{split}*.parquet")):
            parts.append(pq.read_table(f).to_pandas().assign(split=split))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sample with two reviews, built without and with a hold-out of 3 items (twice)."""
    root = tmp_path_factory.mktemp("holdout")
    raw = root / "raw"
    shutil.copytree(SAMPLE, raw)
    (raw / "reviews.csv").write_text(REVIEWS, encoding="utf-8")
    out = {"raw": raw, "full": root / "full"}
    build(raw, out["full"])
    for name in ("a", "b"):
        out[f"pub_{name}"], out[f"priv_{name}"] = root / f"pub_{name}", root / f"priv_{name}"
        build(raw, out[f"pub_{name}"], hold_out=HoldOut(3, 7), private_out=out[f"priv_{name}"])
    return out


# --- the choice ---------------------------------------------------------------------------


def test_allocate_by_largest_remainder() -> None:
    # 7 of (10, 5, 3): exact 3.89, 1.94, 1.17 -> floors 3, 1, 1; two left, largest remainders
    assert allocate([10, 5, 3], 7).tolist() == [4, 2, 1]
    # a tie of remainders goes to the earlier stratum
    assert allocate([1, 1, 1, 1], 2).tolist() == [1, 1, 0, 0]
    assert allocate([4, 0, 6], 10).tolist() == [4, 0, 6]
    with pytest.raises(ValueError, match="cannot hold out 11 of 10"):
        allocate([4, 6], 11)


def _frame(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    tier = rng.choice([1, 2, 3, 4, 0], size=n, p=[0.3, 0.3, 0.2, 0.15, 0.05])
    return pd.DataFrame(
        {
            "question_id": [f"Q{i:03d}" for i in range(n)],
            "split": np.where(np.arange(n) < n // 5, vocab.CORE, vocab.EXTENSION),
            "difficulty_tier": pd.array([None if t == 0 else t for t in tier], dtype="Int8"),
        }
    )


def _loop_choice(frame: pd.DataFrame, n: int, seed: int) -> set[str]:
    """The documented rule written out: strata in split order then tier 1-4 then no tier."""
    strata = []
    for split in vocab.SPLITS:
        for tier in (1, 2, 3, 4, None):
            rows = [
                i
                for i, (s, t) in enumerate(
                    zip(frame["split"], frame["difficulty_tier"], strict=True)
                )
                if s == split and (pd.isna(t) if tier is None else not pd.isna(t) and t == tier)
            ]
            if rows:
                strata.append(rows)
    sizes = [len(r) for r in strata]
    exact = [n * s / sum(sizes) for s in sizes]
    take = [int(e) for e in exact]
    rest = sorted(range(len(sizes)), key=lambda k: (-(exact[k] - take[k]), k))
    for k in rest[: n - sum(take)]:
        take[k] += 1
    ids = set()
    for k, rows in enumerate(strata):
        perm = np.random.default_rng([seed, k]).permutation(np.array(rows))
        ids |= {frame["question_id"][i] for i in perm[: take[k]]}
    return ids


@pytest.mark.parametrize(("n", "seed"), [(60, 35), (61, 1), (7, 2)])
def test_choose_is_the_documented_stratified_rule(n: int, seed: int) -> None:
    frame = _frame(seed)
    mask = choose(frame, HoldOut(n, seed))
    assert mask.sum() == n
    assert set(frame["question_id"][mask]) == _loop_choice(frame, n, seed)
    assert np.array_equal(choose(frame, HoldOut(n, seed)), mask)
    assert not np.array_equal(choose(frame, HoldOut(n, seed + 1)), mask)
    # proportional: each split's share within one item of its share of the release
    core = (frame["split"] == vocab.CORE).to_numpy()
    assert abs(mask[core].sum() - n * core.mean()) <= 1 + len(vocab.TIERS)


def test_hold_out_refusals() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        HoldOut(0)
    with pytest.raises(ValueError, match="non-negative integer"):
        HoldOut(3, -1)
    with pytest.raises(ValueError, match="only 300 items"):
        choose(_frame(1), HoldOut(301))


# --- the build ----------------------------------------------------------------------------


def test_held_out_rows_carry_no_label(built: dict[str, Path]) -> None:
    questions = _parquet(built["pub_a"], "questions")
    held = set(questions.loc[questions["held_out"], "question_id"])
    assert len(held) == 3
    answers = _parquet(built["pub_a"], "answers")
    rows = answers[answers["question_id"].isin(held)]
    assert rows["held_out"].all() and len(rows) == 15
    assert not answers.loc[~answers["question_id"].isin(held), "held_out"].any()
    for col in ANSWER_LABELS:
        assert rows[col].isna().all(), col
    q_rows = questions[questions["held_out"]]
    assert q_rows["difficulty_mean"].isna().all() and q_rows["difficulty_tier"].isna().all()
    assert all(len(r) == 0 for r in q_rows["difficulty_ratings"])
    for slots in q_rows["answers"]:
        for slot in slots:
            for key in ("votes_richtig", "votes_falsch", "votes_keine_angabe"):
                assert slot[key] is None
            assert slot["consensus"] is None and slot["adjudicated"] is None
    for config in ("ratings", "reviews", "judge_hub"):
        assert not _parquet(built["pub_a"], config)["question_id"].isin(held).any(), config
    # the judges' outputs are not labels: they stay
    assert _parquet(built["pub_a"], "judgments")["question_id"].isin(held).any()


def test_private_part_holds_exactly_what_was_withheld(built: dict[str, Path]) -> None:
    full_a = _parquet(built["full"], "answers").set_index("answer_id")
    priv_a = _parquet(built["priv_a"], "answers").set_index("answer_id")
    public = _parquet(built["pub_a"], "answers").set_index("answer_id")
    assert set(priv_a.index) == set(public.index[public["held_out"]])
    for col in ANSWER_LABELS:
        pd.testing.assert_series_equal(
            priv_a[col], full_a.loc[priv_a.index, col], check_dtype=False
        )
    for config in ("ratings", "reviews"):
        full, pub, priv = (_parquet(built[k], config) for k in ("full", "pub_a", "priv_a"))
        assert len(pub) + len(priv) == len(full) and len(priv) > 0
        key = ["answer_id", "rater", "round"] if config == "ratings" else ["answer_id", "reviewer"]
        both = pd.concat([pub, priv]).sort_values(key).reset_index(drop=True)
        pd.testing.assert_frame_equal(both, full.sort_values(key).reset_index(drop=True))
    manifest = json.loads((built["priv_a"] / "medqade-private.json").read_text("utf-8"))
    meta = json.loads((built["pub_a"] / "release.json").read_text("utf-8"))
    files = json.dumps(meta["files"], sort_keys=True, separators=(",", ":"))
    assert manifest["public_data_hash"] == hashlib.sha256(files.encode()).hexdigest()
    assert manifest["public_data_hash"] == public_data_hash(meta["files"])
    assert (manifest["items"], manifest["seed"]) == (3, 7)
    assert meta["holdout"]["items"] == 3 and sum(meta["holdout"]["by_split"].values()) == 3


def test_counts_do_not_count_a_held_out_label(built: dict[str, Path]) -> None:
    full = json.loads((built["full"] / "release.json").read_text("utf-8"))["counts"]["all"]
    pub = json.loads((built["pub_a"] / "release.json").read_text("utf-8"))["counts"]["all"]
    release = load_release(built["pub_a"])
    resolved_public = int((release.consensus[~release.held_out] >= 0).sum())
    assert pub["held_out_items"] == 3 and pub["held_out_slots"] == 15
    assert pub["richtig_slots"] + pub["falsch_slots"] == resolved_public
    assert pub["unresolved_slots"] == 15 * 2 - 15 - resolved_public  # public slots only
    assert pub["items"] == full["items"] and "held_out_items" not in full
    tiers = sum(t["items"] for t in pub["tiers"].values()) + pub["no_tier_items"]
    assert tiers == pub["items"] - pub["held_out_items"]
    card = (built["pub_a"] / "README.md").read_text("utf-8")
    assert "## Held-out labels" in card and "**3 of the 6 items**" in card
    assert "## Held-out labels" not in (built["full"] / "README.md").read_text("utf-8")


def test_the_same_seed_gives_the_same_bytes(built: dict[str, Path]) -> None:
    for a, b in (("pub_a", "pub_b"), ("priv_a", "priv_b")):
        files = sorted(p.relative_to(built[a]) for p in built[a].rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(built[b]) for p in built[b].rglob("*") if p.is_file())
        for f in files:
            assert (built[a] / f).read_bytes() == (built[b] / f).read_bytes(), f


def test_public_plus_private_is_the_build_without_hold_out(built: dict[str, Path]) -> None:
    full = load_release(built["full"])
    public = load_release(built["pub_a"])
    assert public.withholds and public.unlabelled.sum() == 3
    assert (public.consensus[public.held_out] == vocab.MISSING_CODE).all()
    assert (public.physician_labels[:, public.held_out] == vocab.MISSING_CODE).all()
    assert (public.tier[public.held_out] == 0).all()
    assert public.labelled().n_items == 3 and not public.labelled().withholds
    restored = public.with_private(built["priv_a"])
    assert restored.restored and not restored.withholds
    assert np.array_equal(restored.held_out, public.held_out)
    assert restored.published is public and public.published is public  # what the public sees
    assert full.published is full and restored.subset(restored.is_core).published is not public
    for name in (
        "consensus",
        "physician_labels",
        "physician_difficulty",
        "evaluator_labels",
        "tier",
        "adjudicated",
    ):
        assert np.array_equal(getattr(restored, name), getattr(full, name)), name
    pd.testing.assert_frame_equal(restored.answers[full.answers.columns], full.answers)
    pd.testing.assert_frame_equal(restored.questions[full.questions.columns], full.questions)
    pd.testing.assert_frame_equal(restored.ratings, full.ratings)
    assert restored.reviews is not None and full.reviews is not None
    pd.testing.assert_frame_equal(restored.reviews, full.reviews)
