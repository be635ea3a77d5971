"""The private part of a build with held-out labels: its format, writer and reader.

``medqade build --hold-out N --private-out PRIVATE`` writes exactly what the public build
withholds (:mod:`medqade.dataset.holdout`) into ``PRIVATE``::

    PRIVATE/medqade-private.json                 the manifest (below)
    PRIVATE/data/questions/<split>.parquet       question_id, difficulty_mean, difficulty_tier,
                                                 difficulty_ratings
    PRIVATE/data/answers/<split>.parquet         answer_id, question_id, votes_richtig,
                                                 votes_falsch, votes_keine_angabe, consensus,
                                                 adjudicated, difficulty_tier
    PRIVATE/data/ratings/<split>.parquet         the held-out items' rows of ``ratings``
    PRIVATE/data/reviews/<split>.parquet         the same of ``reviews`` (when the build has it)

The columns have the public configs' types. The manifest is one JSON object (keys sorted):
``name`` (``"MedQADE private labels"``), ``format`` (1), ``items`` and ``seed`` of the
hold-out, ``item_ids`` (per split, in release order), ``public_data_hash`` (the public build's
:func:`medqade.dataset.holdout.public_data_hash`), ``source_hash`` (the raw release's), and
``files`` (every Parquet file with its SHA-256). The reader checks every file against it;
:meth:`medqade.dataset.release.Release.with_private` checks ``public_data_hash`` against the
public build it restores. The folder is never published (``medqade publish`` refuses it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade import vocab
from medqade.dataset.holdout import ANSWER_LABELS, PRIVATE_COLUMNS, VOTES, HoldOut, PrivateTables
from medqade.files import atomic
from medqade.files.guards import PRIVATE_MANIFEST
from medqade.files.problems import InputError, Problem
from medqade.schema import features

__all__ = [
    "FORMAT",
    "NAME",
    "PRIVATE_KIND",
    "PrivateManifest",
    "PrivatePart",
    "RestoredFrames",
    "private_files",
    "read_private",
    "restore_frames",
    "write_private",
]

NAME: Final = "MedQADE private labels"
FORMAT: Final = 1
PRIVATE_KIND: Final = "MedQADE private part"
PARQUET: Final = "data/{config}/{split}.parquet"


@dataclass(frozen=True)
class PrivateManifest:
    """The manifest of a private part (module docstring)."""

    items: int
    seed: int
    item_ids: Mapping[str, tuple[str, ...]]
    public_data_hash: str
    source_hash: str
    files: Mapping[str, str]

    @property
    def all_ids(self) -> tuple[str, ...]:
        return tuple(i for split in vocab.SPLITS for i in self.item_ids.get(split, ()))

    def to_json(self) -> str:
        data = {
            "name": NAME,
            "format": FORMAT,
            "items": self.items,
            "seed": self.seed,
            "item_ids": {s: list(ids) for s, ids in self.item_ids.items()},
            "public_data_hash": self.public_data_hash,
            "source_hash": self.source_hash,
            "files": dict(self.files),
        }
        return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: bytes, where: str) -> PrivateManifest:
        try:
            data = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _not_private(where, f"not valid UTF-8 JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("name") != NAME:
            raise _not_private(where, f"its {PRIVATE_MANIFEST} does not name {NAME!r}")
        if data.get("format") != FORMAT:
            raise _not_private(where, f"format {data.get('format')!r}, this version reads {FORMAT}")
        try:
            ids = {str(s): tuple(str(i) for i in v) for s, v in data["item_ids"].items()}
            files = {str(k): str(v) for k, v in data["files"].items()}
            return cls(
                int(data["items"]),
                int(data["seed"]),
                ids,
                str(data["public_data_hash"]),
                str(data["source_hash"]),
                files,
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _not_private(where, f"a key is missing or malformed ({exc!r})") from None


@dataclass(frozen=True)
class PrivatePart:
    """A private part read back: its manifest and the withheld rows per config."""

    manifest: PrivateManifest
    tables: PrivateTables


def _not_private(where: str, why: str) -> InputError:
    return InputError(
        where,
        [
            Problem(
                where,
                None,
                f"not the private part of a MedQADE build ({why})",
                fix="pass the folder `medqade build --hold-out N --private-out PRIVATE` wrote",
            )
        ],
    )


def private_files(folder: Path) -> set[str] | None:
    """The files a private part's manifest vouches for (``None``: not a private part)."""
    path = Path(folder) / PRIVATE_MANIFEST
    try:
        manifest = PrivateManifest.from_json(path.read_bytes(), str(path))
    except (OSError, InputError):
        return None
    return {PRIVATE_MANIFEST, *manifest.files}


def _schema(config: str, extras: tuple[str, ...]) -> pa.Schema:
    full = features(config, extras if config == "reviews" else ()).arrow_schema
    names = PRIVATE_COLUMNS.get(config, tuple(full.names))
    return pa.schema([full.field(n) for n in names])


def write_private(
    folder: Path,
    tables: PrivateTables,
    hold_out: HoldOut,
    public_data_hash: str,
    source_hash: str,
) -> PrivateManifest:
    """Write the private part into ``folder`` (a fresh temporary folder; the caller swaps it
    in) and return its manifest."""
    files: dict[str, str] = {}
    for config, frame in tables.frames().items():
        schema = _schema(config, ())
        for split in vocab.SPLITS:
            part = frame[frame["split"] == split]
            table = pa.Table.from_pandas(part[schema.names], schema=schema, preserve_index=False)
            rel = PARQUET.format(config=config, split=split)
            path = Path(folder) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(table, path, compression="zstd", write_statistics=True)
            files[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    q = tables.questions
    manifest = PrivateManifest(
        items=hold_out.items,
        seed=hold_out.seed,
        item_ids={s: tuple(q.loc[q["split"] == s, "question_id"]) for s in vocab.SPLITS},
        public_data_hash=public_data_hash,
        source_hash=source_hash,
        files=files,
    )
    atomic.write_text(Path(folder) / PRIVATE_MANIFEST, manifest.to_json())
    return manifest


def read_private(folder: Path) -> PrivatePart:
    """Read a private part; every file is checked against the manifest's SHA-256."""
    folder = Path(folder)
    path = folder / PRIVATE_MANIFEST
    if not path.is_file():
        raise _not_private(str(folder), f"no {PRIVATE_MANIFEST}")
    manifest = PrivateManifest.from_json(path.read_bytes(), str(path))
    frames: dict[str, list[pd.DataFrame]] = {}
    for rel, digest in sorted(manifest.files.items()):
        data = (folder / rel).read_bytes() if (folder / rel).is_file() else None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            why = "missing" if data is None else "changed since it was written"
            raise _not_private(str(folder), f"{rel} is {why}")
        config, split = Path(rel).parent.name, Path(rel).stem
        frame = pq.read_table(folder / rel).to_pandas()
        frame["split"] = split
        frames.setdefault(config, []).append(frame)
    merged: dict[str, Any] = {
        c: pd.concat([f for f in parts], ignore_index=True) for c, parts in frames.items()
    }
    for config in ("questions", "answers", "ratings"):
        if config not in merged:
            raise _not_private(str(folder), f"no {config} table")
    return PrivatePart(
        manifest,
        PrivateTables(
            merged["questions"], merged["answers"], merged["ratings"], merged.get("reviews")
        ),
    )


@dataclass(frozen=True)
class RestoredFrames:
    """A release's flat frames with the held-out labels put back (:func:`restore_frames`)."""

    questions: pd.DataFrame
    answers: pd.DataFrame
    ratings: pd.DataFrame
    reviews: pd.DataFrame | None


def restore_frames(
    questions: pd.DataFrame,
    answers: pd.DataFrame,
    ratings: pd.DataFrame,
    reviews: pd.DataFrame | None,
    private: PrivateTables,
    item_index: Mapping[str, int],
) -> RestoredFrames:
    """The public frames of a release (``questions`` without its nested columns) with the
    private part's labels filled in and its ``ratings`` and ``reviews`` rows put back in
    release order (by item; an item's rows are all on one side, in their built order)."""
    q = _fill(questions, private.questions, "question_id", ("difficulty_mean", "difficulty_tier"))
    a = _fill(answers, private.answers, "answer_id", ANSWER_LABELS)
    for col in VOTES:
        a[col] = _narrow(a[col], "int16")
    a["adjudicated"] = a["adjudicated"].astype(bool)
    return RestoredFrames(
        q,
        a,
        _merged(ratings, private.ratings, item_index),
        None if reviews is None else _merged(reviews, private.reviews, item_index),
    )


def _fill(
    frame: pd.DataFrame, private: pd.DataFrame, key: str, columns: tuple[str, ...]
) -> pd.DataFrame:
    """``frame`` with ``columns`` taken from ``private`` on the rows whose ``key`` it holds."""
    out = frame.copy()
    rows = out[key].isin(set(private[key])).to_numpy()
    source = private.set_index(key)
    for col in columns:
        values = out[col].astype(object).to_numpy().copy()
        values[rows] = source[col].reindex(out.loc[rows, key]).astype(object).to_numpy()
        filled = pd.Series(values, index=out.index)
        out[col] = (
            _narrow(filled, "int8")
            if col == "difficulty_tier"
            else filled.astype(frame[col].dtype if col != "adjudicated" else object)
        )
    return out


def _narrow(values: pd.Series, dtype: Literal["int8", "int16"]) -> pd.Series:
    """Integers as ``dtype`` when none is null, else float with NaN (as Parquet reads them)."""
    numbers = pd.to_numeric(values, errors="coerce")
    return numbers.astype(dtype) if not numbers.isna().any() else numbers.astype("float64")


def _merged(
    public: pd.DataFrame, private: pd.DataFrame | None, item_index: Mapping[str, int]
) -> pd.DataFrame:
    """The rows of both sides, by item in release order (a stable sort keeps each item's)."""
    if private is None or private.empty:
        return public
    both = pd.concat([public, private[list(public.columns)]], ignore_index=True)
    order = np.argsort(both["question_id"].map(item_index).to_numpy(), kind="stable")
    return both.iloc[order].reset_index(drop=True)
