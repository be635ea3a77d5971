"""What every tab of the Space is given, and the table helpers and event settings they share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import gradio as gr
import pandas as pd

from medqade.app import cells
from medqade.app.config import SpaceConfig
from medqade.app.exports import Exports
from medqade.app.state import SpaceState
from medqade.dataset.release import Release

READ_CONCURRENCY: Final = 8
HIDDEN: Final[dict[str, Any]] = {"api_visibility": "private", "queue": False}
"""Event settings of a page-only handler: no API endpoint, answered without the queue."""
READS: Final[dict[str, Any]] = {"concurrency_limit": READ_CONCURRENCY}
"""Event settings of a public read endpoint."""

Table = pd.DataFrame


@dataclass(frozen=True)
class TabContext:
    """The release shown, the Space's settings, its state and the download folder."""

    release: Release
    config: SpaceConfig
    state: SpaceState
    exports: Exports


def frame(table: Table) -> Any:
    """A read-only, sortable table (numbers typed as numbers, the name column pinned)."""
    return gr.update(value=table, datatype=cells.datatypes(table))


def empty() -> Table:
    return pd.DataFrame()
