"""The synthetic re-rating sample: 40 core items, every physician, after a washout."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd

from medqade import vocab
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic.facts import load_facts
from medqade.synthetic.rerating import (
    N_ITEMS,
    PRIMARY_END,
    SESSION_SPREAD_DAYS,
    WASHOUT_DAYS,
    rerating_rows,
)
from medqade.synthetic.simulate import simulate


def _raw_ratings(raw: Path) -> pd.DataFrame:
    return pd.read_csv(raw / "ratings.csv", dtype=str, keep_default_na=False)


def test_rerating_sample_is_forty_core_items_rated_again_by_their_raters(
    synthetic_raw: Path,
) -> None:
    r = _raw_ratings(synthetic_raw)
    again = r[r["round"] == vocab.RERATING]
    items = set(again["question_id"])
    assert len(items) == N_ITEMS and all(q.startswith("MQ-C") for q in items)
    first = r[(r["round"] == vocab.PRIMARY) & r["question_id"].isin(items)]
    key = ["question_id", "model", "rater"]
    assert sorted(map(tuple, again[key].values)) == sorted(map(tuple, first[key].values))
    assert set(again["rater"]) == set(vocab.DEFAULT_ROSTER.physicians)


def test_rerating_dates_fall_after_the_washout(synthetic_raw: Path) -> None:
    r = _raw_ratings(synthetic_raw)
    again = r[r["round"] == vocab.RERATING]
    days = {(dt.date.fromisoformat(d) - PRIMARY_END).days for d in again["rated_at"]}
    assert min(days) >= WASHOUT_DAYS and max(days) < WASHOUT_DAYS + SESSION_SPREAD_DAYS
    assert (again.groupby("rater")["rated_at"].nunique() == 1).all()  # one session each
    assert (r.loc[r["round"] != vocab.RERATING, "rated_at"] == "").all()


def test_rerating_leaves_the_simulated_tables_unchanged(synthetic_raw: Path) -> None:
    tables = simulate(load_facts(), SYNTHETIC_SEED)
    r = _raw_ratings(synthetic_raw)
    votes = r[r["round"] != vocab.RERATING].drop(columns=["rated_at"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(votes, tables["ratings"].astype(str))
    questions = pd.read_csv(synthetic_raw / "questions.csv", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(questions, tables["questions"].astype(str))


def test_rerating_rows_are_seeded_and_mostly_repeat_the_first_label() -> None:
    tables = simulate(load_facts(), SYNTHETIC_SEED)
    a = rerating_rows(tables, SYNTHETIC_SEED)
    b = rerating_rows(tables, SYNTHETIC_SEED)
    pd.testing.assert_frame_equal(a, b)
    assert not rerating_rows(tables, SYNTHETIC_SEED + 1)["question_id"].equals(a["question_id"])
    first = tables["ratings"].merge(a, on=["question_id", "model", "rater"], suffixes=("", "_r"))
    same = float((first["label"] == first["label_r"]).mean())
    assert 0.85 < same < 0.99


def test_rerating_rows_are_published_and_never_votes(synthetic_build: Path, hf_cache: Path) -> None:
    from datasets import load_dataset

    ds = load_dataset(str(synthetic_build), "ratings", split="core", cache_dir=str(hf_cache))
    frame = ds.to_pandas()
    again = frame[frame["round"] == vocab.RERATING]
    assert len(again) > 0 and again["rated_at"].notna().all()
    assert frame.loc[frame["round"] != vocab.RERATING, "rated_at"].isna().all()
    answers = load_dataset(str(synthetic_build), "answers", split="core", cache_dir=str(hf_cache))
    votes = frame[frame["round"] != vocab.RERATING]
    richtig = votes[votes["label"] == vocab.RICHTIG].groupby("answer_id").size()
    got = answers.to_pandas().set_index("answer_id")["votes_richtig"]
    assert (got == richtig.reindex(got.index, fill_value=0)).all()
