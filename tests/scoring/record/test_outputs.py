"""scoring.outputs: values written out, as CSV a spreadsheet opens without running a formula and
as the canonical JSON records and hashes use."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from medqade.scoring import (
    csv_cell,
    csv_text,
)
from medqade.scoring.record.outputs import dumps, jsonable


def test_csv_export_neutralises_formulas() -> None:
    frame = pd.DataFrame({"name": ['=HYPERLINK("x")', "+1", "@SUM(A1)", "ok", "-x"], "k": range(5)})
    text = csv_text(frame)
    rows = text.splitlines()[1:]
    assert rows[0].startswith("\"'=HYPERLINK") and rows[1].startswith("'+1")
    assert rows[2].startswith("'@SUM") and rows[3].startswith("ok") and rows[4].startswith("'-x")
    assert csv_cell(3) == 3 and csv_cell("Femur") == "Femur"


def test_jsonable_turns_numpy_and_non_finite_values_into_json() -> None:
    value = {1: (np.int64(3), np.float32(0.5)), "b": np.bool_(True), "x": [np.nan, np.inf, "s"]}
    assert jsonable(value) == {"1": [3, 0.5], "b": True, "x": [None, None, "s"]}
    assert type(jsonable(np.int64(3))) is int
    assert jsonable(np.array([1.5, 2.0])) == [1.5, 2.0]


def test_dumps_is_canonical() -> None:
    assert dumps({"b": 1, "a": ["ü", 2.5]}) == '{"a":["ü",2.5],"b":1}'
    assert dumps({"a": 1, "b": 2}) == dumps({"b": 2, "a": 1})
    with pytest.raises(ValueError):
        dumps({"x": float("nan")})
