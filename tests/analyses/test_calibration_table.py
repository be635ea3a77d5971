"""The project's own calibration table (``medqade synthesize --check``) on the default release."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.analyses.calibration import calibration_table, format_table
from medqade.cli import main
from medqade.dataset.release import Release


def test_calibration_table_all_rows_within_tolerance(synthetic: Release) -> None:
    rows = calibration_table(synthetic)
    assert len(rows) == 84
    assert [r.quantity for r in rows if not r.ok] == []
    text = format_table(rows).splitlines()
    assert len(text) == len(rows) + 1 and all(line.endswith("yes") for line in text[1:])


def test_synthesize_check_exits_zero_and_prints_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["synthesize", "--out", str(tmp_path / "raw"), "--check"]) == 0
    out = capsys.readouterr().out
    assert "Gemini 3 Flash kappa" in out and " NO" not in out
    assert (tmp_path / "raw" / "roster.json").is_file()
