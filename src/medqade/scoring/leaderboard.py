"""Leaderboard tables from result records, with CI-aware rank tiers.

:func:`leaderboard` returns two frames, judges and models, sorted best first.

Judges (``view="core"``: the ``core`` block; ``"full"``: the ``full`` block, rows without one
are left out):

=========== ====================================================================================
rank        rank tier (1 = best) among *verified* rows; a row shares the tier of the ranked row
            above it when their kappa CIs overlap, else opens the next tier; empty (``<NA>``)
            for every row that is not verified
name        display name; model_id, family, source (paper, baseline, physicians, submission)
status      ``verified``, ``unverified`` (submitted, not checked by a maintainer), ``partial``
            (partial coverage), ``above_physician_ceiling`` (flagged, never ranked) or
            ``reference`` (the physician leave-one-out row, shown for comparison)
kappa, kappa_low, kappa_high, pa, pa_low, pa_high, pabak, pabak_low, pabak_high
            macro-mean agreement with the physician consensus and its 95% bootstrap CI
n           pairable (judge, consensus) answer slots
coverage    share of the view's answer slots the judge has a row for
verdict     against the physicians' leave-one-out CI (core only)
abstention  share of abstentions over the judge's slots
flags       the record's flags, ``;``-separated; id = record id
=========== ====================================================================================

Models (``view="core"``: ``accuracy_core``; ``"full"``: ``accuracy`` of submissions with any
extension answer):

=========== ====================================================================================
rank        rank tier among verified rows; the interval is ``[lower_low, upper_high]`` (the
            Wilson CI of the lower bound to that of the upper bound), which is the anchored
            Wilson CI when every answer anchors
accuracy, accuracy_low, accuracy_high   anchored accuracy with its Wilson CI
lower, upper, lower_low, upper_high     accuracy bounds (unmatched answers all wrong / right)
coverage    share of answers anchored to a physician-labelled answer
judged, judged_low, judged_high, judge  judged estimate with its Wilson CI, and the judge's name
n           answers anchored to a resolved consensus; status, flags, id as for judges
=========== ====================================================================================

Export with :func:`medqade.scoring.upload.csv_text`, which neutralises spreadsheet formulas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import numpy as np
import pandas as pd

VIEWS: Final = ("core", "full")
JUDGE_COLUMNS: Final = (
    "rank",
    "name",
    "model_id",
    "family",
    "source",
    "status",
    "kappa",
    "kappa_low",
    "kappa_high",
    "pa",
    "pa_low",
    "pa_high",
    "pabak",
    "pabak_low",
    "pabak_high",
    "n",
    "coverage",
    "verdict",
    "abstention",
    "flags",
    "id",
)
MODEL_COLUMNS: Final = (
    "rank",
    "name",
    "model_id",
    "family",
    "source",
    "status",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "lower",
    "lower_low",
    "upper",
    "upper_high",
    "coverage",
    "judged",
    "judged_low",
    "judged_high",
    "judge",
    "n",
    "flags",
    "id",
)


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def status(record: Mapping[str, Any]) -> str:
    """``reference``, ``above_physician_ceiling``, ``partial``, ``unverified`` or
    ``verified``."""
    flags = set(record.get("flags", ()))
    if "physician_reference" in flags:
        return "reference"
    if "above_physician_ceiling" in flags:
        return "above_physician_ceiling"
    if "partial_coverage" in flags:
        return "partial"
    return "verified" if record.get("meta", {}).get("verified") is True else "unverified"


def _common(record: Mapping[str, Any]) -> dict[str, Any]:
    meta = record.get("meta", {})
    return {
        "name": meta.get("name") or meta.get("model_id") or str(record.get("id", ""))[:12],
        "model_id": meta.get("model_id"),
        "family": meta.get("family"),
        "source": meta.get("source", "submission"),
        "status": status(record),
        "flags": ";".join(record.get("flags", ())),
        "id": record.get("id"),
    }


def _judge_row(record: Mapping[str, Any], view: str) -> dict[str, Any] | None:
    block = record.get(view)
    if not block:
        return None
    row = _common(record)
    for m in ("kappa", "pa", "pabak"):
        low, high = block.get(f"{m}_ci") or (None, None)
        row[m], row[f"{m}_low"], row[f"{m}_high"] = _num(block.get(m)), _num(low), _num(high)
    abst = record.get("abstention") or {}
    row.update(
        {
            "n": block.get("n"),
            "coverage": _num(block.get("coverage")),
            "verdict": record.get("verdict") if view == "core" else None,
            "abstention": _num(abst.get("global")),
            "_key": row["kappa"],
            "_low": row["kappa_low"],
            "_high": row["kappa_high"],
        }
    )
    return row


def _model_row(record: Mapping[str, Any], view: str) -> dict[str, Any] | None:
    if view == "core":
        block = record.get("accuracy_core")
    else:
        coverage = (record.get("submission") or {}).get("coverage") or {}
        block = record.get("accuracy") if (coverage.get("extension") or 0) > 0 else None
    if not block:
        return None
    row = _common(record)
    ci = block.get("ci") or (None, None)
    judged = block.get("judged") or {}
    jci = judged.get("ci") or (None, None)
    judge = record.get("judge") or {}
    row.update(
        {
            "accuracy": _num(block.get("anchored")),
            "accuracy_low": _num(ci[0]),
            "accuracy_high": _num(ci[1]),
            "lower": _num(block.get("lower")),
            "lower_low": _num((block.get("lower_ci") or (None, None))[0]),
            "upper": _num(block.get("upper")),
            "upper_high": _num((block.get("upper_ci") or (None, None))[1]),
            "coverage": _num(block.get("coverage")),
            "judged": _num(judged.get("estimate")),
            "judged_low": _num(jci[0]),
            "judged_high": _num(jci[1]),
            "judge": judge.get("name") or judge.get("model_id"),
            "n": block.get("n_anchored"),
        }
    )
    row["_key"] = row["accuracy"]
    row["_low"] = row["lower_low"]
    row["_high"] = row["upper_high"]
    return row


def rank_tiers(
    keys: Iterable[float], lows: Iterable[float], highs: Iterable[float], ranked: Iterable[bool]
) -> list[int | None]:
    """Tiers for rows sorted best first: the first ranked row is tier 1; each next ranked row
    shares the tier of the ranked row above it when their intervals overlap, else opens the
    next tier. Unranked rows (and rows without an estimate) get ``None``."""
    out: list[int | None] = []
    tier = 0
    prev: tuple[float, float] | None = None
    for key, low, high, ok in zip(keys, lows, highs, ranked, strict=True):
        if not ok or np.isnan(key):
            out.append(None)
            continue
        lo = key if np.isnan(low) else low
        hi = key if np.isnan(high) else high
        if prev is None or not (lo <= prev[1] and prev[0] <= hi):
            tier += 1
        prev = (lo, hi)
        out.append(tier)
    return out


def _frame(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(
        ["_key", "name"], ascending=[False, True], na_position="last", kind="mergesort"
    ).reset_index(drop=True)
    tiers = rank_tiers(
        frame["_key"].to_numpy(float),
        frame["_low"].to_numpy(float),
        frame["_high"].to_numpy(float),
        (frame["status"] == "verified").to_numpy(),
    )
    frame["rank"] = pd.array(tiers, dtype="Int64")
    return frame.loc[:, list(columns)]


def leaderboard(
    records: Iterable[Mapping[str, Any]], view: str = "core"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(judges, models)`` tables of ``records`` for ``view`` (``core`` or ``full``);
    columns in the module docstring. Records with the same id appear once."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
    seen: set[Any] = set()
    judges, models = [], []
    for rec in records:
        rid = rec.get("id")
        if rid is not None and rid in seen:
            continue
        seen.add(rid)
        if rec.get("kind") == "judge":
            row = _judge_row(rec, view)
            if row is not None:
                judges.append(row)
        elif rec.get("kind") == "answers":
            row = _model_row(rec, view)
            if row is not None:
                models.append(row)
    return _frame(judges, JUDGE_COLUMNS), _frame(models, MODEL_COLUMNS)
