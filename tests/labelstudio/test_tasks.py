"""Tests of medqade.labelstudio.tasks: one task of a ratings export read field by field (the model
order, the answer texts against a raw release, the round, the choices and the rows they make)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from medqade import vocab
from medqade.files.problems import InputError, ProblemLog
from medqade.labelstudio.export import Where, load_export
from medqade.labelstudio.ratings import convert
from medqade.labelstudio.tasks import (
    RawTexts,
    check_texts,
    choices,
    load_raw_texts,
    positions,
    rating_rows,
    round_of,
    seen_before,
    split_of,
    task_data,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
Row = tuple[str, ...]
REAL = FIXTURES / "ls-1.23"


def _frame_rows(frame: Any) -> set[Row]:
    return {tuple(str(v) for v in r) for r in frame.itertuples(index=False)}


LEGACY = REAL / "p1_legacy_JSON.json"
REAL_IDS = {"5": "P01", "6": "P02", "7": "P03"}
ADMIN_ID, ADMIN_EMAIL = 1, "admin@example.org"


def _intended(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / name).read_text(encoding="utf-8"))
    return data


def _real_ratings(rows: list[list[str]], round: str) -> set[Row]:
    return {(*row, round) for row in rows}


def _real_error_tasks(tasks: list[dict[str, Any]], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        convert(tasks, REAL_IDS, name=LEGACY.name, exclude=[ADMIN_ID], **kwargs)
    return str(info.value)


def _raw_from_tasks(folder: Path, tasks: list[dict[str, Any]]) -> Path:
    """A raw release's questions and answers written from the tasks' own data (README)."""
    folder.mkdir()
    with (folder / "answers.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["question_id", "model", "answer"])
        for task in tasks:
            data = task["data"]
            order = data.get("order") or [data[f"model_{k}"] for k in range(1, 6)]
            for k, model in enumerate(order, start=1):
                writer.writerow([data["question_id"], model, data[f"resp_{k}"]])
    with (folder / "questions.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["question_id", "split", "question", "reference_answer"])
        for task in tasks:
            d = task["data"]
            writer.writerow([d["question_id"], d["split"], d["question"], d["reference_answer"]])
    return folder


def test_convert_real_answers_match_the_raw_release(tmp_path: Path) -> None:
    tasks = load_export(LEGACY)
    raw = load_raw_texts(_raw_from_tasks(tmp_path / "raw", tasks))
    assert len(raw.answers) == 50
    result = convert(tasks, REAL_IDS, exclude=[ADMIN_ID], raw=raw)
    assert _frame_rows(result.ratings) == _real_ratings(
        _intended("intended.json")["ratings"], "primary"
    )


def test_convert_real_wrong_order_is_caught(tmp_path: Path) -> None:
    tasks = load_export(LEGACY)
    raw = load_raw_texts(_raw_from_tasks(tmp_path / "raw", tasks))
    order = tasks[1]["data"]["order"]
    order[0], order[1] = order[1], order[0]  # the ratings would land on the wrong models
    text = _real_error_tasks(tasks, raw=raw)
    d = tasks[1]["data"]
    assert text.startswith("Label Studio export p1_legacy_JSON.json: 2 problems found")
    assert (
        f"task 2, column 'data.resp_1': data.resp_1 is not the raw release's answer of "
        f"order[1] = {order[0]} (the raw release has {d['resp_2']!r}) (value {d['resp_1']!r}); "
        "data.order of this task does not match its answers"
    ) in text
    assert "column 'data.resp_2': data.resp_2 is not the raw release's answer of order[2]" in text


def test_convert_real_question_missing_from_raw_release(tmp_path: Path) -> None:
    tasks = load_export(LEGACY)
    raw = load_raw_texts(_raw_from_tasks(tmp_path / "raw", tasks[1:]))
    text = _real_error_tasks(tasks, raw=raw)
    assert "task 1, column 'data.resp_1': the raw release raw has no answer of gemma3:4b to " in (
        text
    )


ROSTER = vocab.DEFAULT_ROSTER
ORDER = list(ROSTER.student_ids)


def _at() -> tuple[ProblemLog, Where]:
    log = ProblemLog()
    return log, Where(log, "e.json", 1, 10)


def _pick(value: str, control: str) -> dict[str, Any]:
    return {"type": "choices", "from_name": control, "value": {"choices": [value]}}


def test_positions_read_order_in_every_written_form() -> None:
    log, at = _at()
    assert positions({"order": ORDER}, at, ROSTER) == ORDER
    assert positions({"order": json.dumps(ORDER)}, at, ROSTER) == ORDER
    assert positions({"order": " , ".join(ORDER)}, at, ROSTER) == ORDER
    models = {f"model_{k}": m for k, m in enumerate(ORDER, start=1)}
    assert positions(models, at, ROSTER) == ORDER
    assert log.errors == []
    assert positions({"order": ORDER[:4] + ORDER[:1]}, at, ROSTER) is None
    assert positions({"order": "[not json"}, at, ROSTER) is None
    assert positions({}, at, ROSTER) is None
    assert [p.column for p in log.errors] == ["data.order", "data.order", "data"]


def test_check_texts_names_the_position_whose_answer_differs() -> None:
    log, at = _at()
    raw = RawTexts({("Q1", ORDER[0]): "Ja.", ("Q1", ORDER[1]): "Nein."}, {})
    check_texts("Q1", {"resp_1": " Ja. ", "resp_2": "Ja."}, ORDER, raw, at)
    (problem,) = log.errors
    assert problem.column == "data.resp_2"
    assert problem.message.startswith(
        "annotation 10: data.resp_2 is not the raw release's answer of order[2]"
    )


def test_round_of_infers_adjudication_for_the_adjudicator_on_an_extension_item() -> None:
    log, at = _at()
    adj = ROSTER.adjudicator
    assert round_of("P01", vocab.EXTENSION, None, ROSTER, at) == vocab.PRIMARY
    assert round_of(adj, vocab.EXTENSION, None, ROSTER, at) == vocab.ADJUDICATION
    assert round_of(adj, "core", None, ROSTER, at) == vocab.PRIMARY
    assert round_of("P01", None, vocab.RERATING, ROSTER, at) == vocab.RERATING
    assert log.errors == []
    assert round_of("P01", "core", vocab.ADJUDICATION, ROSTER, at) is None
    assert round_of(adj, None, None, ROSTER, at) is None
    assert round_of(adj, vocab.EXTENSION, vocab.PRIMARY, ROSTER, at) is None
    assert [p.column for p in log.errors] == ["completed_by", "data.split", "completed_by"]


def test_split_of_prefers_the_raw_release() -> None:
    raw = RawTexts({}, {"Q1": vocab.EXTENSION})
    assert split_of("Q1", {"split": "core"}, raw) == vocab.EXTENSION
    assert split_of("Q1", {"split": " core "}, None) == "core"
    assert split_of("Q1", {"split": "other"}, None) is None


def test_task_data_needs_a_data_object_with_a_question_id() -> None:
    log, at = _at()
    assert task_data({"data": {"question_id": "Q1"}}, at) == {"question_id": "Q1"}
    assert task_data({"data": {"question_id": " "}}, at) is None
    assert task_data({}, at) is None
    assert [p.column for p in log.errors] == ["data.question_id", "data"]


def test_seen_before_remembers_the_first_annotation() -> None:
    log, at = _at()
    seen: dict[tuple[str, str], object] = {}
    assert not seen_before(seen, "Q1", "P01", 10, at)
    assert seen_before(seen, "Q1", "P01", 11, at)
    assert not seen_before(seen, "Q1", "P02", 12, at)
    (problem,) = log.errors
    assert problem.message == "annotation 10: P01 already rated question Q1 in annotation 10"


def test_choices_reads_labels_by_position_and_the_difficulty() -> None:
    log, at = _at()
    result = [
        _pick("Richtig", "label_1"),
        _pick("Falsch", "resp_3"),
        _pick("Schwer", "difficulty"),
        {"type": "textarea", "from_name": "comment", "value": {"text": ["gut"]}},
    ]
    assert choices(result, at) == ({1: "Richtig", 3: "Falsch"}, "Schwer")
    assert log.errors == []
    bad = [_pick("Correct", "label_1"), _pick("Easy", "difficulty"), _pick("Richtig", "label_6")]
    assert choices(bad, at) == ({}, None)
    assert [p.message.split(": ")[-1] for p in log.errors] == [
        "bad label",
        "bad difficulty",
        "unknown from_name",
    ]


def test_rating_rows_warn_for_an_empty_position_and_keep_a_reratings_date() -> None:
    log, at = _at()
    ann = {"created_at": "2025-05-12T08:14:03Z"}
    rows = rating_rows("Q1", "P01", ORDER, {1: "Richtig", 2: "Falsch"}, ann, "rerating", at)
    assert [(r["model"], r["label"], r["rated_at"]) for r in rows] == [
        (ORDER[0], "Richtig", "2025-05-12T08:14:03Z"),
        (ORDER[1], "Falsch", "2025-05-12T08:14:03Z"),
    ]
    assert [p.column for p in log.warnings] == ["label_3", "label_4", "label_5"]
    assert log.errors == []
    rows = rating_rows(
        "Q1", "P01", ORDER, {1: "Richtig"}, {"created_at": "gestern"}, "rerating", at
    )
    assert [p.column for p in log.errors] == ["created_at"]
    primary = rating_rows("Q1", "P01", ORDER, {1: "Richtig"}, ann, "primary", at)
    assert "rated_at" not in primary[0]
