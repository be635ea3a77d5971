"""Values written out: CSV text a spreadsheet opens without running a formula, and the canonical
JSON (numpy values as Python numbers, NaN as null, sorted keys) that records and hashes use."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd


def csv_cell(value: Any) -> Any:
    """A value safe to write into a CSV that a spreadsheet opens: text starting with ``=``,
    ``+``, ``-``, ``@``, tab or carriage return gets a leading ``'`` (formula injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as UTF-8 CSV text with every text cell passed through :func:`csv_cell`."""
    safe = frame.copy()
    for col in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[col]):
            safe[col] = safe[col].astype(object).map(csv_cell)
    safe.columns = [csv_cell(str(c)) for c in safe.columns]
    buf = io.StringIO()
    safe.to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue()


def jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python numbers, tuples as lists and NaN/inf as None."""
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    return obj


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys, no NaN) used for hashing and records."""
    return json.dumps(
        obj, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")
    )
