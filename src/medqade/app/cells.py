"""One value as a display cell: rounding, intervals, counts, percent and percentage points, flag
words and the in-page links (``compare``), used by every table the Space shows.

These functions format numbers the library computed; they never compute a statistic. Text
that came from a submitter stays plain text: it only ever reaches the page as a Dataframe cell
or escaped HTML (:func:`plain`).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from typing import Final
from urllib.parse import parse_qs, urlencode

import pandas as pd

DIGITS: Final = 3


def plain(value: object) -> str:
    """``value`` as text that is safe inside HTML (every markup character escaped)."""
    return html.escape("" if value is None else str(value), quote=True)


def number(x: object, digits: int = DIGITS) -> float:
    """A finite number rounded for display, NaN for anything else (None, NaN, text)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return math.nan
    value = float(x)
    return round(value, digits) if math.isfinite(value) else math.nan


def ci_text(low: object, high: object, digits: int = DIGITS) -> str:
    """``"0.612 – 0.701"``, or an empty string when the interval is undefined."""
    lo, hi = number(low, digits), number(high, digits)
    if math.isnan(lo) or math.isnan(hi):
        return ""
    return f"{lo:.{digits}f} – {hi:.{digits}f}"


def interval_text(interval: object, digits: int = DIGITS) -> str:
    """:func:`ci_text` of an interval (anything with ``low`` and ``high``, e.g. a board row's
    :class:`~medqade.scoring.board.Interval`)."""
    return ci_text(getattr(interval, "low", None), getattr(interval, "high", None), digits)


def pair(value: object) -> tuple[object, object]:
    """The two ends of a ``[low, high]`` interval, ``(None, None)`` for anything else."""
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        return value[0], value[1]
    return None, None


def alt_text(passed: object) -> str:
    """``pass``, ``fail`` or empty (no alt-test)."""
    if passed is True:
        return "pass"
    return "fail" if passed is False else ""


def rank_range(best: object, worst: object) -> str:
    """``"1–4"``: the rank interval (best to worst rank; one number when they agree), empty
    for a row that is not ranked."""
    lo, hi = count(best), count(worst)
    if math.isnan(lo):
        return ""
    if math.isnan(hi) or hi == lo:
        return f"{lo:.0f}"
    return f"{lo:.0f}–{hi:.0f}"


def count(value: object) -> float:
    """A count (or rank) as a float for a sortable column, NaN when missing or not finite."""
    if value is None or isinstance(value, bool):
        return math.nan
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return x if math.isfinite(x) else math.nan


def as_text(value: object) -> str:
    """A cell's text: empty for None, NaN and ``pd.NA``, else ``str(value)``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if value is pd.NA:
        return ""
    return str(value)


FLAG_WORDS: Final[Mapping[str, str]] = {
    "synthetic_data": "synthetic data",
    "physician_reference": "physician reference",
    "above_physician_ceiling": "above the physicians (check for leakage)",
    "partial_coverage": "partial coverage",
    "core_above_extension": (
        "core agreement above what its extension supports (not ranked; verdict from the extension)"
    ),
    "contamination": (
        "contamination: agrees better with the published labels than with the held-out ones "
        "(no verdict, not ranked)"
    ),
    "no_core": "no core items",
    "duplicate_of_reference": "copy of a reference row",
    "near_duplicate_of_reference": "near copy of a reference row",
    "same_family_judge": "judge of the model's own family",
}


def flag_words(flags: object) -> str:
    """The record's ``;``-separated flags as words for a reader (unknown flags as given,
    underscores turned into spaces)."""
    names = [f for f in as_text(flags).split(";") if f]
    return ", ".join(FLAG_WORDS.get(f, f.replace("_", " ")) for f in names)


def percent(x: object, digits: int = 1) -> float:
    """A proportion as percent for display (``0.0018`` -> ``0.2``); NaN stays NaN (shown
    empty, never as 0)."""
    value = number(x, 6)
    return value if math.isnan(value) else round(100 * value, digits)


def points(x: object, digits: int = 1) -> float:
    """A difference of proportions in percentage points (``0.034`` -> ``3.4``), the unit of
    bias everywhere (leaderboard, Submit, Figure 3); NaN stays NaN."""
    return percent(x, digits)


def points_ci(low: object, high: object, digits: int = 1) -> str:
    """An interval of proportions in percentage points: ``"-1.2 – 3.4"``, or empty."""
    return ci_text(percent(low, digits + 2), percent(high, digits + 2), digits)


def datatypes(frame: pd.DataFrame) -> list[str]:
    """Gradio column types: ``number`` for numeric columns (sortable), ``markdown`` for the
    links we build (:data:`LINK_COLUMNS`, never submitter text), ``str`` otherwise."""
    return [
        "number"
        if pd.api.types.is_numeric_dtype(frame[c])
        else "markdown"
        if c in LINK_COLUMNS
        else "str"
        for c in frame.columns
    ]


LINK_COLUMNS: Final = ("compare", "open in Browse")


COMPARE_TOKEN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,127}$")


def compare_link(row: object) -> str:
    """A Markdown link that opens the Compare tab with this row (a board row, or a mapping
    with its ``source``, ``model_id`` and ``id``) against the physicians (paper rows and
    baselines by their id, submissions by record id); empty for the physician reference and
    for anything that is not a safe token."""

    def get(key: str) -> object:
        return row.get(key) if isinstance(row, Mapping) else getattr(row, key, None)

    source = get("source")
    if source == "physicians":
        return ""
    token = get("model_id") if source in ("paper", "baseline") else get("id")
    if not isinstance(token, str) or not COMPARE_TOKEN.match(token):
        return ""
    return f"[vs physicians](?{urlencode({'tab': 'compare', 'a': token, 'b': 'physicians'})})"


COMPARE_HREF: Final = re.compile(r"\]\((\?tab=compare&[^)\s]{1,600})\)")


def linked_comparison(cell: object) -> tuple[str, str] | None:
    """The two rows a :func:`compare_link` cell compares (``a``, ``b``), ``None`` for any
    other cell."""
    found = COMPARE_HREF.search(str(cell or ""))
    if not found:
        return None
    query = parse_qs(found.group(1)[1:])
    a, b = query.get("a", [""])[0], query.get("b", [""])[0]
    return (a, b) if a and b else None
