"""Tests of medqade.labelstudio.export: loading a Label Studio JSON export (JSON-MIN, CSV and
malformed files refused with the hint), telling ratings from review exports, the problem factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from medqade.files.problems import InputError, ProblemLog
from medqade.labelstudio.export import (
    EXPORT_AS_JSON,
    RATINGS_EXPORT,
    REVIEWS_EXPORT,
    Where,
    check_export_kind,
    export_kind,
    load_export,
    plural,
)
from medqade.labelstudio.ratings import convert

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
PRIMARY = FIXTURES / "primary_export.json"
REAL = FIXTURES / "ls-1.23"
REAL_IDS = {"5": "P01", "6": "P02", "7": "P03"}


def _real_error(path: Path, rater_map: dict[str, str], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        convert(load_export(path), rater_map, name=path.name, **kwargs)
    return str(info.value)


def test_load_export_fixture_has_the_documented_fields() -> None:
    tasks = load_export(PRIMARY)
    assert len(tasks) == 2
    for task in tasks:
        assert {"id", "data", "annotations", "predictions", "meta", "project"} <= set(task)
        for ann in task["annotations"]:
            assert {"id", "completed_by", "result", "was_cancelled", "lead_time", "task"} <= set(
                ann
            )
            for item in ann["result"]:
                assert {"id", "from_name", "to_name", "type", "origin", "value"} <= set(item)


def test_load_export_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('[\n  {"id": 1,\n   "data": }\n]\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"export.json, line 3: malformed JSON"):
        load_export(path)


def test_load_export_not_a_list(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('{"id": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON list of task objects"):
        load_export(path)


def test_load_export_real_json_min_refused() -> None:
    with pytest.raises(InputError) as info:
        load_export(REAL / "p1_legacy_JSON_MIN.json")
    assert str(info.value) == (
        "p1_legacy_JSON_MIN.json: 1 problem found\n  - p1_legacy_JSON_MIN.json: this is a "
        "JSON-MIN export (29 flat rows with 'annotator', no 'data' or 'annotations'); "
        f"{EXPORT_AS_JSON}"
    )


def test_load_export_real_csv_says_it_is_a_csv_export() -> None:
    with pytest.raises(InputError) as info:
        load_export(REAL / "p1_legacy_CSV.csv")
    problem = info.value.problems[0]
    assert problem.message.startswith("this is a CSV export")
    assert "malformed" not in str(info.value)
    assert problem.fix == EXPORT_AS_JSON


def test_import_labelstudio_review_export_refused() -> None:
    review_export = FIXTURES / "ls-1.23-t3" / "review_p1_JSON.json"
    text = _real_error(review_export, REAL_IDS)
    assert text == (
        "review_p1_JSON.json: 1 problem found\n  - review_p1_JSON.json: this is a review export "
        "(its tasks carry data.model and data.answer), not a ratings export; use "
        "`medqade import-reviews` for it"
    )


def test_load_export_tsv_header_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "export.tsv"
    path.write_text("id\tannotator\tlabel_1\n1\t3\tRichtig\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_export(path)
    assert info.value.problems[0].message.startswith("this is a TSV export")
    assert info.value.problems[0].fix == EXPORT_AS_JSON


def test_export_kind_tells_ratings_from_reviews() -> None:
    ratings = [{"data": {"order": ["a"]}}, {"data": {"resp_1": "x"}}, {"no data": 1}]
    reviews = [{"data": {"model": "m", "answer": "x"}}]
    assert export_kind(ratings) == RATINGS_EXPORT
    assert export_kind(reviews) == REVIEWS_EXPORT
    assert export_kind([*ratings, *reviews]) is None
    assert export_kind([{"data": {"question_id": "Q1"}}]) is None
    assert export_kind([]) is None


def test_check_export_kind_names_the_other_command() -> None:
    check_export_kind([{"data": {"order": ["a"]}}], RATINGS_EXPORT, "x.json")
    with pytest.raises(InputError) as info:
        check_export_kind([{"data": {"order": ["a"]}}], REVIEWS_EXPORT, "x.json")
    assert info.value.problems[0].fix == "use `medqade import-labelstudio` for it"


def test_where_names_task_and_annotation_and_warns_on_request() -> None:
    log = ProblemLog()
    Where(log, "e.json", "T-1", 1001)("bad label", "label_1", "vielleicht", "fix it")
    Where(log, "e.json", 7)("missing rating", warn=True)
    (error,) = log.errors
    assert error.row is None
    assert error.message == "task 'T-1': annotation 1001: bad label"
    assert (error.column, error.value, error.fix) == ("label_1", "vielleicht", "fix it")
    (warning,) = log.warnings
    assert warning.row == 7
    assert warning.message == "missing rating"


def test_plural() -> None:
    assert plural(1, "annotation") == "1 annotation"
    assert plural(0, "annotation") == "0 annotations"
    assert plural(3, "more annotation") == "3 more annotations"
