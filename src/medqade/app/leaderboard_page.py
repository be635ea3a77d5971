"""The leaderboard as drawn for one choice of controls, and the first page a new visitor gets.

:class:`Parts` draws the tab's note, the phone's judge cards and the judges and models boards
(:mod:`medqade.app.board_table`) for one view, search and column choice. :class:`FirstPage`
keeps the default choice's parts in the page itself (issue 27: the judges on screen in under a
second, without a round trip once the page has started): they are the initial values of their
components, and their keys the value of a hidden field that the page's first event sends back,
so it is answered with only what the page lacks (the downloads).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import gradio as gr

from medqade.app import glossary, phone, prose, views
from medqade.app.board_table import board_html
from medqade.app.state import Boards

JUDGES_CAPTION: Final = "Judges (agreement with physician consensus)"
MODELS_CAPTION: Final = "Models (accuracy by physician consensus)"
PHYSICIANS_CAPTION: Final = "Physicians one by one (each against the consensus of the other nine)"
PINNED: Final = 3
"""Columns that stay in place when a board scrolls sideways: rank, rank range, name."""
DEFAULT_COLUMNS: Final = sorted(views.DEFAULT_GROUPS)
FIRST_PAGE_KEYS: Final = ("note", "judges", "models")
"""The parts a new visitor's page carries in itself (the downloads come with the first event)."""
MAX_FIRST_KEYS: Final = 20_000


def first_page_keys(text: str) -> dict[str, str]:
    """The keys of the first page as the page sent them back (a hidden field, so public
    input): a JSON object of the known parts' texts, anything else as nothing shown."""
    if not isinstance(text, str) or not text or len(text) > MAX_FIRST_KEYS:
        return {}
    try:
        keys = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(keys, dict):
        return {}
    return {k: v for k, v in keys.items() if k in FIRST_PAGE_KEYS and isinstance(v, str)}


@dataclass(frozen=True)
class Parts:
    """The tab's parts for one choice of controls, each drawn when asked for."""

    boards: Boards
    view: str
    needle: str
    columns: list[str]
    note: str

    def note_html(self) -> str:
        """The note line (Markdown) as the page shows it: drawn on the server (:mod:`prose`)."""
        return prose.html(self.note)

    def cards(self) -> str:
        """The phone's judge cards, drawn from the board's rows."""
        rows = views.matching(self.boards.board.judges, self.needle, self.view)
        return phone.judges_cards(rows, self.view)

    def judges(self) -> str:
        table = views.select(
            self.boards.judges_display, views.JUDGE_GROUPS, self.columns, self.needle
        )
        return board_html(
            table, JUDGES_CAPTION, pinned=PINNED, view=self.view, titles=glossary.JUDGES
        )

    def models(self) -> str:
        table = views.select(
            self.boards.models_display, views.MODEL_GROUPS, self.columns, self.needle
        )
        return board_html(
            table, MODELS_CAPTION, pinned=PINNED, view=self.view, titles=glossary.MODELS
        )


class FirstPage:
    """The leaderboard a new visitor's page carries in itself (issue 27: judges visible in
    under a second, without waiting for a round trip after the page has started).

    The default controls' note, judge cards and boards are the initial values of their
    components, and their keys the value of a hidden field, so the page's first event sends
    nothing that it already shows. Whenever the default leaderboard changes (the reference
    rows arrive, a submission is stored), :meth:`show` sets the new values and serves a new
    page config (``Blocks.get_config_file``, Gradio's own). A page opened before still shows
    the older values until its first event answers with the new ones."""

    def __init__(self) -> None:
        self.keys: dict[str, str] = {}
        self._lock = threading.Lock()
        self._targets: tuple[gr.Blocks, tuple[Any, ...], gr.Textbox] | None = None

    def attach(self, demo: gr.Blocks, parts: tuple[Any, ...], keys_field: gr.Textbox) -> None:
        """The page (``demo``) and its note, cards, judges and models components."""
        self._targets = (demo, parts, keys_field)

    def show(self, keys: dict[str, str], parts: Parts) -> None:
        """Make ``parts`` (with ``keys``) the first page, unless it is already."""
        if keys == self.keys or self._targets is None:
            return
        with self._lock:
            if keys == self.keys:
                return
            demo, (note, cards, judges, models), keys_field = self._targets
            values = (parts.note_html(), parts.cards(), parts.judges(), parts.models())
            for component, value in zip((note, cards, judges, models), values, strict=True):
                component.value = value
            keys_field.value = json.dumps(keys)
            self.keys = dict(keys)
            if getattr(demo, "config", None) is not None:  # a page config was made already
                demo.config = demo.get_config_file()


__all__: Sequence[str] = [
    "DEFAULT_COLUMNS",
    "FIRST_PAGE_KEYS",
    "JUDGES_CAPTION",
    "MODELS_CAPTION",
    "PHYSICIANS_CAPTION",
    "PINNED",
    "FirstPage",
    "Parts",
    "first_page_keys",
]
