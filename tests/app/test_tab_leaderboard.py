"""app.tab_leaderboard: the Leaderboard tab's handlers (the page itself is built by every app
test's fixture)."""

from __future__ import annotations

import html

from medqade.app import glossary
from medqade.dataset.release import Release


def test_the_per_physician_board_carries_the_entries_as_tooltips(sample_release: Release) -> None:
    """What the button *Per-physician agreement* opens: every header with its entry."""
    from medqade.app.leaderboard_page import FirstPage
    from medqade.app.panel_view import PhysicianPanel
    from medqade.app.tab_leaderboard import LeaderboardHandlers

    panel = PhysicianPanel(sample_release, resamples=50)
    handlers = LeaderboardHandlers(None, panel, FirstPage())  # type: ignore[arg-type]
    _, board = handlers.show_physicians()
    page = board["value"]
    columns = list(handlers.panel.table()[1].columns)
    for name in columns:
        assert f'title="{html.escape(glossary.PHYSICIANS[name], quote=True)}"' in page
