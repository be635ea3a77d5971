"""Tests of medqade.scoring.intake.rows: the walker that reads an upload's cells row by row
(question ids, student models, labels, difficulty), naming each bad cell with its line and fix."""

from __future__ import annotations

import pandas as pd
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.files.problems import InputError, ProblemLog
from medqade.scoring.intake.rows import Walker, cells, ignored, require, require_usable
from medqade.scoring.intake.upload_cells import LINE, RawTable


def _walker(sample: Release, frame: pd.DataFrame | None = None) -> tuple[Walker, ProblemLog]:
    table = RawTable("a.csv", "csv", pd.DataFrame({LINE: [2]}) if frame is None else frame)
    log = ProblemLog()
    return Walker(table, sample, log), log


def test_item_reads_known_ids_and_names_unknown_ones(sample: Release) -> None:
    walker, log = _walker(sample)
    qid = str(sample.item_ids[1])
    assert walker.item(2, "question_id", qid) == 1
    assert walker.item(2, "question_id", f" {qid} ") == 1
    assert walker.item(3, "question_id", "nope") is None
    assert walker.item(4, "question_id", "=A1") is None
    assert walker.item(5, "question_id", "") is None
    assert [(p.row, p.message) for p in log.errors] == [
        (3, "unknown question id"),
        (4, "unknown question id"),
        (5, "empty question id"),
    ]
    assert "spreadsheet formula" in (log.errors[1].fix or "")


def test_slot_reads_a_student_by_id_or_name(sample: Release) -> None:
    walker, log = _walker(sample)
    student = sample.roster.students[2]
    assert walker.slot(2, "model", student.id) == 2
    assert walker.slot(2, "model", f"  {student.name.upper()} ") == 2
    assert walker.slot(3, "model", "gpt-2") is None
    assert [p.message for p in log.errors] == ["unknown model (the student whose answer is judged)"]


def test_label_codes_missing_and_invalid(sample: Release) -> None:
    walker, log = _walker(sample)
    assert walker.label(2, "label", "Richtig") == vocab.LABEL_CODES["Richtig"]
    assert walker.label(2, "label", True) == vocab.LABEL_CODES[vocab.parse_label(True)]
    assert walker.label(2, "label", None) == vocab.MISSING_CODE
    assert walker.label(3, "label", "vielleicht") is None
    assert walker.label(4, "label", ["Richtig"]) is None
    assert [p.message for p in log.errors] == [
        "invalid label",
        "expected text, got a list or object",
    ]


def test_difficulty_is_checked_once_per_spelling(sample: Release) -> None:
    walker, log = _walker(sample)
    walker.difficulty(2, "difficulty", "Mittel")
    walker.difficulty(3, "difficulty", "sehr schwer")
    walker.difficulty(4, "difficulty", "sehr schwer")
    assert [(p.row, p.value) for p in log.errors] == [(3, "sehr schwer"), (4, "sehr schwer")]


def test_require_and_ignored_name_the_columns(sample: Release) -> None:
    frame = pd.DataFrame({"question_id": ["Q"], "extra": [1], LINE: [2]})
    table = RawTable("a.csv", "csv", frame)
    log = ProblemLog()
    assert not require(table, ["question_id", "label"], "judge labels", log)
    assert "label" in log.errors[0].message
    ignored(table, ["question_id"], log)
    assert any("extra" in p.message for p in log.warnings)
    assert cells(frame, "question_id") == ["Q"]


def test_require_usable_refuses_rows_without_a_single_label() -> None:
    table = RawTable("f.csv", "csv", pd.DataFrame({LINE: [2, 3], "label": [None, None]}))
    require_usable("f.csv", table, present=2, usable=1)  # one label is enough
    require_usable("f.csv", table, present=0, usable=0)  # no rows: refused elsewhere
    with pytest.raises(InputError) as info:
        require_usable("f.csv", table, present=2, usable=0, what="answer")
    (problem,) = info.value.problems
    assert problem.column == "answer" and "in every one of the 2 lines" in problem.message
