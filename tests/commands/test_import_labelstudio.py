"""``medqade import-labelstudio``: a Label Studio export in, the raw release's ratings and
difficulty tables out (the conversion is medqade.labelstudio.ratings'; its tests are in
tests/labelstudio/test_ratings.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.labelstudio.export import load_export

Row = tuple[str, ...]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
PRIMARY = FIXTURES / "primary_export.json"
ADJUDICATION = FIXTURES / "adjudication_export.json"
RATER_MAP = FIXTURES / "rater_map.json"
SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"
ITEMS = ("S-E01", "S-E02")


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


def test_main_import_labelstudio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ratings, difficulty = tmp_path / "raw" / "ratings.csv", tmp_path / "raw" / "difficulty.csv"
    argv = [
        "import-labelstudio",
        str(PRIMARY),
        "--out",
        str(ratings),
        "--difficulty-out",
        str(difficulty),
        "--rater-map",
        str(RATER_MAP),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "imported 2 tasks (5 annotations, 1 cancelled and skipped): "
        f"20 ratings to {ratings}, 4 difficulty ratings to {difficulty}",
        "round: inferred from the split and the roster (20 primary ratings; the adjudicator on "
        "an extension item is the adjudication round)",
        "answer texts: not checked against a raw release (give --raw RAW)",
        "ratings per rater: P01 5, P02 5, P03 5, P04 5",
    ]
    assert _csv_rows(ratings)[1] == _sample_rows("ratings.csv", round="primary")


def test_main_import_labelstudio_round_and_append(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ratings = tmp_path / "ratings.csv"
    base = ["--out", str(ratings), "--rater-map", str(RATER_MAP)]
    assert main(["import-labelstudio", str(PRIMARY), *base]) == 0
    argv = ["import-labelstudio", str(ADJUDICATION), *base, "--round", "adjudication"]
    assert main(argv) == 2  # an existing table needs --append or --replace
    assert "pass --append to add the rows to it, or --replace" in capsys.readouterr().err
    assert main([*argv, "--replace"]) == 0
    assert len(_csv_rows(ratings)[1]) == 5  # replaced, not appended
    assert main(["import-labelstudio", str(PRIMARY), *base, "--append"]) == 0
    assert _csv_rows(ratings)[1] == _sample_rows("ratings.csv")


def test_main_import_labelstudio_error_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["import-labelstudio", str(ADJUDICATION), "--out", str(tmp_path / "ratings.csv")]
    # the adjudication export imported as primary is fine; as adjudication by a wrong map, not
    wrong_map = tmp_path / "map.json"
    wrong_map.write_text('{"12": "P04"}', encoding="utf-8")
    argv += ["--rater-map", str(wrong_map), "--round", "adjudication"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("medqade import-labelstudio: Label Studio export adjudication_export")
    assert "task 5120, column 'completed_by': annotation 2001: only the adjudicator P10" in err
    assert not (tmp_path / "ratings.csv").exists()


def test_main_import_labelstudio_warnings_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tasks = load_export(PRIMARY)
    tasks[1]["annotations"][1]["result"] = [
        r for r in tasks[1]["annotations"][1]["result"] if r["from_name"] != "label_5"
    ]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(tasks), encoding="utf-8")
    argv = ["import-labelstudio", str(export), "--out", str(tmp_path / "r.csv")]
    assert main([*argv, "--rater-map", str(RATER_MAP)]) == 0
    err = capsys.readouterr().err
    assert err == (
        "warning: export.json, task 4418, column 'label_5': annotation 1005: no rating for the "
        "answer at position 5 (gemma3:27b): left out as missing\n"
    )
