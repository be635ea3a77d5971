"""Tests of medqade.labelstudio.ratings and ``medqade import-labelstudio``.

The fixtures in ``tests/fixtures/labelstudio/`` follow Label Studio's documented JSON export
("Label Studio Task Format", https://labelstud.io/guide/task_format; see the README there).
Oracle: their labels were written to equal the rows of ``data/sample/ratings.csv`` and
``difficulty.csv`` for items S-E01 and S-E02, so converting them must give those rows back.
"""

from __future__ import annotations

import copy
import csv
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from medqade import vocab
from medqade.cli import main
from medqade.dataset.build import build
from medqade.files.problems import InputError
from medqade.labelstudio import ratings as labelstudio
from medqade.labelstudio.export import EXPORT_AS_JSON, load_export
from medqade.labelstudio.ratings import convert, import_export
from medqade.labelstudio.users import WHERE_USER_IDS, load_rater_map

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
PRIMARY = FIXTURES / "primary_export.json"
ADJUDICATION = FIXTURES / "adjudication_export.json"
RATER_MAP = FIXTURES / "rater_map.json"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
ITEMS = ("S-E01", "S-E02")

Row = tuple[str, ...]


def _sample_rows(name: str, *, round: str | None = None) -> set[Row]:
    with (SAMPLE / name).open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["question_id"] in ITEMS]
    if round is not None:
        rows = [r for r in rows if r["round"] == round]
    return {tuple(r.values()) for r in rows}


def _csv_rows(path: Path) -> tuple[list[str], set[Row]]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        return header, {tuple(r) for r in reader}


def _frame_rows(frame: Any) -> set[Row]:
    return {tuple(str(v) for v in r) for r in frame.itertuples(index=False)}


@pytest.fixture
def tasks() -> list[dict[str, Any]]:
    """A fresh, mutable copy of the primary export."""
    return copy.deepcopy(load_export(PRIMARY))


@pytest.fixture
def rater_map() -> dict[str, str]:
    return load_rater_map(RATER_MAP)


def _error(tasks: list[dict[str, Any]], rater_map: dict[str, str], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        convert(tasks, rater_map, name="primary_export.json", **kwargs)
    return str(info.value)


def _result(task: dict[str, Any], annotation: int, from_name: str) -> dict[str, Any]:
    items = task["annotations"][annotation]["result"]
    found: dict[str, Any] = next(r for r in items if r["from_name"] == from_name)
    return found


# --- the documented export shape ---------------------------------------------------------------


def test_convert_primary_export_equals_the_sample_rows(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    result = convert(tasks, rater_map)
    assert list(result.ratings.columns) == ["question_id", "rater", "model", "label", "round"]
    assert _frame_rows(result.ratings) == _sample_rows("ratings.csv", round="primary")
    assert len(result.ratings) == 20


def test_convert_difficulty_equals_the_sample_rows(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    result = convert(tasks, rater_map)
    expected = {r for r in _sample_rows("difficulty.csv") if r[1] != "P10"}
    assert _frame_rows(result.difficulty) == expected


def test_convert_skips_cancelled_annotations(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    result = convert(tasks, rater_map)
    assert (result.n_tasks, result.n_annotations, result.n_cancelled) == (2, 5, 1)
    assert "P05" not in set(result.ratings["rater"])  # user 8's annotation was cancelled
    assert result.warnings == ()


def test_convert_cancelled_annotation_needs_no_known_user(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    del rater_map["8"]
    assert len(convert(tasks, rater_map).ratings) == 20


def test_convert_completed_by_email_case_insensitive(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    assert tasks[1]["annotations"][0]["completed_by"]["email"] == "dr.schulz@klinik.example"
    tasks[1]["annotations"][0]["completed_by"]["email"] = "Dr.Schulz@Klinik.Example"
    result = convert(tasks, rater_map)
    assert "P03" in set(result.ratings["rater"])


def test_convert_completed_by_object_with_id_only(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    tasks[0]["annotations"][0]["completed_by"] = {"id": 3, "email": "unbekannt@klinik.example"}
    result = convert(tasks, rater_map)
    assert set(result.ratings.loc[result.ratings["question_id"] == "S-E01", "rater"]) == {
        "P01",
        "P02",
    }


@pytest.mark.parametrize(
    "order",
    [
        '["gemma3:4b", "gemini-2.5-flash", "qwen3:4b", "gemma3:27b", "gpt-5-nano"]',
        "gemma3:4b, gemini-2.5-flash, qwen3:4b, gemma3:27b, gpt-5-nano",
    ],
)
def test_convert_order_as_string(
    tasks: list[dict[str, Any]], rater_map: dict[str, str], order: str
) -> None:
    assert tasks[0]["data"]["order"][0] == "gemma3:4b"
    tasks[0]["data"]["order"] = order
    assert _frame_rows(convert(tasks, rater_map).ratings) == _sample_rows(
        "ratings.csv", round="primary"
    )


def test_convert_model_columns_instead_of_order(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    order = tasks[0]["data"].pop("order")
    for k, model in enumerate(order, start=1):
        tasks[0]["data"][f"model_{k}"] = model
    assert _frame_rows(convert(tasks, rater_map).ratings) == _sample_rows(
        "ratings.csv", round="primary"
    )


def test_convert_label_aliases_refused(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    # only the labeling config's German values count: aliases that vocab.parse_label would take
    _result(tasks[0], 0, "label_2")["value"]["choices"] = ["correct"]
    _result(tasks[0], 0, "label_1")["value"]["choices"] = [" Falsch "]
    _result(tasks[0], 0, "difficulty")["value"]["choices"] = ["medium"]
    text = _error(tasks, rater_map)
    assert "annotation 1001: bad label (value 'correct')" in text
    assert "annotation 1001: bad label (value ' Falsch ')" in text
    assert "annotation 1001: bad difficulty (value 'medium')" in text
    assert "the labeling config's choices are Einfach, Mittel, Schwer" in text


def test_convert_missing_position_is_a_warning(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    results = tasks[0]["annotations"][0]["result"]
    tasks[0]["annotations"][0]["result"] = [r for r in results if r["from_name"] != "label_3"]
    result = convert(tasks, rater_map, name="primary_export.json")
    assert len(result.ratings) == 19
    missing = result.ratings[
        (result.ratings["rater"] == "P01") & (result.ratings["model"] == "qwen3:4b")
    ]
    assert missing.empty  # never guessed
    assert [str(w) for w in result.warnings] == [
        "primary_export.json, task 4417, column 'label_3': annotation 1001: no rating for the "
        "answer at position 3 (qwen3:4b): left out as missing"
    ]


def test_convert_adjudication_round(rater_map: dict[str, str]) -> None:
    result = convert(load_export(ADJUDICATION), rater_map, round="adjudication")
    assert _frame_rows(result.ratings) == _sample_rows("ratings.csv", round="adjudication")
    assert _frame_rows(result.difficulty) == {("S-E02", "P10", "Schwer")}


def test_convert_rows_sorted_by_item_model_rater(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    ratings = convert(tasks, rater_map).ratings
    assert ratings["question_id"].tolist() == ["S-E01"] * 10 + ["S-E02"] * 10
    assert ratings["model"].tolist()[:4] == ["gemini-2.5-flash"] * 2 + ["gpt-5-nano"] * 2
    assert ratings["rater"].tolist()[:4] == ["P01", "P02", "P01", "P02"]


# --- errors: one test per message -------------------------------------------------------------


def test_convert_unknown_user(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    tasks[0]["annotations"][2]["completed_by"] = 99
    text = _error(tasks, rater_map)
    assert (
        "primary_export.json, task 4417, column 'completed_by': annotation 1003: "
        "unknown Label Studio user (value '99'); the rater map or --exclude-user names e-mails, "
        "but the Export button's JSON names users by integer id only"
    ) in text
    assert text.endswith("or leave the user's annotations out with --exclude-user 99")


def test_convert_unknown_user_by_email(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    tasks[1]["annotations"][0]["completed_by"] = {"id": 55, "email": "neu@klinik.example"}
    text = _error(tasks, rater_map)
    assert "task 4418, column 'completed_by': annotation 1004: unknown Label Studio user" in text
    assert "(value 'neu@klinik.example'); add the user's id or e-mail to the rater map" in text


def test_convert_unknown_from_name(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    _result(tasks[1], 1, "label_5")["from_name"] = "label_6"
    text = _error(tasks, rater_map)
    assert (
        "primary_export.json, task 4418, column 'from_name': annotation 1005: unknown from_name "
        "(value 'label_6'); name the controls label_1 .. label_5 and difficulty"
    ) in text


def test_convert_bad_label(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    _result(tasks[1], 0, "label_4")["value"]["choices"] = ["Teilweise richtig"]
    text = _error(tasks, rater_map)
    assert (
        "primary_export.json, task 4418, column 'label_4': annotation 1004: bad label "
        "(value 'Teilweise richtig')"
    ) in text
    assert "the labeling config's choices are Richtig, Falsch, Keine Angabe (German" in text


def test_convert_bad_difficulty(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    _result(tasks[0], 0, "difficulty")["value"]["choices"] = ["sehr schwer"]
    text = _error(tasks, rater_map)
    assert "task 4417, column 'difficulty': annotation 1001: bad difficulty" in text
    assert "(value 'sehr schwer')" in text


def test_convert_two_choices(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    _result(tasks[0], 0, "label_1")["value"]["choices"] = ["Richtig", "Falsch"]
    text = _error(tasks, rater_map)
    assert "task 4417, column 'label_1': annotation 1001: expected exactly one choice" in text
    assert '(value \'{"choices": ["Richtig", "Falsch"]}\')' in text


def test_convert_same_from_name_twice(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    results = tasks[0]["annotations"][0]["result"]
    results.append(copy.deepcopy(_result(tasks[0], 0, "label_2")))
    text = _error(tasks, rater_map)
    assert "task 4417, column 'from_name': annotation 1001: two results for the same from_name" in (
        text
    )
    assert "(value 'label_2')" in text


def test_convert_ignores_predictions(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    prediction = {
        "model_version": "m1",
        "score": 0.5,
        "result": [copy.deepcopy(_result(tasks[0], 0, "label_1"))],
    }
    prediction["result"][0]["value"]["choices"] = ["Keine Angabe"]
    tasks[0]["predictions"] = [prediction]
    assert _frame_rows(convert(tasks, rater_map).ratings) == _sample_rows(
        "ratings.csv", round="primary"
    )


def test_convert_task_without_question_id(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    del tasks[1]["data"]["question_id"]
    text = _error(tasks, rater_map)
    assert (
        "primary_export.json, task 4418, column 'data.question_id': task without question_id"
    ) in text


def test_convert_task_without_model_order(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    del tasks[0]["data"]["order"]
    text = _error(tasks, rater_map)
    assert "task 4417, column 'data': task data names no student models" in text


def test_convert_bad_model_order(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    tasks[0]["data"]["order"][4] = "gpt-4o"
    text = _error(tasks, rater_map)
    assert "task 4417, column 'data.order': the task's model order must list the five" in text
    assert '"gpt-4o"' in text


def test_convert_adjudication_by_non_adjudicator(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    text = _error(tasks, rater_map, round="adjudication")
    assert "annotation 1001: only the adjudicator P10 rates in the adjudication round" in text
    assert "(value 'P01')" in text


def test_convert_two_annotations_by_one_rater(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    tasks[0]["annotations"][2]["completed_by"] = 3  # P02's annotation now claims P01
    text = _error(tasks, rater_map)
    assert (
        "task 4417, column 'completed_by': annotation 1003: P01 already rated question S-E01 "
        "in annotation 1001 (value 'P01')"
    ) in text


def test_convert_unknown_round(tasks: list[dict[str, Any]], rater_map: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="unknown round 'zweite'"):
        convert(tasks, rater_map, round="zweite")


def test_convert_several_problems_in_one_message(
    tasks: list[dict[str, Any]], rater_map: dict[str, str]
) -> None:
    tasks[0]["annotations"][0]["completed_by"] = 42
    _result(tasks[1], 0, "label_2")["value"]["choices"] = ["vielleicht"]
    _result(tasks[1], 1, "label_1")["from_name"] = "answer_1"
    text = _error(tasks, rater_map)
    assert text.startswith("Label Studio export primary_export.json: 3 problems found\n")
    assert "annotation 1001: unknown Label Studio user (value '42')" in text
    assert "annotation 1004: bad label (value 'vielleicht')" in text
    assert "annotation 1005: unknown from_name (value 'answer_1')" in text


# --- writing the raw tables ---------------------------------------------------------------------


def test_import_export_writes_csv(tmp_path: Path, rater_map: dict[str, str]) -> None:
    ratings, difficulty = tmp_path / "ratings.csv", tmp_path / "difficulty.csv"
    import_export(PRIMARY, ratings, rater_map, difficulty_out=difficulty)
    header, rows = _csv_rows(ratings)
    assert header == ["question_id", "rater", "model", "label", "round"]
    assert rows == _sample_rows("ratings.csv", round="primary")
    assert ratings.read_bytes().count(b"\r") == 0
    assert _csv_rows(difficulty)[0] == ["question_id", "rater", "difficulty"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["difficulty.csv", "ratings.csv"]


def test_import_export_append_adjudication(tmp_path: Path, rater_map: dict[str, str]) -> None:
    ratings, difficulty = tmp_path / "ratings.csv", tmp_path / "difficulty.csv"
    import_export(PRIMARY, ratings, rater_map, difficulty_out=difficulty)
    import_export(
        ADJUDICATION,
        ratings,
        rater_map,
        difficulty_out=difficulty,
        round="adjudication",
        append=True,
    )
    assert _csv_rows(ratings)[1] == _sample_rows("ratings.csv")
    assert _csv_rows(difficulty)[1] == _sample_rows("difficulty.csv")


def test_import_export_append_twice_is_an_error(tmp_path: Path, rater_map: dict[str, str]) -> None:
    ratings = tmp_path / "ratings.csv"
    import_export(PRIMARY, ratings, rater_map)
    before = ratings.read_bytes()
    with pytest.raises(InputError) as info:
        import_export(PRIMARY, ratings, rater_map, append=True)
    text = str(info.value)
    assert (
        "ratings.csv, line 2, column 'question_id/model/rater': already holds this rating as "
        "round primary (line 2), while the export's row is round primary" in text
    )
    assert "(value 'S-E01/gemini-2.5-flash/P01')" in text
    assert ratings.read_bytes() == before


def test_import_export_error_writes_nothing(tmp_path: Path, rater_map: dict[str, str]) -> None:
    del rater_map["4"]
    with pytest.raises(InputError, match="unknown Label Studio user"):
        import_export(PRIMARY, tmp_path / "ratings.csv", rater_map)
    assert list(tmp_path.iterdir()) == []


def test_import_export_refuses_non_csv_output(tmp_path: Path, rater_map: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=r"ratings.jsonl: the importer writes CSV"):
        import_export(PRIMARY, tmp_path / "ratings.jsonl", rater_map)


def test_import_export_feeds_the_build(
    tmp_path: Path,
    copy_sample: Callable[[], Path],
    rater_map: dict[str, str],
    built_sample: Path,
) -> None:
    raw = copy_sample()
    for name in ("ratings.csv", "difficulty.csv"):
        lines = (raw / name).read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [line for line in lines if not line.startswith(ITEMS)]
        (raw / name).write_text("".join(kept), encoding="utf-8")
    for export, round in ((PRIMARY, "primary"), (ADJUDICATION, "adjudication")):
        import_export(
            export,
            raw / "ratings.csv",
            rater_map,
            difficulty_out=raw / "difficulty.csv",
            round=round,
            append=True,
        )
    meta = build(raw, tmp_path / "out")
    expected = json.loads((built_sample / "release.json").read_text(encoding="utf-8"))
    assert meta.counts == expected["counts"]
    assert meta.files == expected["files"]  # the same Parquet bytes as the hand-written sample


def test_labelstudio_module_documents_the_mapping() -> None:
    doc = labelstudio.__doc__ or ""
    for needle in ("label_<k>", "difficulty", "completed_by", "was_cancelled", "task_format"):
        assert needle in doc


# --- the real exports of Label Studio 1.23.2 (tests/fixtures/labelstudio/ls-1.23/README.md) ------

REAL = FIXTURES / "ls-1.23"
LEGACY = REAL / "p1_legacy_JSON.json"
SNAPSHOT = REAL / "p1_snapshot_full_JSON.json"
ADJ_SDK = REAL / "p2_adjudication_sdk_JSON.json"
REAL_IDS = {"5": "P01", "6": "P02", "7": "P03"}
REAL_EMAILS = {
    "dr.weber@klinik.example": "P01",
    "dr.schulz@klinik.example": "P02",
    "dr.keller@klinik.example": "P03",
}
ADMIN_ID, ADMIN_EMAIL = 1, "admin@example.org"


def _intended(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / name).read_text(encoding="utf-8"))
    return data


def _real_ratings(rows: list[list[str]], round: str) -> set[Row]:
    return {(*row, round) for row in rows}


def _real_error(path: Path, rater_map: dict[str, str], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        convert(load_export(path), rater_map, name=path.name, **kwargs)
    return str(info.value)


def _real_main(tmp_path: Path, export: Path, rater_map: dict[str, str], *extra: str) -> int:
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps(rater_map), encoding="utf-8")
    out = ["--out", str(tmp_path / "ratings.csv"), "--rater-map", str(map_file)]
    return main(["import-labelstudio", str(export), *out, *extra])


@pytest.mark.parametrize(
    ("export", "rater_map", "exclude"),
    [(LEGACY, REAL_IDS, ADMIN_ID), (SNAPSHOT, REAL_EMAILS, ADMIN_EMAIL), (SNAPSHOT, REAL_IDS, 1)],
)
def test_convert_real_export_equals_what_was_submitted(
    export: Path, rater_map: dict[str, str], exclude: object
) -> None:
    intended = _intended("intended.json")
    result = convert(load_export(export), rater_map, exclude=[exclude])
    assert _frame_rows(result.ratings) == _real_ratings(intended["ratings"], "primary")
    assert _frame_rows(result.difficulty) == {tuple(r) for r in intended["difficulty"]}
    assert result.excluded == ((str(exclude), 1),)
    # P01 left position 4 of MQ-E0001 empty: the one warning
    assert [w.message for w in result.warnings] == [
        "annotation 18: no rating for the answer at position 4 (gemma3:27b): left out as missing"
    ]


def test_convert_real_ids_and_emails_in_one_map() -> None:
    mixed = {"5": "P01", "dr.schulz@klinik.example": "P02", "7": "P03"}
    result = convert(load_export(SNAPSHOT), mixed, exclude=[ADMIN_EMAIL])
    intended = _intended("intended.json")
    assert _frame_rows(result.ratings) == _real_ratings(intended["ratings"], "primary")


def test_convert_real_email_map_on_id_only_export() -> None:
    text = _real_error(LEGACY, REAL_EMAILS, exclude=[ADMIN_EMAIL])
    # one problem per user, not one per annotation (29 before)
    assert text.startswith("Label Studio export p1_legacy_JSON.json: 4 problems found\n")
    assert (
        "task 1, column 'completed_by': annotation 1: unknown Label Studio user (and 9 more "
        "annotations by this user) (value '5'); the rater map or --exclude-user names e-mails, "
        "but the Export button's JSON names users by integer id only: map the ids"
    ) in text
    assert "GET /api/users" in text
    assert "annotations__completed_by.only_id=false" in text
    assert (
        "task 6, column 'completed_by': annotation 30: unknown Label Studio user (value '1')"
        in (text)
    )


def test_convert_real_admin_test_annotation_unknown() -> None:
    text = _real_error(LEGACY, REAL_IDS)
    assert text.startswith("Label Studio export p1_legacy_JSON.json: 1 problem found\n")
    assert "annotation 30: unknown Label Studio user (value '1')" in text
    assert text.endswith("or leave the user's annotations out with --exclude-user 1")


def test_convert_real_admin_mapped_is_counted_per_rater() -> None:
    # mapping the admin to P10 makes the test annotation a primary core rating; the summary
    # shows it, --exclude-user removes it
    result = convert(load_export(LEGACY), {**REAL_IDS, str(ADMIN_ID): "P10"})
    admin = _intended("admin_intended.json")
    p10 = result.ratings[result.ratings["rater"] == "P10"]
    assert _frame_rows(p10) == _real_ratings(admin["admin_rows"], "primary")
    assert "ratings per rater: P01 49, P02 50, P03 40, P10 5" in result.summary()


def test_convert_real_exclude_by_email_on_id_only_export_warns() -> None:
    result = convert(load_export(LEGACY), REAL_IDS, exclude=[ADMIN_ID, "nobody@example.org"])
    assert result.excluded == (("1", 1), ("nobody@example.org", 0))
    (warning,) = (w for w in result.warnings if w.column == "completed_by")
    assert warning.message == "excluded user nobody@example.org made no annotation in this export"
    assert warning.fix is not None and "names users by integer id only" in warning.fix


def test_convert_real_adjudication_round_inferred() -> None:
    result = convert(load_export(ADJ_SDK), {str(ADMIN_ID): "P10"})
    expected = _intended("adj_intended.json")
    assert _frame_rows(result.ratings) == _real_ratings(expected["rows"], "adjudication")
    assert result.round is None
    assert result.summary()[0] == (
        "round: inferred from the split and the roster (15 adjudication ratings; the "
        "adjudicator on an extension item is the adjudication round)"
    )


def test_convert_real_adjudication_given_as_primary_refused() -> None:
    text = _real_error(ADJ_SDK, {"1": "P10"}, round="primary")
    assert text.startswith("Label Studio export p2_adjudication_sdk_JSON.json: 3 problems found")
    assert (
        "task 11, column 'completed_by': annotation 31: the adjudicator P10 rates extension "
        "items only in the adjudication round (value 'P10'); import the adjudication project "
        "with --round adjudication, or leave --round out to infer it"
    ) in text


def test_convert_real_adjudication_given_matches_inferred() -> None:
    given = convert(load_export(ADJ_SDK), {"1": "P10"}, round="adjudication")
    inferred = convert(load_export(ADJ_SDK), {"1": "P10"})
    assert _frame_rows(given.ratings) == _frame_rows(inferred.ratings)
    assert given.summary()[0] == "round: adjudication for every annotation (given)"


def test_convert_real_adjudicator_without_split_needs_a_round() -> None:
    tasks = load_export(ADJ_SDK)
    del tasks[0]["data"]["split"]
    with pytest.raises(InputError) as info:
        convert(tasks, {"1": "P10"}, name="adj.json")
    assert (
        "adj.json, task 11, column 'data.split': annotation 31: cannot tell the round of the "
        "adjudicator P10's annotation: the task has no data.split; add data.split to the tasks, "
        "pass the raw release (--raw), or give --round"
    ) in str(info.value)


def test_convert_real_task_without_data_gets_the_hint() -> None:
    tasks = load_export(LEGACY)
    del tasks[0]["data"]
    text = _real_error_tasks(tasks)
    assert "task 1, column 'data': task has no data object" in text
    assert EXPORT_AS_JSON in text


def _real_error_tasks(tasks: list[dict[str, Any]], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        convert(tasks, REAL_IDS, name=LEGACY.name, exclude=[ADMIN_ID], **kwargs)
    return str(info.value)


@pytest.mark.parametrize("value", ["Correct", "richtig", "1", 1, 0, 2])
def test_convert_real_label_not_in_labeling_config(value: object) -> None:
    tasks = load_export(LEGACY)
    tasks[0]["annotations"][0]["result"][0]["value"]["choices"] = [value]
    text = _real_error_tasks(tasks)
    assert f"task 1, column 'label_1': annotation 1: bad label (value '{value}')" in text
    assert "the labeling config's choices are Richtig, Falsch, Keine Angabe (German" in text


@pytest.mark.parametrize("value", ["Easy", "Hard", "1", 2])
def test_convert_real_difficulty_not_in_labeling_config(value: object) -> None:
    tasks = load_export(LEGACY)
    tasks[0]["annotations"][0]["result"][5]["value"]["choices"] = [value]
    text = _real_error_tasks(tasks)
    assert f"column 'difficulty': annotation 1: bad difficulty (value '{value}')" in text
    assert "choices are Einfach, Mittel, Schwer" in text


def test_labeling_config_choices_are_the_accepted_ones() -> None:
    config = (REAL / "labeling_config.xml").read_text(encoding="utf-8")
    choices = re.findall(r'<Choice value="([^"]+)"/>', config)
    assert set(choices) == {*vocab.LABELS, *vocab.DIFFICULTIES}


@pytest.mark.parametrize("empty", [None, "", {}])
def test_convert_real_deleted_user(empty: object) -> None:
    tasks = load_export(LEGACY)
    tasks[1]["annotations"][2]["completed_by"] = empty
    text = _real_error_tasks(tasks)
    assert (
        "task 2, column 'completed_by': annotation 6: the annotation has no user (completed_by "
        "is empty): Label Studio empties it when the user was deleted"
    ) in text
    assert "restore the user in Label Studio, or delete the annotation and export again" in text


def test_convert_real_duplicate_says_delete() -> None:
    tasks = load_export(LEGACY)
    tasks[0]["annotations"][1]["completed_by"] = 5
    text = _real_error_tasks(tasks)
    assert "annotation 2: P01 already rated question MQ-C0001 in annotation 1" in text
    assert "delete the other one in Label Studio and export again" in text
    assert "cancel" not in text


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


def test_main_import_labelstudio_real_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _real_main(tmp_path, LEGACY, REAL_IDS, "--exclude-user", "1") == 0
    assert capsys.readouterr().out.splitlines() == [
        "imported 10 tasks (30 annotations, 1 cancelled and skipped): "
        f"139 ratings to {tmp_path / 'ratings.csv'}",
        "round: inferred from the split and the roster (139 primary ratings; the adjudicator "
        "on an extension item is the adjudication round)",
        "left out (excluded users): user 1 (1 annotation)",
        "answer texts: not checked against a raw release (give --raw RAW)",
        "ratings per rater: P01 49, P02 50, P03 40",
    ]


def test_main_import_labelstudio_checks_the_raw_release_of_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --out RAW/ratings.csv: RAW's answers table is checked without --raw
    tasks = load_export(LEGACY)
    raw = _raw_from_tasks(tmp_path / "raw", tasks)
    map_file = tmp_path / "map.json"
    map_file.write_text(json.dumps(REAL_IDS), encoding="utf-8")
    argv = ["--out", str(raw / "ratings.csv"), "--rater-map", str(map_file), "--exclude-user", "1"]
    assert main(["import-labelstudio", str(LEGACY), *argv]) == 0
    out = capsys.readouterr().out
    assert "answer texts: every data.resp_k is the answer of order[k] in raw\n" in out
    tasks[0]["data"]["order"].reverse()
    export = tmp_path / "export.json"
    export.write_text(json.dumps(tasks), encoding="utf-8")
    before = (raw / "ratings.csv").read_bytes()
    assert main(["import-labelstudio", str(export), *argv, "--replace"]) == 2
    assert "task 1, column 'data.resp_1': data.resp_1 is not the raw release's answer" in (
        capsys.readouterr().err
    )
    assert (raw / "ratings.csv").read_bytes() == before


def test_main_import_labelstudio_real_raw_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = load_export(LEGACY)
    raw = _raw_from_tasks(tmp_path / "raw", tasks)
    tasks[3]["data"]["order"].reverse()
    export = tmp_path / "export.json"
    export.write_text(json.dumps(tasks), encoding="utf-8")
    assert _real_main(tmp_path, export, REAL_IDS, "--exclude-user", "1", "--raw", str(raw)) == 2
    err = capsys.readouterr().err
    assert "task 4, column 'data.resp_1': data.resp_1 is not the raw release's answer" in err
    assert not (tmp_path / "ratings.csv").exists()


def test_main_import_labelstudio_real_adjudication_append(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _real_main(tmp_path, LEGACY, REAL_IDS, "--exclude-user", "1") == 0
    assert _real_main(tmp_path, ADJ_SDK, {"1": "P10"}, "--append") == 0
    expected = _real_ratings(_intended("intended.json")["ratings"], "primary") | _real_ratings(
        _intended("adj_intended.json")["rows"], "adjudication"
    )
    assert _csv_rows(tmp_path / "ratings.csv")[1] == expected


def test_real_fixtures_are_the_shared_exports() -> None:
    readme = (REAL / "README.md").read_text(encoding="utf-8")
    assert "Label Studio 1.23.2" in readme
    assert sorted(p.name for p in REAL.iterdir()) == [
        "README.md",
        "adj_intended.json",
        "admin_intended.json",
        "intended.json",
        "labeling_config.xml",
        "p1_legacy_CSV.csv",
        "p1_legacy_JSON.json",
        "p1_legacy_JSON_MIN.json",
        "p1_snapshot_full_JSON.json",
        "p2_adjudication_sdk_JSON.json",
    ]


# --- hostile variants of the real exports (issue 23) ----------------------------------------


def test_convert_completed_by_list() -> None:
    tasks = load_export(LEGACY)
    tasks[0]["annotations"][0]["completed_by"] = [5]
    text = _real_error_tasks(tasks)
    assert "completed_by must be a user id or a user object" in text
    assert "unknown Label Studio user" not in text


def test_convert_result_as_object() -> None:
    tasks = load_export(LEGACY)
    ann = tasks[0]["annotations"][0]
    ann["result"] = ann["result"][0]
    text = _real_error_tasks(tasks)
    assert "column 'result': annotation" in text and "result must be a list of results" in text


DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_user_ids_docs_name_the_token_exchange_not_the_members_page() -> None:
    from medqade.commands.import_labelstudio import EPILOG

    doc = (DOCS / "labelstudio.md").read_text(encoding="utf-8")
    for text in (doc, EPILOG, WHERE_USER_IDS):
        assert "/api/token/refresh" in text
        assert "are on the organisation" not in text and "listed on the\norganisation" not in text
    assert 'curl -s -X POST "$LS/api/token/refresh"' in doc
    assert 'curl -s "$LS/api/users" -H "Authorization: Bearer $ACCESS"' in doc
    assert "legacy token" in doc and "401" in doc


def test_user_ids_unknown_user_hint_names_the_token_exchange() -> None:
    text = _real_error(LEGACY, {"5": "P01"}, exclude=[ADMIN_ID])
    assert "unknown Label Studio user" in text and "/api/token/refresh" in text
    assert "members page" not in text


def test_rerating_docs_show_the_import() -> None:
    doc = (DOCS / "labelstudio.md").read_text(encoding="utf-8")
    assert "## A re-rating round" in doc
    assert "--round rerating --append" in doc
    panel = (DOCS / "panel.md").read_text(encoding="utf-8")
    command = panel[panel.index("medqade import-labelstudio EXPORT --round rerating") :]
    assert "--rater-map" in command[: command.index("`")]
