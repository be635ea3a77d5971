"""``medqade import-reviews``: a Label Studio review export in, the raw release's reviews
table out (the conversion is medqade.labelstudio.reviews'; its tests are in
tests/labelstudio/test_reviews.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from medqade.cli import main

REVIEW_EXPORT = (
    Path(__file__).resolve().parents[1] / "fixtures" / "labelstudio" / "ls-1.23-t3"
) / "review_p1_JSON.json"


def test_import_reviews_writes_the_table_and_says_what(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "raw" / "reviews.csv"
    assert main(["import-reviews", str(REVIEW_EXPORT), "--out", str(out)]) == 0
    assert capsys.readouterr().err == (  # the report goes to stderr
        f"18 reviews from 18 tasks to {out} (2 cancelled left out)\n"
    )
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["question_id", "model", "reviewer", "codes", "note"]
    assert len(rows) == 18 and rows[0]["reviewer"] == "user 2"
    argv = ["import-reviews", str(REVIEW_EXPORT), "--out", str(out)]
    assert main(argv) == 2  # an existing table needs --append or --replace
    assert "--append" in capsys.readouterr().err
    assert main([*argv, "--replace"]) == 0


def test_import_reviews_reviewer_map_keys_that_normalise_equal_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The keys "3" and " 3" name the same Label Studio user: mapping them to two reviewers is a
    problem naming both keys (as the rater map's), not a silent pick of one."""
    export = tmp_path / "export.json"
    export.write_text("[]", encoding="utf-8")
    reviewer_map = tmp_path / "map.json"
    for data, message in (
        ({"3": "R1", " 3": "R2"}, 'the keys "3" and " 3" name the same user but map to R1 and R2'),
        ({"a@b.example": "R1", "A@B.example ": "R2"}, 'the keys "a@b.example" and'),
        ({"5": ""}, "user 5 maps to no reviewer name"),
        (["R1"], "expected a JSON object"),
    ):
        reviewer_map.write_text(json.dumps(data), encoding="utf-8")
        argv = ["import-reviews", str(export), "--out", str(tmp_path / "reviews.csv")]
        assert main([*argv, "--reviewer-map", str(reviewer_map)]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
        assert not (tmp_path / "reviews.csv").exists()
