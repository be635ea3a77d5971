"""The raw cells of an uploaded table: the table itself (:class:`RawTable`, every row with its
``_line``), normalised column names, and a cell's text (a formula or a non-text value told
apart, never guessed)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import pandas as pd

from medqade.files.problems import Problem

LINE: Final = "_line"


_FORMULA = re.compile(r"^\s*[=+\-@]\s*[A-Za-z_.]*\s*\(|^\s*=")


NOT_TEXT: Final = object()
"""Cell marker for a JSON list or object where text was expected."""


@dataclass(frozen=True)
class RawTable:
    """A parsed upload: ``frame`` holds raw cells (object dtype) plus ``_line``."""

    name: str
    format: str  # "csv" | "jsonl" | "parquet"
    frame: pd.DataFrame
    header_meta: dict[str, Any] | None = None
    header_line: int | None = None
    notes: tuple[Problem, ...] = field(default=())

    @property
    def row_kind(self) -> str:
        return "row" if self.format == "parquet" else "line"

    @property
    def columns(self) -> list[str]:
        return [c for c in self.frame.columns if c != LINE]


def column_key(name: object) -> str:
    """Normalised column name: trimmed, case-folded, spaces and dashes as ``_``."""
    text = str(name).replace("\ufeff", "").strip().strip('"').strip()
    return re.sub(r"[\s\-]+", "_", text).casefold()


def looks_like_formula(text: str) -> bool:
    """True for cells a spreadsheet would run as a formula (``=HYPERLINK(...)``, ``@SUM(``)."""
    return bool(_FORMULA.match(text))


def cell_text(value: Any) -> Any:
    """A cell as text, ``None`` when empty or null, :data:`NOT_TEXT` for lists and objects."""
    if value is None:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return None
        return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)
    return NOT_TEXT
