"""The one checker every raw table uses (:mod:`medqade.raw.check`): dates as ISO 8601
allows them, and each problem the checker records with file, line, column and value."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pandas as pd
import pytest

from medqade import vocab
from medqade.files.problems import ProblemLog
from medqade.files.tables import LINE
from medqade.raw.check import ISO_DATE, Checker, iso_moment


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


def _checker(rows: list[dict[str, object]]) -> tuple[Checker, ProblemLog]:
    frame = pd.DataFrame(rows)
    frame.insert(0, LINE, range(2, 2 + len(rows)))
    log = ProblemLog()
    return Checker(log, Path("answers.csv"), frame), log


def test_checker_records_file_line_column_value_and_fix() -> None:
    c, log = _checker([{"question_id": "q1", "model": "m"}, {"question_id": "q9", "model": "m"}])
    assert c.require_columns(["question_id", "model"])
    assert not c.require_columns(["question_id", "answer"])
    ok = c.check_known_questions({"q1"})
    assert ok.tolist() == [True, False]
    c.check_duplicates(["model"], "answer")
    missing, unknown, dup = log.errors
    assert missing.message == "missing required column(s) answer" and missing.row is None
    assert (unknown.file, unknown.row, unknown.column, unknown.value) == (
        "answers.csv", 3, "question_id", "q9",
    )  # fmt: skip
    assert unknown.fix == "add the item to the questions table or remove the row"
    assert (dup.row, dup.message, dup.column, dup.value) == (3, "duplicate answer", "model", "m")
    c.problem(2, "looks odd", "model", "m", warn=True)
    assert [w.message for w in log.warnings] == ["looks odd"] and len(log.errors) == 3


def test_canonicalise_maps_each_value_and_flags_the_bad_ones() -> None:
    c, log = _checker([{"label": "richtig"}, {"label": "maybe"}, {"label": " "}])
    out = c.canonicalise("label", vocab.parse_label, allow_empty=True)
    assert out.tolist()[0] == vocab.RICHTIG and out.tolist()[2] == "" and pd.isna(out[1])
    (bad,) = log.errors
    assert (bad.row, bad.column, bad.value) == (3, "label", "maybe")
    assert bad.message.startswith("unknown label")
