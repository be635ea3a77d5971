"""Held-out labels: which items a build withholds, and what it withholds of them.

``medqade build --hold-out N --private-out PRIVATE`` publishes every item's question,
reference answer and five answers, but for ``N`` items not their labels: the physicians'
votes, the consensus, the adjudication flag, the ratings and the difficulty (mean, tier and the
physicians' difficulty ratings). Those go to the private part (:mod:`medqade.dataset.private_part`),
which only the leaderboard's maintainers hold; a judge that has seen the public consensus
cannot have seen these.

**Which items** (:func:`choose`, deterministic for a seed): the items are grouped into strata by
split and difficulty tier (``core``/``extension`` x tier 1-4 or no tier). Each stratum gets
``N * n_s / n`` items, rounded down; the items left over go one each to the strata with the
largest remainders (ties: the earlier stratum, in split order then tier order, no tier last).
Within stratum ``s`` (0-based, in that order) the items are the first ``k_s`` of a permutation
drawn by ``numpy.random.default_rng([seed, s]).permutation`` of the stratum's items in release
order. Core items are held out like any other: the core is where every physician rated every
answer, so the check of a copied consensus needs them.

**What is withheld** (:func:`withhold`): in ``questions`` the difficulty columns and each
nested answer's labels are null and ``difficulty_ratings`` is empty; in ``answers`` the votes,
``consensus``, ``adjudicated`` and ``difficulty_tier`` are null; the ``ratings`` and
``reviews`` rows of the item are not published (a review names a disagreement between the
physicians and a judge). ``judge_hub`` lists resolved answers only, so it leaves the item out.
The judges' ``judgments`` stay: they are model outputs, not labels. A boolean column
``held_out`` in ``questions`` and ``answers`` says which rows are held out.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from medqade import vocab
from medqade.dataset.derive import BuiltTables

__all__ = [
    "ANSWER_LABELS",
    "DEFAULT_SEED",
    "HELD_OUT",
    "QUESTION_LABELS",
    "VOTES",
    "HoldOut",
    "PrivateTables",
    "allocate",
    "choose",
    "public_data_hash",
    "withhold",
]

HELD_OUT: Final = "held_out"
"""The boolean column of ``questions`` and ``answers`` that marks a held-out row."""
DEFAULT_SEED: Final = 35
"""The hold-out seed when ``--hold-out-seed`` is not given."""
VOTES: Final = ("votes_richtig", "votes_falsch", "votes_keine_angabe")
ANSWER_LABELS: Final = (*VOTES, "consensus", "adjudicated", "difficulty_tier")
"""The ``answers`` columns a held-out row publishes as null."""
SLOT_LABELS: Final = (*VOTES, "consensus", "adjudicated")
"""The fields of each nested answer in ``questions`` that a held-out row publishes as null."""
QUESTION_LABELS: Final = ("difficulty_mean", "difficulty_tier", "difficulty_ratings")
"""The ``questions`` columns a held-out row withholds (``difficulty_ratings`` is empty)."""
NO_TIER: Final = 0


@dataclass(frozen=True)
class HoldOut:
    """A hold-out: ``items`` items chosen with ``seed`` (:func:`choose`)."""

    items: int
    seed: int = DEFAULT_SEED

    def __post_init__(self) -> None:
        for name in ("items", "seed"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"hold-out {name} must be a non-negative integer, got {value!r}")
        if self.items == 0:
            raise ValueError("hold-out items must be at least 1 (omit --hold-out to hold none)")


def _strata(questions: pd.DataFrame) -> list[tuple[str, int, npt.NDArray[np.int64]]]:
    """``(split, tier, positions)`` of every non-empty stratum, in the documented order."""
    tier = questions["difficulty_tier"].fillna(NO_TIER).to_numpy(dtype=np.int64)
    split = questions["split"].to_numpy(dtype=object)
    out = []
    for s in vocab.SPLITS:
        for t in (*vocab.TIERS, NO_TIER):
            pos = np.flatnonzero((split == s) & (tier == t))
            if len(pos):
                out.append((s, t, pos))
    return out


def allocate(sizes: npt.ArrayLike, n: int) -> npt.NDArray[np.int64]:
    """Proportional allocation of ``n`` over strata of ``sizes`` by largest remainder (ties to
    the earlier stratum); every stratum gets at most its size."""
    size = np.asarray(sizes, dtype=np.int64)
    total = int(size.sum())
    if not 0 <= n <= total:
        raise ValueError(f"cannot hold out {n} of {total} items")
    exact = size * n / total if total else np.zeros(len(size))
    base = np.floor(exact).astype(np.int64)
    left = n - int(base.sum())
    order = np.lexsort((np.arange(len(size)), -(exact - base)))  # largest remainder first
    base[order[:left]] += 1
    return base


def choose(questions: pd.DataFrame, hold_out: HoldOut) -> npt.NDArray[np.bool_]:
    """The held-out items of ``questions`` (built, release order) as a mask (module docstring)."""
    if hold_out.items > len(questions):
        raise ValueError(
            f"--hold-out {hold_out.items}: the release has only {len(questions)} items"
        )
    strata = _strata(questions)
    quota = allocate([len(pos) for _, _, pos in strata], hold_out.items)
    mask = np.zeros(len(questions), dtype=bool)
    for k, ((_, _, pos), take) in enumerate(zip(strata, quota, strict=True)):
        picked = np.random.default_rng([hold_out.seed, k]).permutation(pos)[:take]
        mask[picked] = True
    return mask


@dataclass(frozen=True)
class PrivateTables:
    """What a hold-out withholds, per config (rows of the held-out items only, ``split`` kept).

    ``questions``: ``question_id``, ``difficulty_mean``, ``difficulty_tier``,
    ``difficulty_ratings``; ``answers``: ``answer_id``, ``question_id`` and
    :data:`ANSWER_LABELS`; ``ratings`` and ``reviews``: the config's rows as built.
    """

    questions: pd.DataFrame
    answers: pd.DataFrame
    ratings: pd.DataFrame
    reviews: pd.DataFrame | None = None

    def frames(self) -> dict[str, pd.DataFrame]:
        out = {"questions": self.questions, "answers": self.answers, "ratings": self.ratings}
        if self.reviews is not None:
            out["reviews"] = self.reviews
        return out


PRIVATE_COLUMNS: Final[Mapping[str, tuple[str, ...]]] = {
    "questions": ("question_id", *QUESTION_LABELS),
    "answers": ("answer_id", "question_id", *ANSWER_LABELS),
}
"""The columns of the private ``questions`` and ``answers`` tables (``split`` besides)."""


def withhold(tables: BuiltTables, mask: npt.NDArray[np.bool_]) -> tuple[BuiltTables, PrivateTables]:
    """The public tables (labels of the ``mask`` items null, their ratings and reviews gone,
    a ``held_out`` column) and the private ones (exactly what was withheld)."""
    q, a = tables.questions, tables.answers
    held_ids = set(q["question_id"][mask])
    q_held = mask
    a_held = a["question_id"].isin(held_ids).to_numpy()
    private = PrivateTables(
        questions=q.loc[q_held, [*PRIVATE_COLUMNS["questions"], "split"]].reset_index(drop=True),
        answers=a.loc[a_held, [*PRIVATE_COLUMNS["answers"], "split"]].reset_index(drop=True),
        ratings=_rows_of(tables.ratings, held_ids, keep=True),
        reviews=None if tables.reviews is None else _rows_of(tables.reviews, held_ids, keep=True),
    )
    pq_ = q.copy()
    pq_["difficulty_mean"] = _nulled(pq_["difficulty_mean"], q_held, "float64")
    pq_["difficulty_tier"] = _nulled(pq_["difficulty_tier"], q_held, "Int8")
    pq_["difficulty_ratings"] = pd.Series(
        [[] if h else r for h, r in zip(q_held, pq_["difficulty_ratings"], strict=True)],
        index=pq_.index,
        dtype=object,
    )
    pq_["answers"] = pd.Series(
        [
            [_blank_slot(s) for s in slots] if h else slots
            for h, slots in zip(q_held, pq_["answers"], strict=True)
        ],
        index=pq_.index,
        dtype=object,
    )
    pq_[HELD_OUT] = q_held
    pa_ = a.copy()
    for col, dtype in (*((v, "Int16") for v in VOTES), ("consensus", "object")):
        pa_[col] = _nulled(pa_[col], a_held, dtype)
    pa_["adjudicated"] = _nulled(pa_["adjudicated"], a_held, "boolean")
    pa_["difficulty_tier"] = _nulled(pa_["difficulty_tier"], a_held, "Int8")
    pa_[HELD_OUT] = a_held
    public = replace(
        tables,
        questions=pq_,
        answers=pa_,
        ratings=_rows_of(tables.ratings, held_ids, keep=False),
        reviews=None if tables.reviews is None else _rows_of(tables.reviews, held_ids, keep=False),
    )
    return public, private


def _nulled(values: pd.Series, rows: npt.NDArray[np.bool_], dtype: str) -> pd.Series:
    """``values`` as ``dtype`` (a type that holds nulls) with ``rows`` null."""
    out: pd.Series = values.astype(dtype)  # type: ignore[call-overload]  # a nullable dtype
    out.loc[rows] = None
    return out


def _blank_slot(slot: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (None if k in SLOT_LABELS else v) for k, v in slot.items()}


def _rows_of(frame: pd.DataFrame, ids: set[str], *, keep: bool) -> pd.DataFrame:
    inside = frame["question_id"].isin(ids)
    return frame[inside if keep else ~inside].reset_index(drop=True)


def public_data_hash(files: Mapping[str, str]) -> str:
    """The data hash of a public build: SHA-256 of its ``release.json`` ``files`` map (every
    Parquet file's path and SHA-256) as compact JSON with sorted keys. A private part names
    the hash of the public build it was withheld from."""
    text = json.dumps(dict(files), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
