"""One leaderboard row as a frozen dataclass: :class:`JudgeRow` and :class:`ModelRow`.

:func:`medqade.scoring.board.tables.leaderboard` builds one row per record and ranks them into
a :class:`~medqade.scoring.board.tables.Board`. A value shown with its 95% interval is one
:class:`Interval` field; the row carries everything the Space and ``medqade leaderboard`` show
of it (also the few display-only fields, :data:`SHOWN`, that no export writes). ``to_json``
flattens a row into its export columns, in field order: an interval field ``kappa`` gives
``kappa``, ``kappa_low``, ``kappa_high`` (or the parts it names), every other field one column
of its name (:data:`JUDGE_COLUMNS`, :data:`MODEL_COLUMNS`: the schema of the CSV and JSON exports
and of the Space's ``/leaderboard``; the meaning of each column is in
:mod:`medqade.scoring.board.tables`). ``from_json`` reads such a plain row back (numbers
unrounded, NaN for a missing number, ``None`` for a missing rank or verdict).
"""

from __future__ import annotations

import math
from dataclasses import Field, dataclass, field, fields
from types import MappingProxyType
from typing import Any, Final, Self

NAN: Final = math.nan


@dataclass(frozen=True)
class Interval:
    """A value with its 95% interval: ``value``, ``low``, ``high`` (NaN where undefined)."""

    value: float = NAN
    low: float = NAN
    high: float = NAN


NO_INTERVAL: Final = Interval()
SUFFIX: Final = {"value": "", "low": "_low", "high": "_high"}
"""The export column of each part of an interval field ``x``: ``x``, ``x_low``, ``x_high``."""
EXPORT: Final = "export"
PARTS: Final = "parts"


INTERVAL: Final = MappingProxyType({PARTS: ("value", "low", "high")})
"""The metadata of an interval field written as its three columns."""
LOWER: Final = MappingProxyType({PARTS: ("value", "low")})
"""... written as the value and its lower end (a model's lower bound)."""
UPPER: Final = MappingProxyType({PARTS: ("value", "high")})
"""... written as the value and its upper end (a model's upper bound)."""
SHOWN: Final = MappingProxyType({EXPORT: False})
"""The metadata of a display-only field: the Space shows it, no export writes it."""


def _columns(f: Field[Any]) -> tuple[str, ...]:
    if f.metadata.get(EXPORT) is False:
        return ()
    parts = f.metadata.get(PARTS)
    return (f.name,) if parts is None else tuple(f.name + SUFFIX[p] for p in parts)


def columns(cls: type) -> tuple[str, ...]:
    """The export columns of a row class, in field order."""
    return tuple(c for f in fields(cls) for c in _columns(f))


@dataclass(frozen=True, kw_only=True)
class Row:
    """What the two kinds of row share: the identity columns first (rank, its worst, name,
    model id, family, source, status, scope), and to and from the plain row."""

    rank: int | None = None
    rank_worst: int | None = None
    name: str
    model_id: str | None
    family: str | None
    source: str | None
    status: str
    scope: str

    verified: bool = field(default=False, metadata=SHOWN)
    """Whether a maintainer verified the record (the Space's badge)."""
    organisation: str | None = field(default=None, metadata=SHOWN)
    """The submitter's organisation (searched by the Space)."""

    def to_json(self) -> dict[str, Any]:
        """The row as ``{column: value}``, its export columns in order (intervals flattened)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            parts = f.metadata.get(PARTS)
            if f.metadata.get(EXPORT) is False:
                continue
            if parts is None:
                out[f.name] = value
            else:
                out.update({f.name + SUFFIX[p]: getattr(value, p) for p in parts})
        return out

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Self:
        """Read a plain row (every column required; ``KeyError`` names a missing one); the
        display-only fields keep their defaults."""
        given: dict[str, Any] = {}
        for f in fields(cls):
            parts = f.metadata.get(PARTS)
            if f.metadata.get(EXPORT) is False:
                continue
            if parts is None:
                given[f.name] = row[f.name]
            else:
                given[f.name] = Interval(**{p: row[f.name + SUFFIX[p]] for p in parts})
        return cls(**given)


@dataclass(frozen=True, kw_only=True)
class JudgeRow(Row):
    """A judge's row of one view (columns in :mod:`medqade.scoring.board.tables`)."""

    kappa: Interval = field(metadata=INTERVAL)
    pa: Interval = field(metadata=INTERVAL)
    pabak: Interval = field(metadata=INTERVAL)
    n: int | None
    coverage: float
    abstention: float
    kappa_rated: float
    pa_rated: float
    pabak_rated: float
    n_rated: int | None
    d: Interval = field(metadata=INTERVAL)
    margin: float
    verdict: str | None
    decided_on: str | None
    d_physicians: Interval = field(metadata=INTERVAL)
    d_extension: Interval = field(metadata=INTERVAL)
    alt_test_winning_rate: float
    alt_test_rho: float
    alt_test_passed: bool | None
    self_bias: Interval = field(default=NO_INTERVAL, metadata=INTERVAL)
    self_bias_significant: bool = False
    caution_slope: float = NAN
    caution_vs_physicians: Interval = field(default=NO_INTERVAL, metadata=INTERVAL)
    caution_sparsest_tier: str = ""
    self_kappa: Interval = field(default=NO_INTERVAL, metadata=INTERVAL)
    physicians_self_kappa: float = NAN
    position_p: float = NAN
    tokens_per_1000: float = NAN
    eur_per_1000: float = NAN
    tau: Interval = field(default=NO_INTERVAL, metadata=INTERVAL)
    flags: str
    id: str | None


@dataclass(frozen=True, kw_only=True)
class ModelRow(Row):
    """A model's row of one view (columns in :mod:`medqade.scoring.board.tables`)."""

    accuracy: Interval = field(metadata=INTERVAL)
    lower: Interval = field(metadata=LOWER)
    upper: Interval = field(metadata=UPPER)
    coverage: float
    judged: Interval = field(metadata=INTERVAL)
    judge: str | None
    n: int | None
    verdict: str | None = None
    flags: str
    id: str | None
    tiers: tuple[float, ...] = field(default=(), metadata=SHOWN)
    """Anchored accuracy by difficulty tier (the Space's T1 ... T5)."""
    exact_match: float = field(default=NAN, metadata=SHOWN)
    """Anchored accuracy on the answers that match a reference answer exactly."""
    no_match: float = field(default=NAN, metadata=SHOWN)
    """Anchored accuracy on the answers that match none."""


JUDGE_COLUMNS: Final = columns(JudgeRow)
MODEL_COLUMNS: Final = columns(ModelRow)
