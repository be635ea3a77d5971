"""The paper's consensus rules (methods digest section 3), as pure functions.

Consensus for an answer is the simple majority of the available non-abstaining physician
ratings; a tie, or no non-abstaining rating, leaves the answer unresolved. For extension items
the adjudicator's ratings are simply more votes. Consensus is derived data: anyone can
recompute it from the raw votes with :func:`majority`.

A *unanimous* group (:func:`unanimous`) is the one definition the leaderboard's
disagreement list (:func:`medqade.scoring.metrics.breakdowns.unanimous_panel`), the review queues
(:mod:`medqade.labelstudio.review_queue`) and the Space's Browse tab
(:func:`medqade.app.browse.agreement`) share: at least ``min_votes`` non-abstaining votes, all the
same; abstentions are ignored. Each caller names its threshold (:data:`PANEL_MIN_VOTES` for the
leaderboard).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from medqade import vocab

IntArray = npt.NDArray[np.int64]

PANEL_MIN_VOTES: Final = 2
"""The fewest non-abstaining votes of a unanimous physician panel on the leaderboard."""


def majority(richtig: npt.ArrayLike, falsch: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Consensus codes from vote counts: ``RICHTIG_CODE``, ``FALSCH_CODE`` or ``MISSING_CODE``.

    ``richtig`` and ``falsch`` are same-shaped counts of non-abstaining votes; ties (including
    0 : 0) are unresolved.
    """
    r = np.asarray(richtig)
    f = np.asarray(falsch)
    out = np.full(np.broadcast(r, f).shape, vocab.MISSING_CODE, dtype=np.int8)
    out[r > f] = vocab.RICHTIG_CODE
    out[f > r] = vocab.FALSCH_CODE
    return out


def majority_of_codes(codes: npt.ArrayLike, axis: int = 0) -> npt.NDArray[np.int8]:
    """Consensus over label codes (``-1`` missing, ``2`` abstain are ignored) along ``axis``."""
    c = np.asarray(codes)
    return majority(
        (c == vocab.RICHTIG_CODE).sum(axis=axis), (c == vocab.FALSCH_CODE).sum(axis=axis)
    )


def unanimous(
    richtig: npt.ArrayLike, falsch: npt.ArrayLike, min_votes: int = PANEL_MIN_VOTES
) -> npt.NDArray[np.int8]:
    """The label of a unanimous group from vote counts: ``RICHTIG_CODE`` or ``FALSCH_CODE``
    where at least ``min_votes`` non-abstaining votes were cast and all agree, else
    ``MISSING_CODE``. ``richtig`` and ``falsch`` are same-shaped counts (abstentions are not
    counted, so they never break unanimity)."""
    if min_votes < 1:
        raise ValueError(f"a unanimous group needs at least 1 vote, got {min_votes}")
    r = np.asarray(richtig)
    f = np.asarray(falsch)
    out = np.full(np.broadcast(r, f).shape, vocab.MISSING_CODE, dtype=np.int8)
    out[(r >= min_votes) & (f == 0)] = vocab.RICHTIG_CODE
    out[(f >= min_votes) & (r == 0)] = vocab.FALSCH_CODE
    return out
