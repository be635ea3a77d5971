"""Raw release in, Hugging Face dataset folder out.

``build(raw, out)`` validates the raw release, derives consensus, lexical match and difficulty
tiers, and writes exactly the folder that is uploaded to the Hub::

    OUT/README.md                          dataset card with YAML configs + features
    OUT/release.json                       roster, synthetic flag, hashes, version
    OUT/data/<config>/<split>-00000-of-00001.parquet

Nothing is written unless the whole build succeeds (the folder is assembled beside ``OUT``
and renamed at the end). The same raw release gives byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade import __version__, atomic, vocab
from medqade.card import render_card
from medqade.consensus import majority
from medqade.raw import RawRelease, load_raw_release
from medqade.schema import CONFIGS, answer_id, features

PARQUET_NAME = "{split}-00000-of-00001.parquet"
RELEASE_JSON = "release.json"


@dataclass(frozen=True)
class BuiltTables:
    """The four configs as frames (one per config, all splits; ``split`` column kept)."""

    questions: pd.DataFrame
    answers: pd.DataFrame
    ratings: pd.DataFrame
    judgments: pd.DataFrame


def derive_tables(raw: RawRelease) -> BuiltTables:
    """Compute consensus, lexical match and tiers; return the configs' rows in release order."""
    roster = raw.roster
    q = raw.questions.copy()
    q["_order"] = np.arange(len(q))
    split_of = q.set_index("question_id")["split"]
    model_rank = {m: i for i, m in enumerate(roster.student_ids)}
    q_rank = q.set_index("question_id")["_order"]

    # Difficulty: mean score over the available ratings, then tier.
    diff = raw.difficulty.assign(score=raw.difficulty["difficulty"].map(vocab.DIFFICULTY_SCORES))
    mean = diff.groupby("question_id")["score"].mean()
    q["difficulty_mean"] = q["question_id"].map(mean).astype("float64")
    tiers = vocab.tier_of(q["difficulty_mean"].to_numpy())
    q["difficulty_tier"] = pd.array([int(t) if t else None for t in tiers], dtype="Int8")

    # Votes per slot, all rounds together (the adjudicator's votes are extra votes).
    r = raw.ratings
    counts = (
        r.groupby(["question_id", "model", "label"])
        .size()
        .unstack("label", fill_value=0)
        .reindex(columns=list(vocab.LABELS), fill_value=0)
    )
    adjudicated = r[r["round"] == vocab.ADJUDICATION].groupby(["question_id", "model"]).size()

    a = raw.answers.copy()
    a["_q"] = a["question_id"].map(q_rank)
    a["_m"] = a["model"].map(model_rank)
    a = a.sort_values(["_q", "_m"]).reset_index(drop=True)
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

    # Nested questions config.
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
    rater_rank = {p: i for i, p in enumerate(roster.physicians)}
    d_sorted = raw.difficulty.assign(_r=raw.difficulty["rater"].map(rater_rank)).sort_values(
        ["question_id", "_r"]
    )
    d_nested: dict[str, list[dict[str, str]]] = {}
    for qid, rater, level in d_sorted[["question_id", "rater", "difficulty"]].itertuples(
        index=False
    ):
        d_nested.setdefault(qid, []).append({"rater": rater, "difficulty": level})
    q["answers"] = q["question_id"].map(nested)
    q["difficulty_ratings"] = q["question_id"].map(lambda x: d_nested.get(x, []))
    q["canary"] = vocab.CANARY

    ratings = (
        r.assign(
            _q=r["question_id"].map(q_rank),
            _m=r["model"].map(model_rank),
            _r=r["rater"].map(rater_rank),
            _round=r["round"].map({v: i for i, v in enumerate(vocab.ROUNDS)}),
        )
        .sort_values(["_q", "_m", "_round", "_r"])
        .reset_index(drop=True)
    )
    ratings["answer_id"] = [
        answer_id(x, m) for x, m in zip(ratings["question_id"], ratings["model"], strict=True)
    ]
    ratings["split"] = ratings["question_id"].map(split_of)
    ratings["canary"] = vocab.CANARY

    j = raw.judgments
    eval_rank = {e: i for i, e in enumerate(roster.evaluator_ids)}
    judgments = (
        j.assign(
            _q=j["question_id"].map(q_rank),
            _m=j["model"].map(model_rank),
            _e=j["evaluator"].map(eval_rank),
        )
        .sort_values(["_q", "_m", "_e"])
        .reset_index(drop=True)
    )
    judgments["answer_id"] = [
        answer_id(x, m) for x, m in zip(judgments["question_id"], judgments["model"], strict=True)
    ]
    judgments["label"] = judgments["label"].where(judgments["label"] != "", None)
    judgments["difficulty"] = judgments["difficulty"].where(judgments["difficulty"] != "", None)
    judgments["position"] = judgments["position"].astype("int8")
    judgments["split"] = judgments["question_id"].map(split_of)
    judgments["canary"] = vocab.CANARY
    return BuiltTables(q, a, ratings, judgments)


def _arrow(frame: pd.DataFrame, config: str, extras: tuple[str, ...]) -> pa.Table:
    feats = features(config, extras)
    schema = feats.arrow_schema
    table = pa.Table.from_pandas(frame[list(feats)], schema=schema, preserve_index=False)
    return table.replace_schema_metadata(schema.metadata)


def _write_parquet(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", write_statistics=True, row_group_size=8192)


def counts(tables: BuiltTables) -> dict[str, Any]:
    """Counts shown in the card and the release metadata (all computed from the data)."""
    a, q = tables.answers, tables.questions
    out: dict[str, Any] = {}
    for split in ("all", *vocab.SPLITS):
        qs = q if split == "all" else q[q["split"] == split]
        as_ = a if split == "all" else a[a["split"] == split]
        tier = qs["difficulty_tier"]
        out[split] = {
            "items": len(qs),
            "slots": len(as_),
            "exact_match_items": int(qs["lexical_match"].sum()),
            "no_match_items": int((~qs["lexical_match"]).sum()),
            "unresolved_slots": int(as_["consensus"].isna().sum()),
            "adjudicated_slots": int(as_["adjudicated"].sum()),
            "richtig_slots": int((as_["consensus"] == vocab.RICHTIG).sum()),
            "falsch_slots": int((as_["consensus"] == vocab.FALSCH).sum()),
            "ratings": int((tables.ratings["split"] == split).sum())
            if split != "all"
            else len(tables.ratings),
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
            "no_tier_items": int(tier.isna().sum()),
        }
    return out


def build(raw_dir: Path, out: Path, arrow_dir: Path | None = None) -> dict[str, Any]:
    """Build the dataset folder ``out`` from the raw release ``raw_dir``; return its metadata."""
    raw = load_raw_release(Path(raw_dir))
    tables = derive_tables(raw)
    meta: dict[str, Any] = {
        "name": "MedQADE",
        "version": __version__,
        "source_hash": raw.source_hash,
        "synthetic": raw.roster.synthetic,
        "canary": vocab.CANARY,
        "roster": raw.roster.to_dict(),
        "extra_columns": list(raw.extra_columns),
        "counts": counts(tables),
        "warnings": [str(w) for w in raw.warnings[:200]],
        "n_warnings": len(raw.warnings),
    }
    frames = {
        "questions": tables.questions,
        "answers": tables.answers,
        "ratings": tables.ratings,
        "judgments": tables.judgments,
    }
    with atomic.directory(Path(out)) as tmp:
        files: dict[str, list[str]] = {}
        for config in CONFIGS:
            extras = raw.extra_columns if config in ("questions", "answers") else ()
            for split in vocab.SPLITS:
                rel = f"data/{config}/{PARQUET_NAME.format(split=split)}"
                part = frames[config][frames[config]["split"] == split]
                _write_parquet(_arrow(part, config, extras), tmp / rel)
                files.setdefault(config, []).append(rel)
        meta["files"] = {
            rel: hashlib.sha256((tmp / rel).read_bytes()).hexdigest()
            for rels in files.values()
            for rel in rels
        }
        atomic.write_text(
            tmp / RELEASE_JSON,
            json.dumps(meta, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
        )
        atomic.write_text(tmp / "README.md", render_card(meta, raw.extra_columns))
    if arrow_dir is not None:
        export_arrow(Path(out), Path(arrow_dir))
    return meta


def export_arrow(dataset_dir: Path, arrow_dir: Path) -> None:
    """``DatasetDict.save_to_disk`` per config, for users who want Arrow directly."""
    from datasets import load_dataset

    with atomic.directory(arrow_dir) as tmp:
        for config in CONFIGS:
            load_dataset(str(dataset_dir), config).save_to_disk(str(tmp / config))
