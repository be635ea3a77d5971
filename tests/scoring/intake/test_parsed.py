"""A checked submission: read-only arrays and the summary the Space and ``--validate-only``
show."""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np
import pytest

from medqade.dataset.release import Release
from medqade.files.problems import Problem
from medqade.scoring import parse_submission
from medqade.scoring.intake.parsed import Submission, readonly

from ..helpers import answers_csv


def test_readonly_is_the_same_array_frozen() -> None:
    a = np.arange(3)
    b = readonly(a)
    assert b is a and not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5


def test_parsed_arrays_cannot_be_changed(sample: Release) -> None:
    sub = parse_submission(answers_csv(sample, ["x"] * 6).encode(), "a.csv", sample)
    with pytest.raises(ValueError, match="read-only"):
        sub.present[0] = False


def test_summary_lists_what_was_parsed_with_nan_as_none() -> None:
    sub = Submission(
        kind="judge",
        format="rows",
        filename="j.csv",
        content_hash="ab" * 32,
        n_rows=7,
        scope="partial",
        coverage=MappingProxyType({"core": 0.5, "full": math.nan}),
        present=np.ones((2, 5), dtype=bool),
        warnings=(Problem("j.csv", 3, "duplicate row"),),
    )
    assert sub.summary().to_json() == {
        "kind": "judge",
        "format": "rows",
        "rows": 7,
        "scope": "partial",
        "coverage": {"core": 0.5, "full": None},
        "content_hash": "ab" * 32,
        "warnings": [str(Problem("j.csv", 3, "duplicate row"))],
    }
