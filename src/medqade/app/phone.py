"""The leaderboard's phone view: one line per judge with its headline numbers.

On a narrow screen (the CSS in :mod:`medqade.app.page_head` shows it below 640 px and keeps the full
tables below it) each judge is one card: rank interval (best–worst rank), name, a badge saying
what the row is (*physicians* for the leave-one-out ceiling, *verified* or *self-reported* for a
judge), core kappa with its 95% CI and verdict, so nothing needs sideways scrolling and a
self-reported row cannot pass for the physicians'. Formatting only: drawn from the board's
typed rows (:class:`~medqade.scoring.board.JudgeRow`), numbers to three decimals; names are
escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Final

from medqade.app import views
from medqade.app.cells import as_text, interval_text, number, rank_range
from medqade.scoring.board import JudgeRow

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


def judges_cards(rows: Sequence[JudgeRow], view: str) -> str:
    """The judge rows of a board (rank range, name and badge, kappa with its 95% CI, verdict)
    as HTML cards, formatted from the rows' fields."""
    e = html.escape
    cards = []
    for row in rows:
        rank = rank_range(row.rank, row.rank_worst)
        value = number(row.kappa.value)
        kappa = "" if math.isnan(value) else f"{value:.3f}"
        ci = interval_text(row.kappa)
        cards.append(
            '<li class="mq-card">'
            f'<span class="mq-card-rank">{e(rank) or "–"}</span>'
            f'<span class="mq-card-name">{e(views.shown_name(row, view))}'
            f"{card_badge(views.row_badge(row))}</span>"
            f'<span class="mq-card-kappa">κ {e(kappa) or "n/a"}'
            f"{f' <small>({e(ci)})</small>' if ci else ''}</span>"
            f'<span class="mq-card-verdict">{e(as_text(row.verdict))}</span></li>'
        )
    if not cards:
        return '<p class="mq-empty">No judge matches the search.</p>'
    return (
        f'<p class="mq-cards-head">Judges, {e(view)} view: rank (best–worst) · name and badge · '
        "kappa (95% CI) · verdict. The full tables follow below.</p>"
        f'<ol class="mq-cards">{"".join(cards)}</ol>'
    )
