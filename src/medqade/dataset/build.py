"""Raw release in, Hugging Face dataset folder out.

``build(raw, out)`` validates the raw release, derives consensus, lexical match and difficulty
tiers, and writes exactly the folder that is uploaded to the Hub::

    OUT/README.md                          dataset card with YAML configs + features
    OUT/release.json                       roster, synthetic flag, hashes, version
    OUT/eval.yaml                          the Hub's benchmark (medqade.dataset.hub_eval)
    OUT/data/<config>/<split>-00000-of-00001.parquet

Nothing is written unless the whole build succeeds (the folder is assembled beside ``OUT`` and
swapped in at the end, see :func:`medqade.files.folder_output.directory`). ``OUT`` is replaced only
when it is empty or an earlier build (``release.json`` lists every other file in it); the build
never writes into, over or around the raw release. The same raw release gives byte-identical files.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade import __version__, vocab
from medqade.consensus import majority
from medqade.dataset.hub_config import CONFIG as HUB_CONFIG
from medqade.dataset.hub_config import judge_hub_frame
from medqade.dataset.hub_eval import EVAL_YAML, eval_yaml
from medqade.dataset.meta import RELEASE_JSON as RELEASE_JSON
from medqade.dataset.meta import ReleaseMeta
from medqade.files import atomic, folder_output
from medqade.files.folder_output import Output
from medqade.files.problems import InputError, Problem
from medqade.raw.reader import RawRelease, load_raw_release
from medqade.schema import answer_id, config_splits, features

PARQUET_NAME = "{split}-00000-of-00001.parquet"
CARD = "README.md"
BUILD_KIND = "MedQADE build"
ARROW_KIND = "MedQADE Arrow export"


def build_files(folder: Path) -> set[str] | None:
    """The files a build folder's ``release.json`` vouches for (``None``: not a build)."""
    path = Path(folder) / RELEASE_JSON
    try:
        meta = ReleaseMeta.from_json(path.read_bytes(), str(path))
    except (OSError, InputError):
        return None
    if meta.name != "MedQADE" or meta.files is None:
        return None
    return {RELEASE_JSON, CARD, EVAL_YAML, *(str(f) for f in meta.files)}


def _outputs(raw_dir: Path, out: Path, arrow_dir: Path | None) -> tuple[Output, Output | None]:
    """The build folder and the Arrow export as guarded outputs (each protects the other)."""
    raw_input = (raw_dir, "the raw release (--raw)")
    build_out = Output(
        BUILD_KIND,
        "--out",
        build_files,
        (raw_input, *(((arrow_dir, "the --arrow folder"),) if arrow_dir is not None else ())),
    )
    if arrow_dir is None:
        return build_out, None
    return build_out, Output(ARROW_KIND, "--arrow", None, (raw_input, (out, "the build (--out)")))


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


def _arrow(frame: pd.DataFrame, config: str, extras: tuple[str, ...]) -> pa.Table:
    feats = features(config, extras)
    schema = feats.arrow_schema
    try:
        table = pa.Table.from_pandas(frame[list(feats)], schema=schema, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise _unconvertible(frame, config, feats.arrow_schema, exc) from None
    return table.replace_schema_metadata(schema.metadata)


def _unconvertible(
    frame: pd.DataFrame, config: str, schema: pa.Schema, exc: Exception
) -> InputError:
    """Name the column (and a value) that Arrow could not store as its declared type."""
    problems = []
    for field in schema:
        values = frame[field.name].tolist()
        try:
            pa.array(values, type=field.type)
        except (pa.ArrowException, TypeError, ValueError) as err:
            bad = next((v for v in values if not _fits(v, field.type)), None)
            problems.append(
                Problem(
                    f"{config} table",
                    None,
                    f"cannot be stored as {field.type} ({str(err).splitlines()[0][:120]})",
                    field.name,
                    None if bad is None else repr(bad)[:80],
                    "store plain text in extra columns (no lists, objects or bytes)",
                )
            )
    if not problems:
        problems.append(Problem(f"{config} table", None, f"cannot be written ({exc})"))
    return InputError(f"build of the {config} config", problems)


def _fits(value: object, type_: pa.DataType) -> bool:
    try:
        pa.array([value], type=type_)
    except (pa.ArrowException, TypeError, ValueError):
        return False
    return True


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
            "no_tier_items": int(tier.isna().sum()),
        }
    return out


def _in_split(frame: pd.DataFrame, split: str) -> pd.Series:
    return frame["split"] == split if split != "all" else pd.Series(True, index=frame.index)


def build(
    raw_dir: Path, out: Path, arrow_dir: Path | None = None, *, space_id: str | None = None
) -> ReleaseMeta:
    """Build the dataset folder ``out`` from the raw release ``raw_dir``; return its metadata.

    ``space_id`` (``ORG/NAME``) is the leaderboard Space that ``eval.yaml`` points at.

    ``out`` (and ``arrow_dir``) are checked before anything is read: a path that is not empty
    and not an earlier build (export) of ours, or that is, contains or lies inside the raw
    release, is refused with :class:`~medqade.files.atomic.OutputRefused`.
    """
    from medqade.dataset.card import (
        render_card,  # imports ``datasets``: only commands that build pay
    )

    raw_dir, out = Path(raw_dir), Path(out)
    arrow_dir = None if arrow_dir is None else Path(arrow_dir)
    build_out, arrow_out = _outputs(raw_dir, out, arrow_dir)
    for path, output in ((out, build_out), (arrow_dir, arrow_out)):
        if path is not None and output is not None:
            folder_output.recover(path, output)
            folder_output.check_target(path, output)
    raw = load_raw_release(raw_dir)
    tables = derive_tables(raw)
    frames = tables.frames()
    pool = None
    if tables.pool is not None and tables.pool_judgments is not None:
        from medqade.dataset.build_pool import pool_counts

        pool = pool_counts(tables.pool, tables.pool_judgments)
    meta = ReleaseMeta(
        name="MedQADE",
        version=__version__,
        source_hash=raw.source_hash,
        synthetic=raw.roster.synthetic,
        canary=vocab.CANARY,
        roster=raw.roster.to_dict(),
        extra_columns=tuple(raw.extra_columns),
        counts=counts(tables),
        warnings=tuple(str(w) for w in raw.warnings[:200]),
        n_warnings=len(raw.warnings),
        configs=tuple(frames),
        codebook=None if raw.reviews is None else raw.reviews.codebook.to_dict(),
        pool=pool,
    )
    with folder_output.directory(out, build_out) as tmp:
        files: dict[str, list[str]] = {}
        for config in frames:
            extras = raw.extra_columns if config in ("questions", "answers", "pool") else ()
            for split in config_splits(config):
                rel = f"data/{config}/{PARQUET_NAME.format(split=split)}"
                part = frames[config][frames[config]["split"] == split]
                _write_parquet(_arrow(part, config, extras), tmp / rel)
                files.setdefault(config, []).append(rel)
        meta = replace(
            meta,
            files={
                rel: hashlib.sha256((tmp / rel).read_bytes()).hexdigest()
                for rels in files.values()
                for rel in rels
            },
        )
        atomic.write_text(tmp / RELEASE_JSON, meta.to_json())
        atomic.write_text(tmp / CARD, render_card(meta.to_dict(), raw.extra_columns))
        atomic.write_text(
            tmp / EVAL_YAML, eval_yaml(synthetic=meta.is_synthetic, space_id=space_id)
        )
        if arrow_dir is not None:  # from the finished build, before it is swapped in: a
            export_arrow(tmp, arrow_dir, arrow_out)  # failed export leaves --out as it was
    return meta


def export_arrow(dataset_dir: Path, arrow_dir: Path, output: Output | None = None) -> None:
    """``DatasetDict.save_to_disk`` per config, for users who want Arrow directly.

    ``arrow_dir`` is replaced only when empty or an earlier export (its marker lists every
    file); it may not be, contain or lie inside ``dataset_dir``.
    """
    from datasets import load_dataset

    if output is None:
        output = Output(ARROW_KIND, "--arrow", None, ((Path(dataset_dir), "the build"),))
    with folder_output.directory(Path(arrow_dir), output) as tmp:
        path = Path(dataset_dir) / RELEASE_JSON
        for config in ReleaseMeta.from_json(path.read_bytes(), str(path)).configs:
            load_dataset(str(dataset_dir), config).save_to_disk(str(tmp / config))
