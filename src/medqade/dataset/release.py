"""A built MedQADE dataset, loaded once into frames and dense label arrays.

:class:`Release` is what the analyses, the scorer and the Space work on. Items are ordered as
in the dataset (core first, then extension); slots follow the roster's student order. Label
arrays use the codes of :mod:`medqade.vocab` (``-1`` missing, ``0`` Falsch, ``1`` Richtig,
``2`` Keine Angabe)::

    physician_labels      (physicians, items, 5)  every physician vote (primary, adjudication;
                                                  re-ratings stay in ``ratings`` only)
    physician_difficulty  (physicians, items)     -1 missing, else 0/1/2
    evaluator_labels      (evaluators, items, 5)
    evaluator_difficulty  (evaluators, items)
    consensus             (items, 5)              -1 unresolved, else 0/1

The loader knows only build folders and Hub repos; :mod:`medqade.dataset.sources` turns a ``--data``
argument into one (and builds the synthetic default).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow.parquet as pq

from medqade import vocab
from medqade.dataset.meta import RELEASE_JSON, ReleaseMeta
from medqade.schema import answer_id

Codes = npt.NDArray[np.int8]
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
"""Seed of the embedded synthetic release (the simulated data; bootstraps use
:data:`medqade.measures.seeds.BOOTSTRAP_SEED`)."""


@dataclass(frozen=True, eq=False)
class Release:
    """A loaded dataset: flat frames plus dense code arrays (see the module docstring)."""

    roster: vocab.Roster
    meta: ReleaseMeta
    questions: pd.DataFrame
    answers: pd.DataFrame
    ratings: pd.DataFrame
    judgments: pd.DataFrame
    physician_labels: Codes = field(repr=False)
    physician_difficulty: Codes = field(repr=False)
    evaluator_labels: Codes = field(repr=False)
    evaluator_difficulty: Codes = field(repr=False)
    consensus: Codes = field(repr=False)
    reviews: pd.DataFrame | None = None
    """The optional ``reviews`` config (``None`` when the release has none)."""
    hub_revision: str | None = None
    """The dataset commit a release loaded from the Hub was read at (``None`` otherwise)."""
    hub_id: str | None = None
    """The Hub repo a release was loaded from (``None`` for a local build): a submitted
    Inspect log that names a Hub dataset must name this one."""

    @property
    def synthetic(self) -> bool:
        return self.meta.is_synthetic

    @property
    def data_hash(self) -> str:
        return self.meta.source_hash or ""

    @property
    def n_items(self) -> int:
        return len(self.questions)

    @cached_property
    def item_ids(self) -> npt.NDArray[np.str_]:
        return self.questions["question_id"].to_numpy(dtype=str)

    @cached_property
    def is_core(self) -> npt.NDArray[np.bool_]:
        return (self.questions["split"] == vocab.CORE).to_numpy()

    @cached_property
    def tier(self) -> npt.NDArray[np.int8]:
        """Tier 1-4 per item, 0 when the item has no difficulty rating."""
        return self.questions["difficulty_tier"].fillna(0).to_numpy(dtype=np.int8)

    @cached_property
    def lexical(self) -> npt.NDArray[np.bool_]:
        return self.questions["lexical_match"].to_numpy(dtype=bool)

    @cached_property
    def item_index(self) -> dict[str, int]:
        return {q: i for i, q in enumerate(self.item_ids)}

    @cached_property
    def slot_index(self) -> dict[str, tuple[int, int]]:
        """``answer_id`` -> (item, slot)."""
        return {
            answer_id(q, m): (i, s)
            for i, q in enumerate(self.item_ids)
            for s, m in enumerate(self.roster.student_ids)
        }

    @cached_property
    def answer_text(self) -> npt.NDArray[np.object_]:
        return self.answers["answer"].to_numpy(dtype=object).reshape(self.n_items, vocab.N_SLOTS)

    @cached_property
    def adjudicated(self) -> npt.NDArray[np.bool_]:
        return self.answers["adjudicated"].to_numpy(dtype=bool).reshape(self.n_items, vocab.N_SLOTS)

    def subset(self, mask: npt.NDArray[np.bool_]) -> Release:
        """The release restricted to the items where ``mask`` is true (e.g. ``release.is_core``)."""
        keep = self.questions["question_id"][mask]
        ids = set(keep)
        return Release(
            roster=self.roster,
            meta=self.meta,
            questions=self.questions[mask].reset_index(drop=True),
            answers=self.answers[np.repeat(mask, vocab.N_SLOTS)].reset_index(drop=True),
            ratings=self.ratings[self.ratings["question_id"].isin(ids)].reset_index(drop=True),
            judgments=self.judgments[self.judgments["question_id"].isin(ids)].reset_index(
                drop=True
            ),
            physician_labels=self.physician_labels[:, mask],
            physician_difficulty=self.physician_difficulty[:, mask],
            evaluator_labels=self.evaluator_labels[:, mask],
            evaluator_difficulty=self.evaluator_difficulty[:, mask],
            consensus=self.consensus[mask],
            reviews=None
            if self.reviews is None
            else self.reviews[self.reviews["question_id"].isin(ids)].reset_index(drop=True),
            hub_id=self.hub_id,
        )


def _read_config(folder: Path, config: str) -> pd.DataFrame:
    parts = []
    for split in vocab.SPLITS:
        files = sorted((folder / "data" / config).glob(f"{split}-*.parquet"))
        for f in files:
            frame = pq.read_table(f).to_pandas()
            frame["split"] = split
            parts.append(frame)
    if not parts:
        raise FileNotFoundError(
            f"{folder}: no Parquet files for config {config!r}; is this a MedQADE build?"
        )
    return pd.DataFrame(pd.concat(parts, ignore_index=True))


def _codes(
    frame: pd.DataFrame,
    row_key: str,
    rows: tuple[str, ...],
    item_index: dict[str, int],
    n_items: int,
    value: str,
    mapping: dict[str, int],
    slot_of: dict[str, int] | None,
) -> Codes:
    shape = (len(rows), n_items) if slot_of is None else (len(rows), n_items, vocab.N_SLOTS)
    out = np.full(shape, vocab.MISSING_CODE, dtype=np.int8)
    if frame.empty:
        return out
    r = frame[row_key].map({k: i for i, k in enumerate(rows)}).to_numpy()
    i = frame["question_id"].map(item_index).to_numpy()
    v = frame[value].map(mapping).to_numpy()
    ok = ~(pd.isna(r) | pd.isna(i) | pd.isna(v))
    idx: tuple[Any, ...] = (r[ok].astype(int), i[ok].astype(int))
    if slot_of is not None:
        s = frame["model"].map(slot_of).to_numpy()
        ok2 = ~pd.isna(s[ok])
        idx = (idx[0][ok2], idx[1][ok2], s[ok][ok2].astype(int))
        v = v[ok][ok2]
    else:
        v = v[ok]
    out[idx] = v.astype(np.int8)
    return out


def load_release(folder: Path) -> Release:
    """Load a build folder (as written by :func:`medqade.dataset.build.build`)."""
    folder = Path(folder)
    meta_path = folder / RELEASE_JSON
    if not meta_path.exists():
        raise FileNotFoundError(
            f"{folder}: no {RELEASE_JSON}; pass a folder written by `medqade build`"
        )
    meta = read_meta(folder)
    return _assemble(meta, lambda config: _read_config(folder, config))


def read_meta(folder: Path) -> ReleaseMeta:
    """The ``release.json`` of the build ``folder``, checked to be a MedQADE build's."""
    return _read_meta_file(Path(folder) / RELEASE_JSON)


def _read_meta_file(path: Path) -> ReleaseMeta:
    return ReleaseMeta.from_json(path.read_bytes(), str(path))


def load_hub_release(repo_id: str) -> Release:
    """Load a published release from the Hub with ``datasets.load_dataset(repo_id, config)``.

    The four configs come through ``load_dataset`` (so the card's YAML ``configs`` are what is
    read); ``release.json`` (roster, hashes, synthetic flag) through ``hf_hub_download``.
    """
    from datasets import load_dataset
    from huggingface_hub import hf_hub_download

    meta_file = hf_hub_download(repo_id=repo_id, filename=RELEASE_JSON, repo_type="dataset")
    meta = _read_meta_file(Path(meta_file))
    snapshot = Path(meta_file).parent.name  # the Hub cache keeps files under snapshots/<commit>
    revision = snapshot if re.fullmatch(r"[0-9a-f]{40}", snapshot) else None

    def read(config: str) -> pd.DataFrame:
        dd = load_dataset(repo_id, config)
        parts = [dd[split].to_pandas().assign(split=split) for split in vocab.SPLITS if split in dd]
        return pd.DataFrame(pd.concat(parts, ignore_index=True))

    return replace(_assemble(meta, read), hub_revision=revision, hub_id=repo_id)


def _assemble(meta: ReleaseMeta, read: Callable[[str], pd.DataFrame]) -> Release:
    """Frames and dense arrays from the release metadata and a reader of the four configs."""
    roster = meta.parsed_roster
    nested = read("questions")
    questions = nested.drop(columns=["answers", "difficulty_ratings"])
    answers = read("answers")
    ratings = read("ratings")
    judgments = read("judgments")
    reviews = read("reviews") if "reviews" in meta.configs else None
    votes = ratings[ratings["round"] != vocab.RERATING]
    ids = questions["question_id"].tolist()
    item_index = {q: i for i, q in enumerate(ids)}
    n = len(ids)
    slot_of = {m: s for s, m in enumerate(roster.student_ids)}
    expected = [answer_id(q, m) for q in ids for m in roster.student_ids]
    if answers["answer_id"].tolist() != expected:
        answers = answers.set_index("answer_id").loc[expected].reset_index()
    diff_long = pd.DataFrame(
        [
            {"question_id": q, "rater": d["rater"], "difficulty": d["difficulty"]}
            for q, ds in zip(nested["question_id"], nested["difficulty_ratings"], strict=True)
            for d in ds
        ],
        columns=["question_id", "rater", "difficulty"],
    )
    consensus: Codes = np.asarray(
        answers["consensus"].map({vocab.RICHTIG: 1, vocab.FALSCH: 0}).fillna(-1),
        dtype=np.int8,
    ).reshape(n, vocab.N_SLOTS)
    label_map = dict(vocab.LABEL_CODES)
    return Release(
        roster=roster,
        meta=meta,
        questions=questions,
        answers=answers,
        ratings=ratings,
        judgments=judgments,
        physician_labels=_codes(
            votes, "rater", roster.physicians, item_index, n, "label", label_map, slot_of
        ),
        physician_difficulty=_codes(
            diff_long,
            "rater",
            roster.physicians,
            item_index,
            n,
            "difficulty",
            dict(vocab.DIFFICULTY_SCORES),
            None,
        ),
        evaluator_labels=_codes(
            judgments, "evaluator", roster.evaluator_ids, item_index, n, "label", label_map, slot_of
        ),
        evaluator_difficulty=_codes(
            judgments[judgments["position"] == 1],
            "evaluator",
            roster.evaluator_ids,
            item_index,
            n,
            "difficulty",
            dict(vocab.DIFFICULTY_SCORES),
            None,
        ),
        consensus=consensus,
        reviews=reviews,
    )
