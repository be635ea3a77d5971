"""The per-physician table the leaderboard's ceiling row opens (computed once, on demand)."""

from __future__ import annotations

import threading
from typing import Final

import pandas as pd

from medqade.dataset.release import Release

CEILING_BADGE: Final = "physician ceiling"
RESAMPLES: Final = 1000


class PhysicianPanel:
    """``medqade panel``'s table of ``release`` as a frame, plus its note (Markdown)."""

    def __init__(self, release: Release, resamples: int = RESAMPLES) -> None:
        self.release = release
        self.resamples = resamples
        self._lock = threading.Lock()
        self._shown: tuple[str, pd.DataFrame] | None = None

    def table(self) -> tuple[str, pd.DataFrame]:
        with self._lock:
            if self._shown is None:
                from medqade.analyses.panel_table import panel_table
                from medqade.measures import panel_report

                t = panel_table(panel_report(self.release, self.resamples))
                note = f"**{t.title}** (the terms the ceiling averages)\n\n{t.note}"
                self._shown = (note, pd.DataFrame(list(t.rows), columns=list(t.header)))
            return self._shown
