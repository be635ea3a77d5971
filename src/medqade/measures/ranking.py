"""Ranks with simultaneous paired intervals: a rank interval per row that stays honest at any
board size.

The K ranked rows were scored on the same question resamples, so row ``i`` has a point
estimate ``est_i`` and replicates ``rep_i(b)``, b = 1..R. Every pair (i, j) has the difference
``d_ij = est_i - est_j``; its **simultaneous** 95% interval is ``d_ij +- c`` with one critical
value ``c`` for all K(K-1)/2 pairs at once (a max-T bootstrap, not studentized):

* centre each row's replicates at its point estimate, ``c_i(b) = rep_i(b) - est_i``, so the
  centred replicate difference of a pair is ``c_i(b) - c_j(b) = (rep_i(b) - rep_j(b)) - d_ij``;
* ``T(b)`` = the largest ``|c_i(b) - c_j(b)|`` over all pairs = ``max_i c_i(b) - min_j c_j(b)``
  (the range of the centred replicates of resample b, over the rows defined in it): O(K R)
  rather than O(K^2 R);
* ``c`` = the 95% quantile of ``T(b)`` over the resamples (linear interpolation; resamples
  with fewer than two defined rows are left out).

With probability about 95% every pair's interval covers its true difference at once, so the
chance that *any* two rows of equal quality are called different stays near 5% however many
rows the board has. Row ``j`` is **significantly better** than row ``i`` when its whole
interval lies above 0: ``d_ji - c > 0``. The rank interval of a row is

* ``best`` = 1 + the number of rows significantly better than it (the rank shown);
* ``worst`` = K - the number of rows significantly worse than it.

Unstudentized: every row is on the same metric scale with similar bootstrap spread, and the
range identity above makes it exact and fast; a pair with smaller spread than the widest one
gets a conservative (wider than needed) interval. A row significantly better than another
always has the larger point estimate, so best ranks follow the sort by point estimate.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from medqade.measures.estimate import FloatArray

LEVEL: Final = 0.95
"""Family-wise coverage of the simultaneous intervals behind every rank."""
_BLOCK: Final = 1024  # rows compared at once, so K x K booleans never all exist at once


@dataclass(frozen=True)
class RankInterval:
    """A row's rank interval among the ranked rows (module docstring)."""

    best: int
    worst: int

    def __str__(self) -> str:
        return str(self.best) if self.best == self.worst else f"{self.best}-{self.worst}"


def critical_value(
    estimates: npt.ArrayLike, replicates: npt.ArrayLike, level: float = LEVEL
) -> float:
    """The simultaneous critical value ``c`` of K rows (estimates (K,), replicates (K, R)):
    the ``level`` quantile over resamples of the range of the centred replicates. NaN with
    fewer than two rows or no resample where two rows are defined."""
    est = np.asarray(estimates, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    if reps.ndim != 2 or est.shape != (reps.shape[0],):
        raise ValueError("need estimates (K,) and replicates (K, R)")
    if reps.shape[0] < 2 or reps.shape[1] == 0:
        return math.nan
    centred = reps - est[:, None]
    valid = ~np.isnan(centred)
    top = np.where(valid, centred, -np.inf).max(axis=0)
    bottom = np.where(valid, centred, np.inf).min(axis=0)
    usable = valid.sum(axis=0) >= 2
    if not usable.any():
        return math.nan
    return float(np.quantile(top[usable] - bottom[usable], level))


def rank_intervals(
    estimates: npt.ArrayLike, replicates: npt.ArrayLike, level: float = LEVEL
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], float]:
    """``(best, worst, c)``: the rank interval of every row (input order) and the critical
    value. With no usable critical value (one row, or no bootstrap) no pair is significant."""
    est = np.asarray(estimates, dtype=np.float64)
    if np.isnan(est).any():
        raise ValueError("ranked rows need a defined point estimate")
    k = est.shape[0]
    crit = critical_value(est, replicates, level)
    better = np.zeros(k, dtype=np.int64)
    worse = np.zeros(k, dtype=np.int64)
    if not math.isnan(crit):
        for start in range(0, k, _BLOCK):
            diff = est[None, :] - est[start : start + _BLOCK, None]  # (block, K): j minus i
            better[start : start + _BLOCK] = (diff - crit > 0).sum(axis=1)
            worse[start : start + _BLOCK] = (-diff - crit > 0).sum(axis=1)
    return 1 + better, k - worse, crit


class Ranker:
    """Rank intervals of ``(key, estimate, replicates)`` rows, remembering the last board.

    ``rank(rows)`` returns a :class:`RankInterval` per row, in input order (module docstring).
    The critical value depends on every ranked row, so nothing is cached per pair; ranking
    the same keys again returns the stored result (keys must change when a row's numbers
    change, e.g. record id, view and metric). ``better(a, b)`` reads the last board.
    """

    def __init__(self, level: float = LEVEL) -> None:
        self.level = level
        self._keys: tuple[Hashable, ...] | None = None
        self._result: list[RankInterval] = []
        self._estimates: dict[Hashable, float] = {}
        self.critical: float = math.nan
        """The critical value of the last board (NaN before any, or with one row)."""

    def rank(self, rows: Sequence[tuple[Hashable, float, FloatArray]]) -> list[RankInterval]:
        keys = tuple(k for k, _, _ in rows)
        if len(set(keys)) != len(keys):
            raise ValueError("every ranked row needs its own key")
        if keys == self._keys:
            return list(self._result)
        shapes = {np.shape(r) for _, _, r in rows}
        if len(shapes) > 1:
            raise ValueError("ranked rows need replicates from the same resamples")
        if not rows:
            return []
        est = np.array([float(e) for _, e, _ in rows], dtype=np.float64)
        reps = np.stack([np.asarray(r, dtype=np.float64) for _, _, r in rows])
        best, worst, crit = rank_intervals(est, reps, self.level)
        self._keys = keys
        self._result = [RankInterval(int(b), int(w)) for b, w in zip(best, worst, strict=True)]
        self._estimates = dict(zip(keys, est.tolist(), strict=True))
        self.critical = crit
        return list(self._result)

    def better(self, a: Hashable, b: Hashable) -> bool | None:
        """Whether ``a`` was significantly better than ``b`` on the last board (``None``: not
        both on it)."""
        if a not in self._estimates or b not in self._estimates:
            return None
        if math.isnan(self.critical):
            return False
        return bool(self._estimates[a] - self._estimates[b] - self.critical > 0)


def ranks(rows: Sequence[tuple[Hashable, float, FloatArray]]) -> list[RankInterval]:
    """:meth:`Ranker.rank` without keeping anything."""
    return Ranker().rank(rows)


__all__ = ["LEVEL", "RankInterval", "Ranker", "critical_value", "rank_intervals", "ranks"]
