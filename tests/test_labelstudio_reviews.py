"""Label Studio review exports: reviewers, notes, cancelled annotations and bad results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.codebook import DEFAULT_CODEBOOK
from medqade.labelstudio_reviews import convert_reviews, import_reviews
from medqade.problems import InputError


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
