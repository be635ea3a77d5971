"""One leaderboard row as a frozen dataclass: :class:`JudgeRow` and :class:`ModelRow`.

:func:`medqade.scoring.board.tables.leaderboard` builds one row per record and ranks them; the
frames it returns have exactly these fields as columns, in this order (:data:`JUDGE_COLUMNS`,
:data:`MODEL_COLUMNS`; the meaning of each column is in :mod:`medqade.scoring.board.tables`).
``to_json`` / ``from_json`` give and read the plain row (numbers unrounded, NaN for a missing
number, ``None`` for a missing rank or verdict).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Final, Self

if TYPE_CHECKING:
    from medqade.scoring.record import ScoreRecord

NAN: Final = math.nan


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

    def to_json(self) -> dict[str, Any]:
        """The row as ``{column: value}``, in column order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Self:
        """Read a plain row (every column required; ``KeyError`` names a missing one)."""
        return cls(**{f.name: row[f.name] for f in fields(cls)})


@dataclass(frozen=True, kw_only=True)
class JudgeRow(Row):
    """A judge's row of one view (columns in :mod:`medqade.scoring.board.tables`)."""

    kappa: float
    kappa_low: float
    kappa_high: float
    pa: float
    pa_low: float
    pa_high: float
    pabak: float
    pabak_low: float
    pabak_high: float
    n: int | None
    coverage: float
    abstention: float
    kappa_rated: float
    pa_rated: float
    pabak_rated: float
    n_rated: int | None
    d: float
    d_low: float
    d_high: float
    margin: float
    verdict: str | None
    decided_on: str | None
    d_physicians: float
    d_physicians_low: float
    d_physicians_high: float
    d_extension: float
    d_extension_low: float
    d_extension_high: float
    alt_test_winning_rate: float
    alt_test_rho: float
    alt_test_passed: bool | None
    self_bias: float = NAN
    self_bias_low: float = NAN
    self_bias_high: float = NAN
    self_bias_significant: bool = False
    caution_slope: float = NAN
    caution_vs_physicians: float = NAN
    caution_vs_physicians_low: float = NAN
    caution_vs_physicians_high: float = NAN
    caution_sparsest_tier: str = ""
    self_kappa: float = NAN
    self_kappa_low: float = NAN
    self_kappa_high: float = NAN
    physicians_self_kappa: float = NAN
    position_p: float = NAN
    tokens_per_1000: float = NAN
    eur_per_1000: float = NAN
    tau: float = NAN
    tau_low: float = NAN
    tau_high: float = NAN
    flags: str
    id: str | None


@dataclass(frozen=True, kw_only=True)
class ModelRow(Row):
    """A model's row of one view (columns in :mod:`medqade.scoring.board.tables`)."""

    accuracy: float
    accuracy_low: float
    accuracy_high: float
    lower: float
    lower_low: float
    upper: float
    upper_high: float
    coverage: float
    judged: float
    judged_low: float
    judged_high: float
    judge: str | None
    n: int | None
    verdict: str | None = None
    flags: str
    id: str | None


def rated_n(record: ScoreRecord | None, scope: str) -> int | None:
    """The answers a judge row's agreement when rated (``kappa_rated``, ...) rests on, from
    its record's ``scope`` block (``core`` or ``full``; ``None`` without one). ``n`` of the row
    counts every resolved answer of the view (an unlabelled one as a disagreement), so for a
    partial submission the values when rated rest on far fewer answers than ``n`` says: every
    view that shows them shows this count beside them."""
    if record is None:
        return None
    block = record.core if scope == "core" else record.full
    rated = None if block is None else block.rated
    return None if rated is None else rated.n


JUDGE_COLUMNS: Final = tuple(f.name for f in fields(JudgeRow))
MODEL_COLUMNS: Final = tuple(f.name for f in fields(ModelRow))
