"""A re-rating project's Label Studio export: ``--round rerating`` appended to the ratings."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from medqade import vocab
from medqade.files.problems import InputError
from medqade.labelstudio.ratings import import_export
from medqade.labelstudio.users import load_rater_map

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio"
PRIMARY = FIXTURES / "primary_export.json"
RATER_MAP = FIXTURES / "rater_map.json"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_rerating_export_appends_beside_the_first_ratings(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    rater_map = load_rater_map(RATER_MAP)
    import_export(PRIMARY, ratings, rater_map)
    first = _rows(ratings)
    import_export(PRIMARY, ratings, rater_map, round=vocab.RERATING, append=True)
    rows = _rows(ratings)
    again = [r for r in rows if r["round"] == vocab.RERATING]
    key = ("question_id", "model", "rater")
    assert sorted(tuple(r[k] for k in key) for r in again) == sorted(
        tuple(r[k] for k in key) for r in first
    )
    assert len(rows) == 2 * len(first)


def test_rerating_export_appended_twice_is_an_error(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    rater_map = load_rater_map(RATER_MAP)
    import_export(PRIMARY, ratings, rater_map, round=vocab.RERATING)
    with pytest.raises(InputError, match="already holds this rating as round rerating"):
        import_export(PRIMARY, ratings, rater_map, round=vocab.RERATING, append=True)


def _line_of(path: Path, round: str) -> int:
    """The line (header = 1) of the first row of ``round`` in the table at ``path``."""
    rows = _rows(path)
    return next(i for i, r in enumerate(rows, start=2) if r["round"] == round)


def test_primary_export_onto_a_table_of_reratings_names_both_rounds(tmp_path: Path) -> None:
    """Issue 38: a primary export appended to a table holding re-ratings said "already holds
    this row" without saying it was another round; the problem names the table's line and
    round, the export's round, and the order to import them in."""
    ratings = tmp_path / "ratings.csv"
    rater_map = load_rater_map(RATER_MAP)
    import_export(PRIMARY, ratings, rater_map, round=vocab.RERATING)
    before = ratings.read_bytes()
    first = _rows(ratings)[0]
    value = f"{first['question_id']}/{first['model']}/{first['rater']}"
    with pytest.raises(InputError) as info:
        import_export(PRIMARY, ratings, rater_map, append=True)
    text = str(info.value)
    assert (
        "ratings.csv, line 2, column 'question_id/model/rater': already holds this rating as "
        "round rerating (line 2), while the export's row is round primary" in text
    ), text
    assert f"(value {value!r})" in text
    assert "import the first-round export into a new table (or with --replace), then" in text
    assert "already holds this row" not in text
    assert ratings.read_bytes() == before


def test_primary_export_appended_again_names_its_primary_and_rerating_rows(tmp_path: Path) -> None:
    """The usual table (first round, then its re-ratings): the same primary export once more
    is one problem per rating, naming both rows the table holds of it."""
    ratings = tmp_path / "ratings.csv"
    rater_map = load_rater_map(RATER_MAP)
    import_export(PRIMARY, ratings, rater_map)
    n = len(_rows(ratings))
    import_export(PRIMARY, ratings, rater_map, round=vocab.RERATING, append=True)
    with pytest.raises(InputError) as info:
        import_export(PRIMARY, ratings, rater_map, append=True)
    err = info.value
    assert len(err.problems) == n  # one per rating of the export, not one per clashing row
    again = _line_of(ratings, vocab.RERATING)
    first = err.problems[0]
    assert first.row == 2
    assert (
        f"as round primary (line 2) and as round rerating (line {again}), while the export's "
        "row is round primary" in first.message
    )
    assert first.fix is not None and "import each export once" in first.fix
    assert "a re-rating project needs --round rerating" in first.fix


@pytest.mark.parametrize(("created", "ok"), [("2025-W14-3T09:00:00Z", True), ("gestern", False)])
def test_rerating_created_at_is_checked_at_import(tmp_path: Path, created: str, ok: bool) -> None:
    """A re-rating's created_at becomes its rated_at: an ISO 8601 week date-time is kept, text
    that is no date is refused at the import, naming the task, annotation, value and forms
    (it was written, and only the build refused ratings.csv)."""
    import json

    tasks = json.loads(PRIMARY.read_text(encoding="utf-8"))
    for task in tasks:
        for ann in task.get("annotations", []):
            ann["created_at"] = created
    export = tmp_path / "rerating.json"
    export.write_text(json.dumps(tasks), encoding="utf-8")
    ratings = tmp_path / "ratings.csv"
    rater_map = load_rater_map(RATER_MAP)
    if ok:
        import_export(export, ratings, rater_map, round=vocab.RERATING)
        assert {r["rated_at"] for r in _rows(ratings)} == {created}
        return
    with pytest.raises(InputError) as info:
        import_export(export, ratings, rater_map, round=vocab.RERATING)
    first = info.value.problems[0]
    assert first.column == "created_at" and first.value == "gestern"
    assert "created_at is not an ISO 8601 date-time" in first.message
    assert "annotation" in str(first) and first.fix and "week 2025-W14-3" in first.fix
    assert not ratings.exists()
