"""A build's ``release.json``, typed: :class:`ReleaseMeta` is the one reader and writer of it.

The build writes it (:meth:`ReleaseMeta.to_json`); the loader, the publisher, the build folder's
guard, ``medqade show`` and the pool readers read it (:meth:`ReleaseMeta.from_json`). The file
stays what it always was: one JSON object, keys sorted, two-space indent, UTF-8 text, a final
newline; reading a file and writing it back gives the same bytes (a key this version does not
know is kept in :attr:`ReleaseMeta.other`; a key the file lacks stays absent, ``None`` here).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from medqade import vocab
from medqade.files.problems import InputError, Problem

RELEASE_JSON = "release.json"

_TYPES: dict[str, type | tuple[type, ...]] = {
    "roster": dict,
    "configs": list,
    "name": str,
    "version": str,
    "source_hash": str,
    "synthetic": bool,
    "canary": str,
    "extra_columns": list,
    "counts": dict,
    "warnings": list,
    "n_warnings": int,
    "files": dict,
    "codebook": dict,
    "pool": dict,
    "holdout": dict,
}
"""The keys this version knows, with the JSON type each must have when present."""


@dataclass(frozen=True)
class ReleaseMeta:
    """The metadata of one build (``release.json``); ``None`` = the key is absent."""

    roster: Mapping[str, Any]
    """The roster as :meth:`medqade.vocab.Roster.to_dict` wrote it (:attr:`parsed_roster`)."""
    configs: tuple[str, ...]
    """The dataset configs the build holds, in order (``reviews`` only when built)."""
    name: str | None = None
    version: str | None = None
    source_hash: str | None = None
    synthetic: bool | None = None
    canary: str | None = None
    extra_columns: tuple[str, ...] | None = None
    counts: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] | None = None
    n_warnings: int | None = None
    files: Mapping[str, str] | None = None
    """Every Parquet file of the build with its SHA-256 (what the output guard vouches for)."""
    codebook: Mapping[str, Any] | None = None
    pool: Mapping[str, Any] | None = None
    holdout: Mapping[str, Any] | None = None
    """Present in a build with held-out labels: ``items``, ``seed``, ``by_split`` (how many items
    of each split are held out) and ``labels`` (where they are; :mod:`medqade.dataset.holdout`)."""
    other: Mapping[str, Any] = field(default_factory=dict)
    """Keys this version does not know, kept as read so that writing back changes nothing."""

    @property
    def is_synthetic(self) -> bool:
        return bool(self.synthetic)

    @property
    def parsed_roster(self) -> vocab.Roster:
        return vocab.Roster.from_dict(dict(self.roster))

    @property
    def pool_judges(self) -> tuple[str, ...]:
        """The judges whose pool labels the build publishes (none without a pool)."""
        return tuple((self.pool or {}).get("judges", ()))

    @property
    def has_pool_judgments(self) -> bool:
        return bool((self.pool or {}).get("judgments"))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: known keys that are present, then :attr:`other`."""
        out: dict[str, Any] = dict(self.other)
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "other" or value is None:
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_json(self) -> str:
        """The file's text (keys sorted, indent 2, non-ASCII kept, final newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_dict(cls, meta: object, where: str) -> ReleaseMeta:
        """``meta`` as a :class:`ReleaseMeta` if it is a MedQADE build's ``release.json`` (an
        object with a valid roster and its configs), else :class:`InputError` naming ``where``
        and saying to rebuild."""
        if not isinstance(meta, dict):
            raise not_a_build(where, "not a JSON object")
        missing = [k for k in ("roster", "configs") if k not in meta]
        if missing:
            raise not_a_build(where, f"no {' or '.join(repr(k) for k in missing)}")
        if not isinstance(meta["roster"], dict) or not isinstance(meta["configs"], list):
            raise not_a_build(where, "'roster' is not an object or 'configs' not a list")
        for key, kind in _TYPES.items():
            value = meta.get(key)
            bad_int = kind is int and isinstance(value, bool)
            if value is not None and (not isinstance(value, kind) or bad_int):
                raise not_a_build(where, f"{key!r} is {json.dumps(value)[:60]}")
        try:
            vocab.Roster.from_dict(meta["roster"], f"{RELEASE_JSON} roster")
        except ValueError as exc:
            raise not_a_build(where, f"its roster is not valid ({exc})") from None
        known = {k: meta[k] for k in _TYPES if k in meta}
        for key in ("configs", "extra_columns", "warnings"):
            if key in known:
                known[key] = tuple(known[key])
        return cls(**known, other={k: v for k, v in meta.items() if k not in _TYPES})

    @classmethod
    def from_json(cls, text: str | bytes, where: str) -> ReleaseMeta:
        """Parse the file's text; ``where`` (its path or Hub name) is named in every error."""
        try:
            data = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise not_a_build(where, f"not valid UTF-8 JSON ({exc})") from None
        return cls.from_dict(data, where)


def not_a_build(where: str, why: str) -> InputError:
    """The error for a ``release.json`` that is not a MedQADE build's: what is wrong, and that
    the folder must be rebuilt."""
    return InputError(
        where,
        [
            Problem(
                where,
                None,
                f"this folder's {RELEASE_JSON} is not a MedQADE build's ({why})",
                fix="rebuild the folder with `medqade build RAW OUT`, or pass --data the build "
                "folder `medqade build` wrote",
            )
        ],
    )
