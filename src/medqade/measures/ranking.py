"""Ranks with simultaneous paired intervals, each pair on its own scale (studentized max-T).

The K ranked rows were scored on the same question resamples; every pair (i, j) has the
difference ``d_ij = est_i - est_j``, its own bootstrap standard error ``se_ij`` and one
critical value ``c`` for the whole family of pairs (:mod:`medqade.measures.max_t`, which also
says which pairs are left out of the family).

The simultaneous interval of pair (i, j) is ``d_ij +- c se_ij``; with probability about 95%
all of them cover their true differences at once, so the chance that *any* two rows of equal
quality are called different stays near 5% however many rows the board has. Row ``j`` is
**significantly better** than row ``i`` when ``d_ji / se_ij > c``. Because every pair is
measured in its own standard errors, a row with a wide bootstrap spread (a noisy submission,
a string-matching baseline) widens only its own pairs' intervals, not everyone's: ``c`` is a
quantile of a maximum of K(K-1)/2 roughly standard normal statistics and grows only slowly
with K. The rank interval of a row is

* ``best`` = 1 + the number of rows significantly better than it (the rank shown);
* ``worst`` = K - the number of rows significantly worse than it.

A row significantly better than another has the larger point estimate, but with pair-specific
scales the best ranks need not follow the sort by point estimate (a noisy row can keep rank 1
where a precise row just below the leader cannot). :class:`Resolution` says what the board can
tell apart: ``c`` times the smallest and the median pair standard error.

Cost: O(K^2) per board after the critical value (:mod:`medqade.measures.max_t`), the pairs in
blocks.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from medqade.measures.estimate import FloatArray
from medqade.measures.max_t import (
    CHUNK,
    LEVEL,
    checked,
    critical,
    in_family,
    pair_standard_errors,
)

BOARDS_KEPT: Final = 8
"""Boards a :class:`Ranker` keeps (judges and models of a few views and metrics)."""


@dataclass(frozen=True)
class RankInterval:
    """A row's rank interval among the ranked rows (module docstring)."""

    best: int
    worst: int

    def __str__(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}-{self.worst}"


@dataclass(frozen=True)
class Resolution:
    """What one board can tell apart, on the scale of the ranked replicates.

    ``critical`` is the studentized critical value ``c``; a pair is separated when its
    difference exceeds ``c`` times its own standard error, so

    * ``smallest_resolvable`` = ``c`` x the smallest pair standard error: the smallest
      difference that separates the board's most precisely compared pair;
    * ``median_resolvable`` = ``c`` x the median pair standard error: the difference a typical
      pair of the board needs.

    All NaN when the board has no pair in its family (one row, no bootstrap)."""

    critical: float
    smallest_resolvable: float
    median_resolvable: float
    rows: int
    pairs: int
    """Pairs in the family (pairs left out: see the module docstring)."""

    def scaled(self, factor: float) -> Resolution:
        """The differences in another unit (e.g. PABAK = 2 PA - 1: ``factor`` 2)."""
        return Resolution(
            self.critical,
            self.smallest_resolvable * factor,
            self.median_resolvable * factor,
            self.rows,
            self.pairs,
        )


@dataclass(frozen=True)
class PairTest:
    """One pair of a board: ``d`` = est_a - est_b, its standard error, the board's critical
    value and the simultaneous interval ``d +- c se``; ``separated`` when that interval
    excludes 0 (``|d| / se > c``). ``in_family`` is False for a pair left out of the family
    (never separated)."""

    d: float
    se: float
    critical: float
    low: float
    high: float
    separated: bool
    in_family: bool


@dataclass(frozen=True, eq=False)
class RankedBoard:
    """One ranked board: the rows' keys and rank intervals (input order), its
    :class:`Resolution`, and each pair's test (:meth:`pair`)."""

    keys: tuple[Hashable, ...]
    intervals: tuple[RankInterval, ...]
    resolution: Resolution
    estimates: FloatArray
    standard_errors: FloatArray
    """(K, K) pair standard errors (NaN outside the family's definition)."""

    @property
    def critical(self) -> float:
        return self.resolution.critical

    def index(self, key: Hashable) -> int | None:
        try:
            return self.keys.index(key)
        except ValueError:
            return None

    def pair(self, a: Hashable, b: Hashable) -> PairTest | None:
        """The simultaneous test of ``a`` minus ``b`` (``None``: not both on the board)."""
        i, j = self.index(a), self.index(b)
        if i is None or j is None or i == j:
            return None
        d = float(self.estimates[i] - self.estimates[j])
        se = float(self.standard_errors[i, j])
        c = self.critical
        family = bool(in_family(np.array(se))) and not math.isnan(c)
        half = c * se if family else math.nan
        separated = family and abs(d) / se > c
        return PairTest(d, se, c, d - half, d + half, separated, family)

    def better(self, a: Hashable, b: Hashable) -> bool | None:
        """Whether ``a`` is significantly better than ``b`` (``None``: not both on it)."""
        test = self.pair(a, b)
        if test is None:
            return None
        return test.separated and test.d > 0


def rank_board(
    keys: Sequence[Hashable],
    estimates: npt.ArrayLike,
    replicates: npt.ArrayLike,
    level: float = LEVEL,
) -> RankedBoard:
    """Rank K rows (module docstring): their intervals, the board's resolution and pair
    standard errors. With no usable critical value no pair is significant."""
    est, reps = checked(estimates, replicates)
    if np.isnan(est).any():
        raise ValueError("ranked rows need a defined point estimate")
    k = est.shape[0]
    if len(keys) != k:
        raise ValueError("one key per ranked row")
    se = pair_standard_errors(reps) if k else np.zeros((0, 0))
    crit = critical(est, reps, se, level)
    better = np.zeros(k, dtype=np.int64)
    worse = np.zeros(k, dtype=np.int64)
    family = in_family(se)
    if not math.isnan(crit):
        step = max(1, CHUNK // max(k, 1))
        for start in range(0, k, step):
            rows = slice(start, start + step)
            diff = est[None, :] - est[rows, None]  # (block, K): j minus i
            with np.errstate(invalid="ignore", divide="ignore"):
                z = np.where(family[rows], diff / np.where(family[rows], se[rows], 1.0), 0.0)
            better[rows] = (z > crit).sum(axis=1)
            worse[rows] = (-z > crit).sum(axis=1)
    upper = se[np.triu(family, 1)]
    resolution = Resolution(
        crit,
        crit * float(upper.min()) if upper.size and not math.isnan(crit) else math.nan,
        crit * float(np.median(upper)) if upper.size and not math.isnan(crit) else math.nan,
        k,
        int(upper.size),
    )
    intervals = tuple(
        RankInterval(int(b), int(w)) for b, w in zip(1 + better, k - worse, strict=True)
    )
    return RankedBoard(tuple(keys), intervals, resolution, est, se)


def rank_intervals(
    estimates: npt.ArrayLike, replicates: npt.ArrayLike, level: float = LEVEL
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], float]:
    """``(best, worst, c)``: the rank interval of every row (input order) and the critical
    value (:func:`rank_board` without the keys)."""
    est = np.asarray(estimates, dtype=np.float64)
    board = rank_board(range(est.shape[0]), est, replicates, level)
    best = np.array([r.best for r in board.intervals], dtype=np.int64)
    worst = np.array([r.worst for r in board.intervals], dtype=np.int64)
    return best, worst, board.critical


class Ranker:
    """Rank intervals of ``(key, estimate, replicates)`` rows, keeping the last boards.

    ``rank(rows)`` returns a :class:`RankInterval` per row, in input order, and
    ``rank_board(rows)`` the whole :class:`RankedBoard` (module docstring). The critical value
    depends on every ranked row, so nothing is cached per pair; ranking the same keys again
    returns a stored board (the last :data:`BOARDS_KEPT`; keys must change when a row's
    numbers change, e.g. record id, view and metric). ``board``, ``critical`` and
    ``better(a, b)`` read the last board ranked.
    """

    def __init__(self, level: float = LEVEL) -> None:
        self.level = level
        self._boards: OrderedDict[tuple[Hashable, ...], RankedBoard] = OrderedDict()
        self.board: RankedBoard | None = None
        """The last board ranked (``None`` before any)."""

    @property
    def critical(self) -> float:
        """The critical value of the last board (NaN before any, or with one row)."""
        return math.nan if self.board is None else self.board.critical

    def rank_board(self, rows: Sequence[tuple[Hashable, float, FloatArray]]) -> RankedBoard:
        keys = tuple(k for k, _, _ in rows)
        if len(set(keys)) != len(keys):
            raise ValueError("every ranked row needs its own key")
        kept = self._boards.get(keys)
        if kept is not None:
            self._boards.move_to_end(keys)
            self.board = kept
            return kept
        shapes = {np.shape(r) for _, _, r in rows}
        if len(shapes) > 1:
            raise ValueError("ranked rows need replicates from the same resamples")
        if rows:
            est = np.array([float(e) for _, e, _ in rows], dtype=np.float64)
            reps = np.stack([np.asarray(r, dtype=np.float64) for _, _, r in rows])
        else:
            est, reps = np.zeros(0), np.zeros((0, 0))
        board = rank_board(keys, est, reps, self.level)
        self._boards[keys] = board
        while len(self._boards) > BOARDS_KEPT:
            self._boards.popitem(last=False)
        self.board = board
        return board

    def rank(self, rows: Sequence[tuple[Hashable, float, FloatArray]]) -> list[RankInterval]:
        return list(self.rank_board(rows).intervals)

    def better(self, a: Hashable, b: Hashable) -> bool | None:
        """Whether ``a`` was significantly better than ``b`` on the last board (``None``: not
        both on it)."""
        return None if self.board is None else self.board.better(a, b)


def ranks(rows: Sequence[tuple[Hashable, float, FloatArray]]) -> list[RankInterval]:
    """:meth:`Ranker.rank` without keeping anything."""
    return Ranker().rank(rows)


__all__ = [
    "PairTest",
    "RankInterval",
    "RankedBoard",
    "Ranker",
    "Resolution",
    "rank_board",
    "rank_intervals",
    "ranks",
]
