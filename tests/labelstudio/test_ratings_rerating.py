"""A re-rating project's Label Studio export: ``--round rerating`` appended to the ratings."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from medqade import vocab
from medqade.files.problems import InputError
from medqade.labelstudio.ratings import import_export, load_rater_map

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
    with pytest.raises(InputError, match="already holds this row"):
        import_export(PRIMARY, ratings, rater_map, round=vocab.RERATING, append=True)
