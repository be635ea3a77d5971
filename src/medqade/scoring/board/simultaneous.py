"""What a ranked board can tell apart, in words: the leaderboard's resolution note and the pair
test ``medqade compare`` (and the Space's Compare) reports beside its paired interval.

The board ranks with simultaneous 95% intervals over all its ranked pairs, each pair in its own
bootstrap standard errors (:mod:`medqade.measures.ranking`); a pair is separated there when
its difference exceeds ``c`` of its standard errors, ``c`` the board's critical value (about 3
for a dozen rows, 4 for a hundred). A single paired 95% interval uses about 1.96 of them. So a
pair can be *separated pairwise* (the paired interval excludes 0: the answer to "is A better
than B?" asked alone) and yet *not simultaneously* (the board keeps them in overlapping rank
intervals, because it answers that question for all pairs at once). :func:`resolution_note`
says what the board resolves; :class:`BoardPair` says which of the two applies to a pair.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Final

from medqade.measures import Estimate, PairTest, RankedBoard, RankInterval, Resolution

UNRANKED_NOTE: Final = {
    "judges": (
        "The string-matching baselines, the physician reference and unverified, partial or "
        "flagged rows are shown without a rank."
    ),
    "models": "Unverified, partial or flagged rows are shown without a rank.",
}
METRIC_NAMES: Final = {"kappa": "kappa", "pa": "PA", "pabak": "PABAK", "accuracy": "accuracy"}


def resolution_note(resolution: Resolution | None, metric: str, what: str = "judges") -> str:
    """One paragraph under a board: how many rows are ranked, the critical value, and the
    smallest difference of ``metric`` the board resolves (its best-resolved pair, its median
    pair); empty when nothing can be resolved (fewer than two ranked rows)."""
    name = METRIC_NAMES.get(metric, metric)
    if resolution is None or resolution.pairs == 0 or math.isnan(resolution.critical):
        return ""
    return (
        f"Ranks: simultaneous 95% intervals over the {resolution.rows:,} ranked {what} "
        f"({resolution.pairs:,} pairs, each in its own bootstrap standard error; critical "
        f"value {resolution.critical:.2f}). The smallest {name} difference this board can "
        f"resolve is {resolution.smallest_resolvable:.3f} (its most precisely compared pair); "
        f"a typical (median) pair needs {resolution.median_resolvable:.3f}. Smaller "
        f"differences share ranks. {UNRANKED_NOTE.get(what, '')}".rstrip()
    )


@dataclass(frozen=True)
class BoardPair:
    """Two judges on the same ranked board: the board's simultaneous test of A - B
    (``test``), their rank intervals, how many rows the board ranks, and whether the paired
    95% interval (``pairwise``) excludes 0."""

    test: PairTest
    rank_a: RankInterval
    rank_b: RankInterval
    rows: int
    pairwise: bool

    @property
    def simultaneous(self) -> bool:
        """Whether the board separates them (its simultaneous interval excludes 0)."""
        return self.test.separated

    @property
    def pairwise_only(self) -> bool:
        """Separated by the paired interval alone, not on the board."""
        return self.pairwise and not self.simultaneous

    def text(self) -> str:
        """What the two tests say, in words (A and B as the comparison names them)."""
        t = self.test
        board = (
            f"on the leaderboard ({self.rows:,} ranked judges, simultaneous 95% intervals, "
            f"critical value {t.critical:.2f} standard errors instead of about 1.96) A - B = "
            f"{t.d:+.3f} [{t.low:+.3f}, {t.high:+.3f}]"
        )
        ranks = f"rank intervals A {self.rank_a}, B {self.rank_b}"
        if self.pairwise_only:
            return (
                f"Separated pairwise, not simultaneously: the paired 95% interval excludes 0, "
                f"but {board} includes 0, so the board does not tell them apart ({ranks}). "
                "The paired interval answers 'is A better than B?' asked alone; the board "
                "answers it for all its pairs at once."
            )
        if self.simultaneous and self.pairwise:
            return f"Separated on the leaderboard too: {board} excludes 0 ({ranks})."
        if self.simultaneous:
            return f"Separated on the leaderboard: {board} excludes 0 ({ranks})."
        return f"Not separated on the leaderboard either: {board} includes 0 ({ranks})."

    def to_dict(self) -> dict[str, Any]:
        t = self.test
        return {
            "ranked_rows": self.rows,
            "critical": t.critical,
            "difference": t.d,
            "standard_error": t.se,
            "simultaneous_ci": [t.low, t.high],
            "separated_pairwise": self.pairwise,
            "separated_simultaneously": self.simultaneous,
            "rank_a": str(self.rank_a),
            "rank_b": str(self.rank_b),
        }


def board_pair(
    board: RankedBoard | None, a: Hashable | None, b: Hashable | None, paired: Estimate
) -> BoardPair | None:
    """The :class:`BoardPair` of rows ``a`` and ``b`` (board keys), ``paired`` the paired
    estimate of A - B; ``None`` unless both are ranked on ``board``."""
    if board is None or a is None or b is None:
        return None
    test = board.pair(a, b)
    i, j = board.index(a), board.index(b)
    if test is None or i is None or j is None:
        return None
    return BoardPair(
        test, board.intervals[i], board.intervals[j], len(board.keys), paired.excludes_zero()
    )


__all__ = ["UNRANKED_NOTE", "BoardPair", "board_pair", "resolution_note"]
