"""One record as its board row: :func:`judge_row` and :func:`model_row` (a :class:`Ranked` row
with what ranking it needs), the row's :func:`status` and the record's bootstrap
(:func:`settings_of`). The columns are described in :mod:`medqade.scoring.board.tables`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

from medqade.measures import CORE_ABOVE_EXTENSION, VERDICT_METRIC, FloatArray, verdict_of_bounds
from medqade.scoring.board.behaviour_columns import behaviour_columns
from medqade.scoring.board.row_types import JudgeRow, ModelRow
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


def status(rec: ScoreRecord) -> str:
    """``stale`` (scored by an older schema: abstentions were not counted as disagreements
    then; score it again), ``reference``, ``above_physician_ceiling``, ``partial``,
    ``unverified`` or ``verified``."""
    if rec.schema_version != SCHEMA_VERSION:
        return STALE
    if rec.has_flag(PHYSICIAN_FLAG):
        return "reference"
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


def _common(record: ScoreRecord, view: str) -> dict[str, str | None]:
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
    }


def _self_bias(record: ScoreRecord) -> dict[str, float | bool]:
    for t in (record.bias or {}).get("targets") or ():
        if t.get("kind") == "self":
            low, high = _bounds(t.get("bias_ci"))
            return {
                "self_bias": _num(t.get("bias")),
                "self_bias_low": low,
                "self_bias_high": high,
                "self_bias_significant": bool(t.get("significant")),
            }
    return {
        "self_bias": math.nan,
        "self_bias_low": math.nan,
        "self_bias_high": math.nan,
        "self_bias_significant": False,
    }


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


def _fidelity(record: ScoreRecord) -> dict[str, float]:
    """``tau`` and its interval: the record's ranking fidelity (Kendall's tau-b of the
    students ordered by the judge's accuracy and by the physicians'), NaN without one."""
    fid = record.ranking_fidelity
    low, high = _bounds(None if fid is None else fid.kendall_tau_b_ci)
    return {
        "tau": _num(None if fid is None else fid.kendall_tau_b),
        "tau_low": low,
        "tau_high": high,
    }


def judge_row(record: ScoreRecord, view: str, metric: str, margin: float) -> Ranked | None:
    """The judge row of ``record`` in ``view``, ranked on ``metric``, its verdict read at
    ``margin``; ``None`` when the record has no block for the view."""
    block, scope = _judge_block(record, view)
    if block is None or not _has(block):
        return None
    row: dict[str, Any] = _common(record, scope)
    for m in JUDGE_METRICS:
        row[m] = _num(block.value(m))
        row[f"{m}_low"], row[f"{m}_high"] = _bounds(block.ci(m))
    fresh = row["status"] != STALE
    diff = record.physician_difference if fresh and _has(record.physician_difference) else None
    c_low, c_high = _bounds(None if diff is None else diff.ci(VERDICT_METRIC))
    ext = record.extension_difference if fresh and _has(record.extension_difference) else None
    e_low, e_high = _bounds(None if ext is None else ext.ci(VERDICT_METRIC))
    head = record.headline if fresh and _has(record.headline) else None
    d_low, d_high = _bounds(None if head is None else head.kappa_ci)
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
            "d": _num(None if head is None else head.kappa),
            "d_low": d_low,
            "d_high": d_high,
            "margin": margin if head is not None else math.nan,
            "verdict": verdict_of_bounds(d_low, d_high, margin)
            if head and row["status"] != "partial"
            else None,
            "decided_on": None if head is None else head.decided_on,
            "d_physicians": _num(None if diff is None else diff.value(VERDICT_METRIC)),
            "d_physicians_low": c_low,
            "d_physicians_high": c_high,
            "d_extension": _num(None if ext is None else ext.value(VERDICT_METRIC)),
            "d_extension_low": e_low,
            "d_extension_high": e_high,
            "alt_test_winning_rate": _num(None if alt is None else alt.winning_rate),
            "alt_test_rho": _num(None if alt is None else alt.rho),
            "alt_test_passed": None if alt is None else alt.passed,
            **_self_bias(record),
            **behaviour_columns(record),
            **_fidelity(record),
        }
    )
    reps = of_block(record.replicates, scope, "pa" if metric == "pabak" else metric)
    return Ranked(JudgeRow(**row), row[metric], reps, settings_of(record))


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
    row: dict[str, Any] = _common(record, view)
    low, high = _bounds(block.ci)
    judged = block.judged or Judged()
    j_low, j_high = _bounds(judged.ci)
    judge = record.judge or JudgeRef()
    row.update(
        {
            "accuracy": _num(block.anchored),
            "accuracy_low": low,
            "accuracy_high": high,
            "lower": _num(block.lower),
            "lower_low": _bounds(block.lower_ci)[0],
            "upper": _num(block.upper),
            "upper_high": _bounds(block.upper_ci)[1],
            "coverage": _num(block.coverage),
            "judged": _num(judged.estimate),
            "judged_low": j_low,
            "judged_high": j_high,
            "judge": judge.name or judge.model_id,
            "n": block.n_anchored,
            "verdict": None,
        }
    )
    reps = of_block(record.replicates, view, "accuracy")
    return Ranked(ModelRow(**row), row["accuracy"], reps, settings_of(record))


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
