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

:func:`resolve_data` turns a ``--data`` argument (nothing, a build folder, a raw release folder
or a Hub repo id) into a build folder, building the embedded synthetic default on first use.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow.parquet as pq

from medqade import __version__, vocab
from medqade.build import RELEASE_JSON
from medqade.problems import InputError, Problem
from medqade.schema import answer_id

Codes = npt.NDArray[np.int8]
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
SYNTHETIC_SEED = 6
"""Seed of the embedded synthetic release (the simulated data; bootstraps use
:data:`medqade.measures.seeds.BOOTSTRAP_SEED`)."""


@dataclass(frozen=True, eq=False)
class Release:
    """A loaded dataset: flat frames plus dense code arrays (see the module docstring)."""

    roster: vocab.Roster
    meta: dict[str, Any]
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

    @property
    def synthetic(self) -> bool:
        return bool(self.meta.get("synthetic", False))

    @property
    def data_hash(self) -> str:
        return str(self.meta.get("source_hash", ""))

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
    """Load a build folder (as written by :func:`medqade.build.build`)."""
    folder = Path(folder)
    meta_path = folder / RELEASE_JSON
    if not meta_path.exists():
        raise FileNotFoundError(
            f"{folder}: no {RELEASE_JSON}; pass a folder written by `medqade build`"
        )
    meta = read_meta(folder)
    return _assemble(meta, lambda config: _read_config(folder, config))


def read_meta(folder: Path) -> dict[str, Any]:
    """The ``release.json`` of the build ``folder``, checked to be a MedQADE build's."""
    return _read_meta_file(Path(folder) / RELEASE_JSON)


def _read_meta_file(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _not_a_build(path, f"not valid UTF-8 JSON ({exc})") from None
    return check_meta(meta, path)


def check_meta(meta: object, path: Path | str) -> dict[str, Any]:
    """``meta`` if it is a MedQADE build's ``release.json`` (an object with a valid roster and
    the configs it holds), else :class:`~medqade.problems.InputError` saying to rebuild."""
    if not isinstance(meta, dict):
        raise _not_a_build(path, "not a JSON object")
    missing = [k for k in ("roster", "configs") if k not in meta]
    if missing:
        raise _not_a_build(path, f"no {' or '.join(repr(k) for k in missing)}")
    if not isinstance(meta["roster"], dict) or not isinstance(meta["configs"], list):
        raise _not_a_build(path, "'roster' is not an object or 'configs' not a list")
    try:
        vocab.Roster.from_dict(meta["roster"], f"{RELEASE_JSON} roster")
    except ValueError as exc:
        raise _not_a_build(path, f"its roster is not valid ({exc})") from None
    return meta


def _not_a_build(path: Path | str, why: str) -> InputError:
    name = str(path)
    return InputError(
        name,
        [
            Problem(
                name,
                None,
                f"this folder's {RELEASE_JSON} is not a MedQADE build's ({why})",
                fix="rebuild the folder with `medqade build RAW OUT`, or pass --data the build "
                "folder `medqade build` wrote",
            )
        ],
    )


def load_hub_release(repo_id: str) -> Release:
    """Load a published release from the Hub with ``datasets.load_dataset(repo_id, config)``.

    The four configs come through ``load_dataset`` (so the card's YAML ``configs`` are what is
    read); ``release.json`` (roster, hashes, synthetic flag) through ``hf_hub_download``.
    """
    from datasets import load_dataset
    from huggingface_hub import hf_hub_download

    meta_file = hf_hub_download(repo_id=repo_id, filename=RELEASE_JSON, repo_type="dataset")
    meta = _read_meta_file(Path(meta_file))

    def read(config: str) -> pd.DataFrame:
        dd = load_dataset(repo_id, config)
        parts = [dd[split].to_pandas().assign(split=split) for split in vocab.SPLITS if split in dd]
        return pd.DataFrame(pd.concat(parts, ignore_index=True))

    return _assemble(meta, read)


def _assemble(meta: dict[str, Any], read: Callable[[str], pd.DataFrame]) -> Release:
    """Frames and dense arrays from the release metadata and a reader of the four configs."""
    roster = vocab.Roster.from_dict(meta["roster"])
    nested = read("questions")
    questions = nested.drop(columns=["answers", "difficulty_ratings"])
    answers = read("answers")
    ratings = read("ratings")
    judgments = read("judgments")
    reviews = read("reviews") if "reviews" in meta.get("configs", ()) else None
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


# --- resolving --data ----------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where built releases are cached (``MEDQADE_CACHE`` overrides the platform default)."""
    env = os.environ.get("MEDQADE_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("medqade"))


def is_build(folder: Path) -> bool:
    return (folder / RELEASE_JSON).exists() and (folder / "data").is_dir()


def is_raw(folder: Path) -> bool:
    return any((folder / f"questions{ext}").exists() for ext in (".csv", ".jsonl", ".parquet"))


def default_build(progress: Callable[[str], None] | None = None) -> Path:
    """The embedded default: the synthetic release, built once into the cache and reused.
    ``progress`` is told each step of a first build (synthesizing, building, ready)."""
    from medqade.build import build
    from medqade.synthetic import fingerprint, synthesize

    key = f"seed{SYNTHETIC_SEED}-v{__version__}-{fingerprint()[:12]}"
    target = cache_dir() / f"synthetic-{key}"
    if is_build(target):
        return target
    say = progress or (lambda _: None)
    raw = cache_dir() / f"synthetic-raw-{key}"
    if not is_raw(raw):
        say(f"synthesizing the synthetic release (seed {SYNTHETIC_SEED}) into {raw}")
        synthesize(raw, seed=SYNTHETIC_SEED)
    say(f"building it into {target} (first run only, about a minute)")
    build(raw, target)
    say(f"synthetic release ready: {target}")
    return target


DATA_HELP = "build folder, raw release folder or Hub repo id (default: the synthetic release)"


def add_data_argument(p: argparse.ArgumentParser) -> None:
    """``--data``: what :func:`resolve_data` accepts; omitted = the default release. Here, beside
    the loader, so the commands and the runners share it without importing each other."""
    p.add_argument("--data", default=None, help=DATA_HELP)


def resolve_data(data: str | Path | None) -> Path:
    """Turn a ``--data`` value into a local build folder (see the module docstring)."""
    if data is None or str(data) == "":
        return default_build()
    path = Path(data)
    if path.is_dir():
        if is_build(path):
            return path
        if is_raw(path):
            from medqade.build import build
            from medqade.raw import release_hash

            target = cache_dir() / f"raw-{release_hash(path)[:16]}-v{__version__}"
            if not is_build(target):
                build(path, target)
            return target
        raise FileNotFoundError(f"{path}: neither a MedQADE build folder nor a raw release")
    if HUB_ID.match(str(data)) and not path.exists():
        from huggingface_hub import snapshot_download

        local = snapshot_download(
            repo_id=str(data), repo_type="dataset", allow_patterns=["*.md", "*.json", "data/**"]
        )
        return Path(local)
    raise FileNotFoundError(f"--data {data}: no such folder, and not a Hub repo id (ORG/NAME)")


def open_release(data: str | Path | None = None) -> Release:
    """The release named by ``--data``: a Hub repo id through :func:`load_hub_release`,
    anything else through ``load_release(resolve_data(data))``."""
    if data is not None and HUB_ID.match(str(data)) and not Path(data).exists():
        return load_hub_release(str(data))
    return load_release(resolve_data(data))
