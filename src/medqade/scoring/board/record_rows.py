"""One record as its board row: :func:`judge_row` and :func:`model_row` (a :class:`Ranked` row
with what ranking it needs), the row's :func:`status` and the record's bootstrap
(:func:`settings_of`). The columns are described in :mod:`medqade.scoring.board.tables`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final, TypedDict

from medqade.measures import (
    CONTAMINATION,
    CORE_ABOVE_EXTENSION,
    VERDICT_METRIC,
    FloatArray,
    verdict_of_bounds,
)
from medqade.scoring.board.behaviour_columns import behaviour_columns
from medqade.scoring.board.row_types import NO_INTERVAL, Interval, JudgeRow, ModelRow
from medqade.scoring.metrics import PHYSICIAN_FLAG, SCHEMA_VERSION
from medqade.scoring.record import (
    Agreement,
    JsonObject,
    Judged,
    JudgeRef,
    RecordMeta,
    RecordSettings,
    ScoreRecord,
    of_block,
)

VIEWS: Final = ("core", "full")
"""The leaderboard's views (item sets), the one spelling every caller uses."""
JUDGE_METRICS: Final = ("kappa", "pa", "pabak")
MODEL_METRICS: Final = ("accuracy",)
STALE: Final = "stale"


def _num(x: Any) -> float:
    if x is None or isinstance(x, bool):
        return math.nan
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _bounds(value: Any) -> tuple[float, float]:
    if isinstance(value, list | tuple) and len(value) == 2:
        return _num(value[0]), _num(value[1])
    return math.nan, math.nan


def _interval(value: Any, ci: Any) -> Interval:
    """``value`` with its ``[low, high]`` as an :class:`Interval` (NaN for what is missing)."""
    return Interval(_num(value), *_bounds(ci))


def status(rec: ScoreRecord) -> str:
    """``stale`` (scored by an older schema: abstentions were not counted as disagreements
    then; score it again), ``reference``, ``above_physician_ceiling``, ``partial``,
    ``contamination`` (the held-out check flagged it: no verdict, no rank), ``unverified`` or
    ``verified``."""
    if rec.schema_version != SCHEMA_VERSION:
        return STALE
    if rec.has_flag(PHYSICIAN_FLAG):
        return "reference"
    if rec.has_flag(CONTAMINATION):  # first among the flags: it explains the others
        return CONTAMINATION
    if rec.has_flag("above_physician_ceiling"):
        return "above_physician_ceiling"
    if rec.has_flag(CORE_ABOVE_EXTENSION):
        return CORE_ABOVE_EXTENSION
    if rec.has_flag("partial_coverage"):
        return "partial"
    return "verified" if rec.meta is not None and rec.meta.verified is True else "unverified"


def settings_of(record: ScoreRecord) -> tuple[int, int] | None:
    """``(resamples, seed)`` of the record's bootstrap, ``None`` without one."""
    s = record.settings or RecordSettings()
    resamples, seed = s.resamples, s.seed
    if not isinstance(resamples, int) or not isinstance(seed, int) or resamples < 1:
        return None
    return resamples, seed


@dataclass(frozen=True)
class Ranked:
    """A row with what ranking it needs: the sort key, the replicates and their settings."""

    row: JudgeRow | ModelRow
    key: float
    reps: FloatArray | None
    settings: tuple[int, int] | None


class _Common(TypedDict):
    """The fields every row takes from its record, whatever its kind."""

    name: str
    model_id: str | None
    family: str | None
    source: str | None
    status: str
    scope: str
    flags: str
    id: str | None
    verified: bool
    organisation: str | None


def _common(record: ScoreRecord, view: str) -> _Common:
    meta = record.meta or RecordMeta()
    return {
        "name": record.name,
        "model_id": meta.model_id,
        "family": meta.family,
        "source": meta.source if "source" in meta.json_keys else "submission",
        "status": status(record),
        "scope": view,
        "flags": ";".join(record.flags or ()),
        "id": record.id,
        "verified": meta.verified is True,
        "organisation": meta.organisation,
    }


def _self_bias(record: ScoreRecord) -> dict[str, Interval | bool]:
    for t in (record.bias or {}).get("targets") or ():
        if t.get("kind") == "self":
            return {
                "self_bias": _interval(t.get("bias"), t.get("bias_ci")),
                "self_bias_significant": bool(t.get("significant")),
            }
    return {"self_bias": NO_INTERVAL, "self_bias_significant": False}


def _behaviour(record: ScoreRecord) -> dict[str, float | str | Interval]:
    """The record's behaviour columns (:func:`behaviour_columns`) as row fields."""
    cols: dict[str, float | str | Interval] = dict(behaviour_columns(record))
    for name in ("caution_vs_physicians", "self_kappa"):
        parts = (cols[name], cols.pop(f"{name}_low"), cols.pop(f"{name}_high"))
        numbers = (float(x) if isinstance(x, (int, float)) else math.nan for x in parts)
        cols[name] = Interval(*numbers)
    return cols


def _judge_block(record: ScoreRecord, view: str) -> tuple[Agreement | None, str]:
    """The block of numbers a judge row of ``view`` shows, and its scope."""
    block: Agreement | None = record.core if view == "core" else record.full
    if not _has(block) and view == "full" and record.has_flag(PHYSICIAN_FLAG):
        return record.core, "core"  # the ceiling exists only on the core
    return block, view


def _has(section: JsonObject | None) -> bool:
    """Whether a section holds anything (an empty object counts as none, as before)."""
    return section is not None and bool(section.json_keys or section.to_json())


def on_board(rec: ScoreRecord) -> bool:
    """Whether :func:`leaderboard` shows ``record`` as a judge row in either view."""
    return rec.kind == "judge" and any(_has(_judge_block(rec, v)[0]) for v in VIEWS)


def _fidelity(record: ScoreRecord) -> dict[str, Interval]:
    """``tau`` and its interval: the record's ranking fidelity (Kendall's tau-b of the
    students ordered by the judge's accuracy and by the physicians'), NaN without one."""
    fid = record.ranking_fidelity
    low, high = _bounds(None if fid is None else fid.kendall_tau_b_ci)
    return {"tau": Interval(_num(None if fid is None else fid.kendall_tau_b), low, high)}


def judge_row(record: ScoreRecord, view: str, metric: str, margin: float) -> Ranked | None:
    """The judge row of ``record`` in ``view``, ranked on ``metric``, its verdict read at
    ``margin``; ``None`` when the record has no block for the view."""
    block, scope = _judge_block(record, view)
    if block is None or not _has(block):
        return None
    row: dict[str, Any] = dict(_common(record, scope))
    for m in JUDGE_METRICS:
        row[m] = _interval(block.value(m), block.ci(m))
    fresh = row["status"] != STALE
    diff = record.physician_difference if fresh and _has(record.physician_difference) else None
    ext = record.extension_difference if fresh and _has(record.extension_difference) else None
    head = record.headline if fresh and _has(record.headline) else None
    d = NO_INTERVAL if head is None else _interval(head.kappa, head.kappa_ci)
    alt = record.alt_test if fresh and _has(record.alt_test) else None
    if alt is not None and alt.unit is None:
        alt = None  # scored before the published unit: a question-clustered variant, not shown
    rated = block.rated or Agreement()
    row.update(
        {
            "n": block.n,
            "coverage": _num(block.coverage),
            "abstention": _num(block.abstention),
            "kappa_rated": _num(rated.kappa),
            "pa_rated": _num(rated.pa),
            "pabak_rated": _num(rated.pabak),
            "n_rated": rated.n,
            "d": d,
            "margin": margin if head is not None else math.nan,
            "verdict": verdict_of_bounds(d.low, d.high, margin)
            if head and row["status"] not in ("partial", CONTAMINATION)
            else None,
            "decided_on": None if head is None else head.decided_on,
            "d_physicians": NO_INTERVAL
            if diff is None
            else _interval(diff.value(VERDICT_METRIC), diff.ci(VERDICT_METRIC)),
            "d_extension": NO_INTERVAL
            if ext is None
            else _interval(ext.value(VERDICT_METRIC), ext.ci(VERDICT_METRIC)),
            "alt_test_winning_rate": _num(None if alt is None else alt.winning_rate),
            "alt_test_rho": _num(None if alt is None else alt.rho),
            "alt_test_passed": None if alt is None else alt.passed,
            **_self_bias(record),
            **_behaviour(record),
            **_fidelity(record),
        }
    )
    reps = of_block(record.replicates, scope, "pa" if metric == "pabak" else metric)
    return Ranked(JudgeRow(**row), row[metric].value, reps, settings_of(record))


def model_row(record: ScoreRecord, view: str) -> Ranked | None:
    """The model row of ``record`` in ``view`` (the core's accuracy, or the full one when the
    submission answered any extension question); ``None`` without one."""
    if view == "core":
        block = record.accuracy_core
    else:
        coverage = (record.submission.coverage if record.submission else None) or {}
        block = record.accuracy if (coverage.get("extension") or 0) > 0 else None
    if block is None or not _has(block):
        return None
    row: dict[str, Any] = dict(_common(record, view))
    judged = block.judged or Judged()
    judge = record.judge or JudgeRef()
    by_lexical = block.by_lexical or {}
    row.update(
        {
            "accuracy": _interval(block.anchored, block.ci),
            "lower": _interval(block.lower, block.lower_ci),
            "upper": _interval(block.upper, block.upper_ci),
            "coverage": _num(block.coverage),
            "judged": _interval(judged.estimate, judged.ci),
            "judge": judge.name or judge.model_id,
            "n": block.n_anchored,
            "verdict": None,
            "tiers": tuple(_num((cell or {}).get("anchored")) for cell in block.by_tier or ()),
            "exact_match": _num((by_lexical.get("exact_match") or {}).get("anchored")),
            "no_match": _num((by_lexical.get("no_match") or {}).get("anchored")),
        }
    )
    reps = of_block(record.replicates, view, "accuracy")
    return Ranked(ModelRow(**row), row["accuracy"].value, reps, settings_of(record))


__all__ = [
    "JUDGE_METRICS",
    "MODEL_METRICS",
    "STALE",
    "VIEWS",
    "Ranked",
    "judge_row",
    "model_row",
    "on_board",
    "settings_of",
    "status",
]
