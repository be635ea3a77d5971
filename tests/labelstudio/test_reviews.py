"""Label Studio review exports: reviewers, notes, cancelled annotations and bad results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.files.problems import InputError
from medqade.labelstudio import reviews as labelstudio_reviews
from medqade.labelstudio.reviews import convert_reviews, import_reviews
from medqade.raw.codebook import DEFAULT_CODEBOOK


def _task(results: list[dict[str, Any]], completed_by: object = 5, **extra: Any) -> dict[str, Any]:
    return {
        "id": 7,
        "data": {"question_id": "S-C01", "model": "qwen3:4b", "answer": "x"},
        "annotations": [
            {"id": 70, "completed_by": completed_by, "was_cancelled": False, "result": results}
        ],
        **extra,
    }


def _choice(control: str, *choices: str) -> dict[str, Any]:
    return {
        "from_name": control,
        "to_name": "answer",
        "type": "choices",
        "value": {"choices": list(choices)},
    }


def test_labels_as_shown_are_accepted_like_aliases() -> None:
    result = convert_reviews(
        [_task([_choice("bezug", "Zu unbestimmt"), _choice("sicherheit", "dosis", "gefaehrlich")])],
        DEFAULT_CODEBOOK,
    )
    row = result.reviews.iloc[0].to_dict()
    assert row == {
        "question_id": "S-C01",
        "model": "qwen3:4b",
        "reviewer": "user 5",
        "codes": "unscharf; gefaehrlich; dosis",
        "note": "",
    }


def test_reviewer_is_the_map_name_else_the_email() -> None:
    task = _task([_choice("bezug", "treffend")], completed_by={"id": 9, "email": "r@k.example"})
    assert convert_reviews([task], DEFAULT_CODEBOOK).reviews["reviewer"].tolist() == ["r@k.example"]
    mapped = convert_reviews([task], DEFAULT_CODEBOOK, reviewer_map={"9": "R1"})
    assert mapped.reviews["reviewer"].tolist() == ["R1"]
    with pytest.raises(InputError, match="the reviewer is not in the reviewer map"):
        convert_reviews([task], DEFAULT_CODEBOOK, reviewer_map={"5": "R1"})


def test_missing_required_group_and_unknown_control_are_problems() -> None:
    with pytest.raises(InputError) as info:
        convert_reviews(
            [_task([_choice("sprache", "sprachmischung"), _choice("severity", "hoch")])],
            DEFAULT_CODEBOOK,
            name="review.json",
        )
    text = str(info.value)
    assert "review.json, task 7, column 'codes': annotation 70: no code of the group" in text
    assert "column 'from_name': annotation 70: unknown from_name (value 'severity')" in text


def test_json_min_export_is_refused_with_the_hint(tmp_path: Path) -> None:
    export = tmp_path / "min.json"
    export.write_text(
        json.dumps([{"id": 1, "annotator": 5, "bezug": "treffend"}]), encoding="utf-8"
    )
    with pytest.raises(InputError, match="JSON-MIN"):
        import_reviews(export, tmp_path / "reviews.csv", DEFAULT_CODEBOOK)
    assert not (tmp_path / "reviews.csv").exists()


# --- hostile variants of a real Label Studio 1.23.2 review export (issue 23) ----------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
REVIEW_EXPORT = FIXTURES / "ls-1.23-t3" / "review_p1_JSON.json"
RATINGS_EXPORT = FIXTURES / "ls-1.23" / "p1_legacy_JSON.json"


def _real() -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = json.loads(REVIEW_EXPORT.read_text(encoding="utf-8"))
    return tasks


def _real_problems(tasks: list[dict[str, Any]], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        convert_reviews(tasks, DEFAULT_CODEBOOK, name="review_p1_JSON.json", **kwargs)
    return str(info.value)


def test_import_reviews_annotations_as_object() -> None:
    tasks = _real()
    tasks[0]["annotations"] = tasks[0]["annotations"][0]
    text = _real_problems(tasks)
    assert "review_p1_JSON.json, task 1, column 'annotations': annotations must be a list" in text


def test_import_reviews_annotation_as_string() -> None:
    tasks = _real()
    tasks[0]["annotations"] = ["treffend"]
    text = _real_problems(tasks)
    assert "task 1, column 'annotations': annotation 1 is not a JSON object" in text
    assert "(value '\"treffend\"')" in text


def test_import_reviews_result_as_object() -> None:
    tasks = _real()
    ann = tasks[0]["annotations"][0]
    ann["result"] = ann["result"][0]
    text = _real_problems(tasks)
    assert "task 1, column 'result': annotation 1: result must be a list of results" in text


def test_import_reviews_from_name_as_list() -> None:
    tasks = _real()
    tasks[0]["annotations"][0]["result"][0]["from_name"] = ["bezug"]
    text = _real_problems(tasks)
    assert "column 'from_name': annotation 1: from_name must be the name of a control" in text
    assert "(value '[\"bezug\"]')" in text
    assert "no code of the group" not in text  # a consequence, not a second fault


def test_import_reviews_textarea_value_as_list() -> None:
    tasks = _real()
    note = tasks[3]["annotations"][0]["result"][1]
    assert note["type"] == "textarea"
    note["value"] = note["value"]["text"]
    text = _real_problems(tasks)
    assert "task 34, column 'note': annotation 4: the note must be a list of lines" in text


def test_import_reviews_textarea_text_as_string() -> None:
    tasks = _real()
    note = tasks[3]["annotations"][0]["result"][1]
    note["value"] = {"text": "Erste Zeile"}
    reviews = convert_reviews(tasks, DEFAULT_CODEBOOK).reviews
    assert reviews.loc[
        reviews["question_id"] == tasks[3]["data"]["question_id"], "note"
    ].tolist() == ["Erste Zeile"]


def test_import_reviews_completed_by_list() -> None:
    tasks = _real()
    tasks[0]["annotations"][0]["completed_by"] = [7]
    text = _real_problems(tasks)
    assert (
        "column 'completed_by': annotation 1: completed_by must be a user id or a user object"
        in text
    )
    assert "user [7]" not in text


def test_import_reviews_second_annotation_by_one_reviewer() -> None:
    tasks = _real()
    second = json.loads(json.dumps(tasks[0]["annotations"][0]))
    second["id"] = 99
    tasks[0]["annotations"].append(second)
    text = _real_problems(tasks)
    assert "task 1, column 'completed_by': annotation 99: user 2 already reviewed" in text
    assert "in annotation 1" in text


def test_import_reviews_email_map_over_id_only_export() -> None:
    text = _real_problems(
        _real(),
        reviewer_map={"dr.lehmann@klinik.example": "Lehmann", "dr.oezdemir@klinik.example": "Oe"},
    )
    assert (
        "the reviewer map names e-mails, but the Export button's JSON names users by "
        "integer id only" in text
    )


def test_import_reviews_ratings_export_refused() -> None:
    tasks = json.loads(RATINGS_EXPORT.read_text(encoding="utf-8"))
    text = _real_problems(tasks)
    assert text == (
        "review_p1_JSON.json: 1 problem found\n  - review_p1_JSON.json: this is a ratings export "
        "(its tasks carry data.order / data.resp_k), not a review export; use "
        "`medqade import-labelstudio` for it"
    )


def test_import_reviews_unknown_code_says_pass_codebook() -> None:
    tasks = _real()
    tasks[0]["annotations"][0]["result"][0]["value"] = {"choices": ["eigen_code"]}
    text = _real_problems(tasks)
    assert "unknown code (not in the codebook" in text
    first = text.splitlines()[1]
    assert first.startswith(
        "  - review_p1_JSON.json: 1 choice(s) are not codes of the codebook"
    ) and first.endswith(": eigen_code; " + labelstudio_reviews.OTHER_CODEBOOK)
    assert "pass it with --codebook and copy it to RAW/codebook.json" in text
