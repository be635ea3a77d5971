"""``medqade panel``: one JSON object with ten physicians, and the md / csv tables."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.measures.raters import OUTLIER_VERDICTS

KEYS = {
    "core_loo",
    "extension_partner",
    "extension_adjudicator",
    "abstention_by_tier",
    "fleiss_kappa_with",
    "fleiss_kappa_without",
    "intra_rater",
    "kappa_gap",
    "kappa_gap_adjusted_ci",
    "outlier_verdict",
}


def test_panel_json_lists_ten_physicians_with_a_verdict(
    synthetic_build: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["panel", "--data", str(synthetic_build), "--format", "json", "--resamples", "40"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert len(data["physicians"]) == 10
    for p in data["physicians"]:
        assert set(p) >= KEYS
        assert p["outlier_verdict"] in OUTLIER_VERDICTS
        assert {"kappa", "kappa_ci", "pa", "pabak"} <= set(p["core_loo"])
        assert {"kappa", "kappa_ci", "pa", "pa_ci"} <= set(p["intra_rater"])
    assert "outlier when the upper bound" in data["outlier_rule"]


def test_panel_csv_has_one_row_per_physician(
    synthetic_build: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["panel", "--data", str(synthetic_build), "--format", "csv", "--resamples", "20"]) == 0
    )
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["physician"] for r in rows] == [f"P{i:02d}" for i in range(1, 11)]
    assert all(r["kind"] == "physician" for r in rows)
    assert all(r["verdict"] in OUTLIER_VERDICTS for r in rows)


def test_panel_without_core_items_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["panel", "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("medqade panel: ") and "Traceback" not in err
