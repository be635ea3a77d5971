"""The per-physician table behind the leaderboard's ceiling row."""

from __future__ import annotations

from medqade.analyses.panel_table import HEADER
from medqade.app import views
from medqade.app.panel_view import CEILING_BADGE, PhysicianPanel
from medqade.dataset.release import Release
from medqade.scoring.record.score_record import read_record


def test_ceiling_badge_is_the_leaderboards_physician_badge() -> None:
    assert views.badge(read_record({"flags": [views.PHYSICIAN_REFERENCE]})) == CEILING_BADGE


def test_physician_panel_has_one_row_per_physician_and_is_computed_once(
    sample_release: Release,
) -> None:
    panel = PhysicianPanel(sample_release, resamples=20)
    note, table = panel.table()
    assert list(table.columns) == list(HEADER)
    assert table["Physician"].str[:3].tolist() == list(sample_release.roster.physicians)
    assert "ceiling kappa" in note and "outlier" in note
    assert panel.table()[1] is table
