"""The leaderboard's phone view: one line per judge with its headline numbers.

On a narrow screen (the CSS in :mod:`medqade.app.page_head` shows it below 640 px and keeps the full
tables below it) each judge is one card: rank interval (best–worst rank), name, a badge saying
what the row is (*physicians* for the leave-one-out ceiling, *verified* or *self-reported* for a
judge), core kappa with its 95% CI and verdict, so nothing needs sideways scrolling and a
self-reported row cannot pass for the physicians'. Formatting only: the numbers are the
leaderboard's display columns (three decimals); names are escaped.
"""

from __future__ import annotations

import html
import math
from typing import Any, Final

import pandas as pd


def _cell(row: Any, *names: str) -> str:
    for name in names:
        if name in row and row[name] is not None:
            value = row[name]
            if isinstance(value, float):
                if math.isnan(value):
                    return ""
                return f"{value:.0f}" if name == "rank" else f"{value:.3f}"
            return str(value)
    return ""


BADGES: Final = {"physician ceiling": ("physicians", "mq-b-physicians")}
"""The leaderboard's badge words shown differently on a card (shorter), with their class."""


def card_badge(text: str) -> str:
    """The badge of a card as escaped HTML: *physicians*, *verified* or *self-reported* (with
    *partial* when so), each with its own class (colour)."""
    if not text:
        return ""
    word, css = BADGES.get(text, (text, ""))
    if not css:
        css = "mq-b-verified" if text.startswith("verified") else "mq-b-self"
    return f' <span class="mq-badge {css}">{html.escape(word)}</span>'


def judges_cards(table: pd.DataFrame, view: str) -> str:
    """The judges display table (rank range, name, kappa, kappa 95% CI, verdict) as HTML
    cards."""
    e = html.escape
    cards = []
    for _, row in table.iterrows():
        rank = _cell(row, "rank range", "rank")
        kappa = _cell(row, "kappa")
        ci = _cell(row, "kappa 95% CI")
        verdict = _cell(row, "verdict")
        cards.append(
            '<li class="mq-card">'
            f'<span class="mq-card-rank">{e(rank) or "–"}</span>'
            f'<span class="mq-card-name">{e(_cell(row, "name"))}'
            f"{card_badge(_cell(row, 'badge'))}</span>"
            f'<span class="mq-card-kappa">κ {e(kappa) or "n/a"}'
            f"{f' <small>({e(ci)})</small>' if ci else ''}</span>"
            f'<span class="mq-card-verdict">{e(verdict)}</span></li>'
        )
    if not cards:
        return '<p class="mq-empty">No judge matches the search.</p>'
    return (
        f'<p class="mq-cards-head">Judges, {e(view)} view: rank (best–worst) · name and badge · '
        "kappa (95% CI) · verdict. The full tables follow below.</p>"
        f'<ol class="mq-cards">{"".join(cards)}</ol>'
    )
