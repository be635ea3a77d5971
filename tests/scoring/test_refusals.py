"""Files that cannot be scored: nothing usable in them, compressed, archived or binary."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.files.problems import InputError
from medqade.scoring import attach_labels, parse_submission, validate_only

from .helpers import jsonl

Write = Callable[[str, str | bytes], Path]


def rows(sample: Release, label: str) -> str:
    return "question_id,model,label\n" + "".join(
        f"{q},{m},{label}\n" for q in sample.item_ids for m in sample.roster.student_ids
    )


def refusal(data: bytes, name: str, sample: Release, kind: str | None = None) -> str:
    with pytest.raises(InputError) as exc:
        parse_submission(data, name, sample, kind)
    assert len(exc.value.problems) == 1
    return str(exc.value.problems[0])


# --- not a single usable label ---------------------------------------------------------------


def test_judge_rows_with_every_label_empty_are_refused(sample: Release) -> None:
    text = refusal(rows(sample, "").encode(), "empty.csv", sample)
    assert text.startswith("empty.csv, column 'label': not a single usable label")
    assert f"every one of the {sample.n_items * 5} lines" in text
    assert "fill in the labels (Richtig, Falsch or Keine Angabe" in text


def test_per_question_file_with_every_resp_null_is_refused(sample: Release) -> None:
    order = list(sample.roster.student_ids)
    records = [
        {"question_id": q, "order": order, **{f"resp_{k}": None for k in range(1, 6)}}
        for q in sample.item_ids
    ]
    text = refusal(jsonl(records).encode(), "run.jsonl", sample)
    assert "not a single usable label" in text and "resp_1..resp_5" in text


def test_one_usable_label_is_enough(sample: Release) -> None:
    text = rows(sample, "").replace(",\n", ",Richtig\n", 1)
    sub = parse_submission(text.encode(), "one.csv", sample)
    assert sub.labels is not None and int((sub.labels >= 0).sum()) == 1


def test_answers_with_every_answer_empty_are_refused(sample: Release) -> None:
    data = ("question_id,answer\n" + "".join(f"{q},\n" for q in sample.item_ids)).encode()
    text = refusal(data, "answers.csv", sample)
    assert "not a single usable answer" in text and "fill in the answers" in text


def test_labels_for_answers_with_every_label_empty_are_refused(sample: Release) -> None:
    answers = "question_id,answer\n" + "".join(f"{q},Femur\n" for q in sample.item_ids)
    sub = parse_submission(answers.encode(), "a.csv", sample)
    labels = "question_id,label\n" + "".join(f"{q},\n" for q in sample.item_ids)
    with pytest.raises(InputError, match="not a single usable label"):
        attach_labels(sub, labels.encode(), "labels.csv", sample)


def test_cli_refuses_an_all_empty_judge_file(
    sample_dir: Path, sample: Release, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write("blank.csv", rows(sample, ""))
    code = main(["score", str(path), "--data", str(sample_dir), "--resamples", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert "blank.csv, column 'label': not a single usable label" in err and "Traceback" not in err


# --- compressed, archived, binary ------------------------------------------------------------


def test_validate_only_reports_compression(sample: Release) -> None:
    result = validate_only(gzip.compress(b"question_id,answer\n"), "a.csv.gz", sample)
    assert result["ok"] is False and "gzip-compressed" in result["problems"][0]


@pytest.mark.parametrize(("column", "cell"), [("run", [1]), ("position", {"a": 1})])
def test_a_list_or_object_as_run_or_position_is_shown_as_written(
    sample: Release, column: str, cell: object
) -> None:
    """A JSON list as ``run`` or ``position`` was shown as "value '<object object at 0x...>'"
    (the parser's marker object, not the cell)."""
    row = {"question_id": "S-C01", "model": "gpt-5-nano", "label": "Richtig", column: cell}
    text = refusal(jsonl([row]).encode(), "s.jsonl", sample)
    assert f"s.jsonl, line 1, column {column!r}: invalid {column}: a list or object" in text
    assert f"(value {str(cell)!r})" in text and "object at 0x" not in text
