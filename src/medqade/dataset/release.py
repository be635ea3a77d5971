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

A build with held-out labels (:mod:`medqade.dataset.holdout`) loads like any other: its
held-out items have no consensus, votes or difficulty (``-1``, tier 0), :attr:`Release.held_out`
and :attr:`Release.unlabelled` mark them, :meth:`Release.labelled` leaves them out, and
:meth:`Release.with_private` restores their labels from the private part.

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
from medqade.dataset.holdout import public_data_hash
from medqade.dataset.meta import RELEASE_JSON, ReleaseMeta
from medqade.files.problems import InputError, Problem
from medqade.schema import HELD_OUT, answer_id

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
    restored: bool = False
    """Whether the held-out labels were restored from the private part (:meth:`with_private`)."""
    public: Release | None = field(default=None, repr=False, compare=False)
    """The public build a restored release was made from (:attr:`published`)."""

    @property
    def published(self) -> Release:
        """The release as the public sees it: the public build (held-out labels withheld) of a
        restored release, else itself. What is shown item by item reads this one."""
        return self.public if self.public is not None else self

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
    def held_out(self) -> npt.NDArray[np.bool_]:
        """Per item: the public build withholds its labels (all false in a build without a
        hold-out). Stays true after :meth:`with_private` restored them (:attr:`unlabelled`)."""
        if HELD_OUT not in self.questions.columns:
            return np.zeros(self.n_items, dtype=bool)
        return self.questions[HELD_OUT].eq(True).to_numpy()

    @cached_property
    def unlabelled(self) -> npt.NDArray[np.bool_]:
        """Per item: held out and not restored, so it has no labels here at all (no consensus,
        votes, ratings or difficulty). Such an item is not *unresolved*: a statistic over
        labels leaves it out (:meth:`labelled`) and says so, never counts it as a label."""
        return self.held_out & (not self.restored)

    @property
    def withholds(self) -> bool:
        """Whether any item's labels are missing because they are held out."""
        return bool(self.unlabelled.any())

    def labelled(self) -> Release:
        """The release without its :attr:`unlabelled` items (itself when there are none)."""
        return self.subset(~self.unlabelled) if self.withholds else self

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
        flag = self.answers["adjudicated"].eq(True).to_numpy()  # null (held out): not adjudicated
        return flag.reshape(self.n_items, vocab.N_SLOTS)

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
            restored=self.restored,
        )

    def with_private(self, folder: Path) -> Release:
        """This public release with the held-out labels restored from its private part
        (``medqade build --private-out``; :mod:`medqade.dataset.private_part`).

        Refused (:class:`~medqade.files.problems.InputError`) unless the private part was
        withheld from exactly this build: its ``public_data_hash`` must be this build's
        (:func:`~medqade.dataset.holdout.public_data_hash` of ``release.json``'s files) and its
        items this build's held-out items. The result has every label of a build without the
        hold-out; :attr:`held_out` still marks the items, :attr:`restored` is true.
        """
        from medqade.dataset.private_part import read_private, restore_frames

        part = read_private(Path(folder))
        where = str(folder)
        if self.restored or not self.held_out.any():
            what = "its labels were restored already" if self.restored else "it holds none out"
            raise _mismatch(where, f"this release needs no private part ({what})")
        expected = public_data_hash(self.meta.files or {})
        if part.manifest.public_data_hash != expected:
            raise _mismatch(
                where,
                f"it was withheld from another build (data hash "
                f"{part.manifest.public_data_hash[:12]}, this build's is {expected[:12]})",
            )
        if sorted(part.manifest.all_ids) != sorted(self.item_ids[self.held_out]):
            raise _mismatch(where, "its items are not this build's held-out items")
        frames = restore_frames(
            self.questions, self.answers, self.ratings, self.reviews, part.tables, self.item_index
        )
        votes = part.tables.ratings[part.tables.ratings["round"] != vocab.RERATING]
        diff = _difficulty_long(part.tables.questions)
        slot_of = {m: s for s, m in enumerate(self.roster.student_ids)}
        labels, difficulty = self.physician_labels.copy(), self.physician_difficulty.copy()
        for base, frame, value, mapping, slots in (
            (labels, votes, "label", vocab.LABEL_CODES, slot_of),
            (difficulty, diff, "difficulty", vocab.DIFFICULTY_SCORES, None),
        ):
            found = _codes(
                frame, "rater", self.roster.physicians, self.item_index, self.n_items, value,
                dict(mapping), slots,
            )  # fmt: skip
            base[:, self.held_out] = found[:, self.held_out]
        return replace(
            self,
            questions=frames.questions,
            answers=frames.answers,
            ratings=frames.ratings,
            reviews=frames.reviews,
            physician_labels=labels,
            physician_difficulty=difficulty,
            consensus=_consensus(frames.answers, self.n_items),
            restored=True,
            public=self,
        )


def _mismatch(where: str, why: str) -> InputError:
    return InputError(
        where,
        [
            Problem(
                where,
                None,
                f"cannot restore the held-out labels: {why}",
                fix="pass the private part that `medqade build --private-out` wrote together "
                "with this public build",
            )
        ],
    )


def _difficulty_long(nested: pd.DataFrame) -> pd.DataFrame:
    """One row per (question, rater) difficulty rating of the nested ``questions`` rows."""
    return pd.DataFrame(
        [
            {"question_id": q, "rater": d["rater"], "difficulty": d["difficulty"]}
            for q, ds in zip(nested["question_id"], nested["difficulty_ratings"], strict=True)
            for d in ds
        ],
        columns=["question_id", "rater", "difficulty"],
    )


def _consensus(answers: pd.DataFrame, n_items: int) -> Codes:
    """The consensus codes (items, slots) of the ``answers`` rows (null: ``-1``)."""
    return np.asarray(
        answers["consensus"].map({vocab.RICHTIG: 1, vocab.FALSCH: 0}).fillna(-1),
        dtype=np.int8,
    ).reshape(n_items, vocab.N_SLOTS)


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
    diff_long = _difficulty_long(nested)
    consensus = _consensus(answers, n)
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
