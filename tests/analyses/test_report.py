"""The report: its JSON shape, determinism, tables, figures and input checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from medqade.analyses.common import json_ready
from medqade.analyses.report import SYNTHETIC_BANNER, Report, reproduce
from medqade.dataset.release import Release

from .conftest import CONTRAST_RESAMPLES, RESAMPLES, SEED
from .helpers import check_report_shape


def test_report_to_dict_has_every_key(report: Report, release: Release) -> None:
    check_report_shape(report.to_dict(), release)


def test_report_meta(report: Report, release: Release) -> None:
    meta = report.to_dict()["meta"]
    assert meta["resamples"] == RESAMPLES
    assert meta["contrast_resamples"] == CONTRAST_RESAMPLES
    assert meta["seed"] == SEED
    assert meta["synthetic"] is True
    assert meta["data_hash"] == release.data_hash != ""


def test_report_same_seed_same_bytes(report: Report, release: Release) -> None:
    again = reproduce(
        release, resamples=RESAMPLES, seed=SEED, contrast_resamples=CONTRAST_RESAMPLES
    )
    assert again.to_json() == report.to_json()
    other = reproduce(release, resamples=RESAMPLES, seed=SEED + 1, contrast_resamples=50)
    assert other.to_json() != report.to_json()


def test_report_json_is_strict_and_in_proportions(report: Report) -> None:
    data = json.loads(report.to_json())  # allow_nan=False in to_json: no NaN tokens
    acc = data["rq2"]["accuracy"]
    assert all(0 <= v["acc"] <= 1 for v in acc.values())
    assert all(0 <= v["pa"] <= 1 for v in data["rq1"]["slots"].values())


def test_json_ready_turns_nan_into_none() -> None:
    import numpy as np

    out = json_ready({"a": float("nan"), "b": [np.float64(1.5), np.int64(2)], "c": (math.inf,)})
    assert out == {"a": None, "b": [1.5, 2], "c": [None]}
    assert json.dumps(out, allow_nan=False)


def test_report_markdown_has_the_four_tables_and_banner(report: Report) -> None:
    md = report.to_markdown()
    assert md.splitlines()[0] == SYNTHETIC_BANNER
    for n in (1, 2, 3, 4):
        assert f"### Table {n}." in md
    assert "Physicians (leave-one-out)" in md
    assert "Physicians (median)" in md


def test_report_tables_csv_rows_match_markdown_rows(report: Report) -> None:
    for table in report.tables():
        csv_lines = table.to_csv().splitlines()
        assert len(csv_lines) == len(table.rows) + 1
        assert len(csv_lines[0].split(",")) == len(table.csv_header)
        assert all(len(r) == len(table.header) for r in table.rows)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"resamples": 0}, "resamples must be a positive integer"),
        ({"contrast_resamples": -1}, "contrast_resamples must be a positive integer"),
        ({"seed": -3}, "seed must be a non-negative integer"),
    ],
)
def test_reproduce_rejects_bad_arguments(
    release: Release, kwargs: dict[str, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        reproduce(release, **kwargs)


def test_reproduce_without_core_items_raises(release: Release) -> None:
    with pytest.raises(ValueError, match="no core items"):
        reproduce(release.subset(~release.is_core), resamples=5, contrast_resamples=5)


def test_write_figures_is_deterministic(report: Report, tmp_path: Path) -> None:
    from medqade.analyses.figures import FIGURES, write_figures

    first = write_figures(report, tmp_path / "a")
    second = write_figures(report, tmp_path / "b")
    assert len(first) == 2 * len(FIGURES)
    for a, b in zip(first, second, strict=True):
        assert a.stat().st_size > 0
        if a.suffix == ".svg":
            assert a.read_bytes() == b.read_bytes()
