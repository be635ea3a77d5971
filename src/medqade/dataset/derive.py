"""The configs' rows of a release, derived from the raw release: consensus, lexical match and
difficulty tiers per answer and question, every table in release order (questions as given,
then the roster's student order, round and rater), and the counts the card and
``release.json`` show. Written to Parquet by :func:`medqade.dataset.build.build`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from medqade import vocab
from medqade.consensus import majority
from medqade.dataset.hub_config import CONFIG as HUB_CONFIG
from medqade.dataset.hub_config import judge_hub_frame
from medqade.raw.reader import RawRelease
from medqade.schema import HELD_OUT, answer_id

__all__ = ["BuiltTables", "counts", "derive_tables"]


@dataclass(frozen=True)
class BuiltTables:
    """The four configs as frames (one per config, all splits; ``split`` column kept)."""

    questions: pd.DataFrame
    answers: pd.DataFrame
    ratings: pd.DataFrame
    judgments: pd.DataFrame
    reviews: pd.DataFrame | None = None
    pool: pd.DataFrame | None = None
    pool_judgments: pd.DataFrame | None = None

    def frames(self) -> dict[str, pd.DataFrame]:
        """Every config's frame, the optional ones only when present."""
        out = {
            "questions": self.questions,
            "answers": self.answers,
            "ratings": self.ratings,
            "judgments": self.judgments,
        }
        if self.reviews is not None:
            out["reviews"] = self.reviews
        if self.pool is not None and self.pool_judgments is not None:
            out["pool"] = self.pool
            out["pool_judgments"] = self.pool_judgments
        out[HUB_CONFIG] = judge_hub_frame(self.questions, self.answers)
        return out


def derive_tables(raw: RawRelease) -> BuiltTables:
    """Compute consensus, lexical match and tiers; return the configs' rows in release order."""
    roster = raw.roster
    q = raw.questions.copy()
    split_of = q.set_index("question_id")["split"]
    model_rank = {m: i for i, m in enumerate(roster.student_ids)}
    rater_rank = {p: i for i, p in enumerate(roster.physicians)}
    q_rank = pd.Series(np.arange(len(q)), index=q["question_id"].to_numpy())
    _add_difficulty(q, raw.difficulty)
    a = _derive_answers(raw, q, q_rank, model_rank, split_of)
    _nest_questions(q, a, raw.difficulty, rater_rank)
    ratings = _sorted(
        raw.ratings,
        q_rank,
        ("model", model_rank),
        ("round", {v: i for i, v in enumerate(vocab.ROUNDS)}),
        ("rater", rater_rank),
    )
    ratings["answer_id"] = [
        answer_id(x, m) for x, m in zip(ratings["question_id"], ratings["model"], strict=True)
    ]
    ratings["rated_at"] = ratings["rated_at"].where(ratings["rated_at"] != "", None)
    ratings["split"] = ratings["question_id"].map(split_of)
    ratings["canary"] = vocab.CANARY
    judgments = _derive_judgments(raw, q_rank, model_rank, split_of)
    reviews = None if raw.reviews is None else _derive_reviews(raw.reviews.frame, split_of)
    pool = pool_judgments = None
    if raw.pool is not None:
        from medqade.dataset.build_pool import derive_pool

        pool, pool_judgments = derive_pool(
            raw.pool, set(q["question_id"]), roster, raw.extra_columns
        )
    return BuiltTables(q, a, ratings, judgments, reviews, pool, pool_judgments)


def _add_difficulty(q: pd.DataFrame, difficulty: pd.DataFrame) -> None:
    """Difficulty: mean score over the available ratings, then tier (columns added to ``q``)."""
    diff = difficulty.assign(score=difficulty["difficulty"].map(vocab.DIFFICULTY_SCORES))
    mean = diff.groupby("question_id")["score"].mean()
    q["difficulty_mean"] = q["question_id"].map(mean).astype("float64")
    tiers = vocab.tier_of(q["difficulty_mean"].to_numpy())
    q["difficulty_tier"] = pd.array([int(t) if t else None for t in tiers], dtype="Int8")


def _derive_answers(
    raw: RawRelease,
    q: pd.DataFrame,
    q_rank: pd.Series,
    model_rank: dict[str, int],
    split_of: pd.Series,
) -> pd.DataFrame:
    """The ``answers`` config: votes, consensus, exact and lexical match, tier per answer slot
    (also adds ``lexical_match`` to ``q``)."""
    roster = raw.roster
    # Votes per slot, primary and adjudication together (the adjudicator's votes are extra
    # votes); a re-rating is never a vote.
    r = raw.ratings
    counts = (
        r[r["round"].isin(vocab.CONSENSUS_ROUNDS)]
        .groupby(["question_id", "model", "label"])
        .size()
        .unstack("label", fill_value=0)
        .reindex(columns=list(vocab.LABELS), fill_value=0)
    )
    adjudicated = r[r["round"] == vocab.ADJUDICATION].groupby(["question_id", "model"]).size()

    a = _sorted(raw.answers, q_rank, ("model", model_rank))
    key = pd.MultiIndex.from_frame(a[["question_id", "model"]])
    votes = counts.reindex(key, fill_value=0)
    a["answer_id"] = [answer_id(x, m) for x, m in zip(a["question_id"], a["model"], strict=True)]
    a["family"] = a["model"].map({m.id: m.family for m in roster.students})
    ref = q.set_index("question_id")["reference_answer"]
    a["exact_match"] = a["answer"].to_numpy() == a["question_id"].map(ref).to_numpy()
    a["votes_richtig"] = votes[vocab.RICHTIG].to_numpy().astype("int16")
    a["votes_falsch"] = votes[vocab.FALSCH].to_numpy().astype("int16")
    a["votes_keine_angabe"] = votes[vocab.KEINE_ANGABE].to_numpy().astype("int16")
    codes = majority(a["votes_richtig"].to_numpy(), a["votes_falsch"].to_numpy())
    a["consensus"] = pd.Series(codes).map(vocab.CODE_LABELS).astype(object)
    a.loc[codes == vocab.MISSING_CODE, "consensus"] = None
    a["adjudicated"] = adjudicated.reindex(key, fill_value=0).to_numpy() > 0
    lexical = a.groupby("question_id")["exact_match"].any()
    q["lexical_match"] = q["question_id"].map(lexical).astype(bool)
    a["lexical_match"] = a["question_id"].map(lexical).astype(bool)
    a["difficulty_tier"] = (
        a["question_id"].map(q.set_index("question_id")["difficulty_tier"]).astype("Int8")
    )
    for col in raw.extra_columns:
        a[col] = a["question_id"].map(q.set_index("question_id")[col])
    a["split"] = a["question_id"].map(split_of)
    a["canary"] = vocab.CANARY

    return a


def _nest_questions(
    q: pd.DataFrame, a: pd.DataFrame, d: pd.DataFrame, rater_rank: dict[str, int]
) -> None:
    """The nested ``questions`` config: each question's answer slots and difficulty ratings
    (columns added to ``q``)."""
    slot_cols = [
        "answer_id",
        "model",
        "family",
        "answer",
        "exact_match",
        "votes_richtig",
        "votes_falsch",
        "votes_keine_angabe",
        "consensus",
        "adjudicated",
    ]
    slots = a[["question_id", *slot_cols]].copy()
    slots["consensus"] = slots["consensus"].astype(object).where(slots["consensus"].notna(), None)
    nested: dict[str, list[dict[str, Any]]] = {}
    for rec in slots.to_dict("records"):
        slot = {str(k): v for k, v in rec.items()}
        nested.setdefault(str(slot.pop("question_id")), []).append(slot)
    d_sorted = d.iloc[np.argsort(d["rater"].map(rater_rank).to_numpy(), kind="stable")]
    d_nested: dict[str, list[dict[str, str]]] = {}
    for qid, rater, level in d_sorted[["question_id", "rater", "difficulty"]].itertuples(
        index=False
    ):
        d_nested.setdefault(qid, []).append({"rater": rater, "difficulty": level})
    q["answers"] = q["question_id"].map(nested)
    q["difficulty_ratings"] = q["question_id"].map(lambda x: d_nested.get(x, []))
    q["canary"] = vocab.CANARY


def _derive_judgments(
    raw: RawRelease, q_rank: pd.Series, model_rank: dict[str, int], split_of: pd.Series
) -> pd.DataFrame:
    """The ``judgments`` config in release order (evaluators in roster order)."""
    j = raw.judgments
    eval_rank = {e: i for i, e in enumerate(raw.roster.evaluator_ids)}
    judgments = _sorted(j, q_rank, ("model", model_rank), ("evaluator", eval_rank))
    judgments["answer_id"] = [
        answer_id(x, m) for x, m in zip(judgments["question_id"], judgments["model"], strict=True)
    ]
    judgments["label"] = judgments["label"].where(judgments["label"] != "", None)
    judgments["difficulty"] = judgments["difficulty"].where(judgments["difficulty"] != "", None)
    judgments["position"] = judgments["position"].astype("int8")
    judgments["split"] = judgments["question_id"].map(split_of)
    judgments["canary"] = vocab.CANARY
    return judgments


def _derive_reviews(frame: pd.DataFrame, split_of: pd.Series) -> pd.DataFrame:
    """The ``reviews`` config: the raw review rows with their answer id and split."""
    reviews = frame.copy()
    reviews["answer_id"] = [
        answer_id(x, m) for x, m in zip(reviews["question_id"], reviews["model"], strict=True)
    ]
    reviews["note"] = reviews["note"].where(reviews["note"] != "", None)
    reviews["split"] = reviews["question_id"].map(split_of)
    reviews["canary"] = vocab.CANARY
    return reviews


def _sorted(
    frame: pd.DataFrame, q_rank: pd.Series, *keys: tuple[str, dict[str, int]]
) -> pd.DataFrame:
    """Rows by question (release order), then by each ``(column, rank)`` in turn.

    The ranks are arrays beside the frame, never columns in it, so no column name of the
    user's can collide with a helper column.
    """
    ranks = [frame["question_id"].map(q_rank).to_numpy()]
    ranks += [frame[col].map(rank).to_numpy() for col, rank in keys]
    order = np.lexsort(tuple(reversed(ranks))) if len(frame) else np.arange(0)
    return frame.iloc[order].reset_index(drop=True)


def counts(tables: BuiltTables) -> dict[str, Any]:
    """Counts shown in the card and the release metadata (all computed from the data).

    On tables with held-out labels (:mod:`medqade.dataset.holdout`) every label count is of the
    published labels: a held-out slot is not counted as unresolved, a held-out item not as one
    without a tier; ``held_out_items`` and ``held_out_slots`` count them."""
    a, q = tables.answers, tables.questions
    withheld = HELD_OUT in q.columns
    out: dict[str, Any] = {}
    for split in ("all", *vocab.SPLITS):
        qs = q if split == "all" else q[q["split"] == split]
        as_ = a if split == "all" else a[a["split"] == split]
        q_held = _held(qs, withheld)
        a_held = _held(as_, withheld)
        tier = qs["difficulty_tier"]
        out[split] = {
            "items": len(qs),
            "slots": len(as_),
            "exact_match_items": int(qs["lexical_match"].sum()),
            "no_match_items": int((~qs["lexical_match"]).sum()),
            "unresolved_slots": int((as_["consensus"].isna() & ~a_held).sum()),
            "adjudicated_slots": int(as_["adjudicated"].sum()),
            "richtig_slots": int((as_["consensus"] == vocab.RICHTIG).sum()),
            "falsch_slots": int((as_["consensus"] == vocab.FALSCH).sum()),
            "ratings": int((tables.ratings["split"] == split).sum())
            if split != "all"
            else len(tables.ratings),
            "rerating_ratings": int(
                (
                    (tables.ratings["round"] == vocab.RERATING) & _in_split(tables.ratings, split)
                ).sum()
            ),
            "reviews": 0 if tables.reviews is None else int(_in_split(tables.reviews, split).sum()),
            "judgments": int((tables.judgments["split"] == split).sum())
            if split != "all"
            else len(tables.judgments),
            "tiers": {
                str(t): {
                    "items": int((tier == t).sum()),
                    "exact_match_items": int(((tier == t) & qs["lexical_match"]).sum()),
                }
                for t in vocab.TIERS
            },
            "no_tier_items": int((tier.isna() & ~q_held).sum()),
        }
        if withheld:  # a held-out item is neither unresolved nor without a tier: unlabelled
            out[split] |= {"held_out_items": int(q_held.sum()), "held_out_slots": int(a_held.sum())}
    return out


def _held(frame: pd.DataFrame, withheld: bool) -> pd.Series:
    """The rows of ``frame`` whose labels are held out (none in a build without a hold-out)."""
    if not withheld:
        return pd.Series(False, index=frame.index)
    return frame[HELD_OUT].astype(bool)


def _in_split(frame: pd.DataFrame, split: str) -> pd.Series:
    return frame["split"] == split if split != "all" else pd.Series(True, index=frame.index)
