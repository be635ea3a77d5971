"""The one checker every raw table uses (:mod:`medqade.raw.check`): dates as ISO 8601
allows them, the order lists of judgments, and the empty judgments table."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from medqade.raw.check import ISO_DATE, empty_judgments, iso_moment, parse_order


@pytest.mark.parametrize(
    ("text", "moment", "spelled"),
    [
        ("2025-04-02", datetime(2025, 4, 2), "2025-04-02"),
        (" 2025-04-02T14:30:00Z ", None, "2025-04-02T14:30:00Z"),
        ("20250402", datetime(2025, 4, 2), "2025-04-02"),
        ("2025-W14-3", datetime(2025, 4, 2), "2025-04-02"),
        ("2025W143", datetime(2025, 4, 2), "2025-04-02"),
        ("2025-092", datetime(2025, 4, 2), "2025-04-02"),
        ("2025092T1430", datetime(2025, 4, 2, 14, 30), "2025-04-02T14:30:00"),
    ],
)
def test_iso_moment_reads_the_forms_iso_8601_allows(
    text: str, moment: datetime | None, spelled: str
) -> None:
    found = iso_moment(text)
    assert found is not None
    if moment is not None:
        assert found[0] == moment
    assert found[1] == spelled and ISO_DATE.match(spelled)


@pytest.mark.parametrize(
    "text", ["2025-04", "2025-W14", "14:30", "today", "2025-02-30", "2025-366", "2025-000"]
)
def test_iso_moment_refuses_what_is_no_day(text: str) -> None:
    assert iso_moment(text) is None


@pytest.mark.parametrize(
    ("value", "order"),
    [
        (["a", " b "], ["a", "b"]),
        (np.array(["a", "b"]), ["a", "b"]),
        ('["a", "b"]', ["a", "b"]),
        ("a; b, c", ["a", "b", "c"]),
        ("[not json", None),
    ],
)
def test_parse_order(value: object, order: list[str] | None) -> None:
    assert parse_order(value) == order


def test_empty_judgments_has_the_columns_and_types() -> None:
    frame = empty_judgments()
    assert list(frame.columns) == [
        "question_id", "model", "evaluator", "label", "difficulty", "position",
    ]  # fmt: skip
    assert len(frame) == 0 and str(frame["position"].dtype) == "int64"
