"""Held-out labels in the Space: the release it shows and the release it scores on.

A build with a hold-out (docs/holdout.md) is served as published. Everything the Space shows item
by item (Browse and its filters, the item view and ``?item=`` links, Compare's answer list, the
downloads) reads the public release, whose held-out items have no consensus, votes, ratings or
difficulty. Given the private part (``medqade space --private-labels``), the Space keeps a
second release with those labels restored, and only scoring reads it: submissions, the
reference rows, the board, the per-physician table, Compare's and the Analysis tab's aggregate
numbers. :func:`scoring_release` checks that the two are one build; :func:`hide_held_out`
takes out of Compare's answer list what would show a held-out label.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

import numpy as np

from medqade import vocab
from medqade.app.item_view import HELD_OUT
from medqade.dataset.release import Release
from medqade.scoring.board import Comparison

LISTED: Final = 500
"""Answers Compare lists at most (their number is always complete)."""


def scoring_release(shown: Release, scored: Release | None) -> Release:
    """The release the Space scores on: ``scored`` (default ``shown``), which must be ``shown``
    or ``shown`` with its held-out labels restored. ``ValueError`` when ``shown`` is itself
    restored (the Space would show the held-out labels) or ``scored`` is another build."""
    if shown.restored:
        raise ValueError(
            "the Space shows the public build: pass the release without its private part as "
            "the shown release and the restored one as the scoring release"
        )
    if scored is None or scored is shown:
        return shown
    same = (
        scored.data_hash == shown.data_hash
        and np.array_equal(scored.item_ids, shown.item_ids)
        and np.array_equal(scored.held_out, shown.held_out)
    )
    if not same or not scored.restored:
        raise ValueError(
            "the scoring release must be the shown public build with its held-out labels "
            "restored (Release.with_private), not another release"
        )
    return scored


def listed_limit(shown: Release) -> int:
    """How many answers to ask the comparison for, so that :data:`LISTED` are left once
    :func:`hide_held_out` took out those of held-out items."""
    return LISTED + vocab.N_SLOTS * int(np.asarray(shown.held_out).sum())


def hide_held_out(c: Comparison, shown: Release) -> Comparison:
    """``c`` with its answer list as the public release allows: an answer of a held-out item
    is left out when a side is the physicians (their label there is the consensus) and is
    otherwise listed with the consensus :data:`HELD_OUT`; at most :data:`LISTED` answers.
    Every number of ``c`` stays (aggregates over all items)."""
    held = np.asarray(shown.held_out, dtype=bool)
    physicians = c.a.is_physicians or c.b.is_physicians
    where = shown.slot_index
    rows = []
    for row in c.disagreements:
        found = where.get(str(row["answer_id"]))
        if found is None or held[found[0]]:
            if physicians or found is None:
                continue
            row = {**row, "consensus": HELD_OUT}
        rows.append(row)
    return replace(c, disagreements=tuple(rows[:LISTED]))
