"""Ranks with simultaneous paired intervals, each pair on its own scale (studentized max-T).

The K ranked rows were scored on the same question resamples, so row ``i`` has a point
estimate ``est_i`` and replicates ``rep_i(b)``, b = 1..R. Every pair (i, j) has the difference
``d_ij = est_i - est_j`` and its own bootstrap standard error

* ``se_ij`` = the standard deviation (``ddof=1``) over resamples of ``rep_i(b) - rep_j(b)``,
  on the resamples where both rows are defined (a pair with fewer than two such resamples, or
  with ``se_ij <= ZERO_SE``, e.g. a row and its exact copy, is left out of the family: it is
  never separated and never sets the critical value).

One critical value ``c`` serves all pairs of the family at once (a studentized max-T
bootstrap):

* ``T(b)`` = the largest ``|(rep_i(b) - rep_j(b)) - d_ij| / se_ij`` over the family's pairs
  defined in resample b;
* ``c`` = the 95% quantile of ``T(b)`` over the resamples (linear interpolation; resamples
  where no pair is defined are left out).

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

Cost: O(K^2 R), computed in blocks of pairs (the K x K x R differences never exist at once);
the pair standard errors come from Gram matrices (O(K^2 R) in BLAS), with pairs whose rows are
nearly identical recomputed directly so that cancellation cannot distort them.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade.measures.estimate import FloatArray

LEVEL: Final = 0.95
"""Family-wise coverage of the simultaneous intervals behind every rank."""
ZERO_SE: Final = 1e-12
"""A pair whose difference has at most this bootstrap standard error is not in the family."""
BOARDS_KEPT: Final = 8
"""Boards a :class:`Ranker` keeps (judges and models of a few views and metrics)."""
_CHUNK: Final = 1 << 18  # pair-resample cells computed at once (1-2 MiB)
_DIRECT: Final = 1e-3  # Gram variance below this share of the summed second moments: recompute


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


def _check(estimates: npt.ArrayLike, replicates: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    est = np.asarray(estimates, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    if reps.ndim != 2 or est.shape != (reps.shape[0],):
        raise ValueError("need estimates (K,) and replicates (K, R)")
    return est, reps


def pair_standard_errors(replicates: npt.ArrayLike) -> FloatArray:
    """``se`` (K, K): the SD (ddof 1) over resamples of ``rep_i - rep_j``, on the resamples
    where both rows are defined; NaN on the diagonal and for pairs with fewer than two such
    resamples. Gram matrices, with near-identical pairs recomputed directly."""
    reps = np.asarray(replicates, dtype=np.float64)
    k = reps.shape[0]
    valid = ~np.isnan(reps)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(valid, reps, 0.0).sum(axis=1) / valid.sum(axis=1)
    z = np.where(valid, reps - centre[:, None], 0.0)  # a shift per row leaves se unchanged
    p = z @ z.T
    if valid.all():  # every resample defined: one Gram matrix
        r = float(reps.shape[1])
        n = np.full((k, k), r)
        q = np.diag(p)[:, None] * np.ones((1, k))
        s = z.sum(axis=1)[:, None] * np.ones((1, k))
    else:  # sums over the resamples where both rows are defined
        m = valid.astype(np.float64)
        n = m @ m.T
        s = z @ m.T  # s[i, j] = sum of z_i over the resamples where i and j are both defined
        q = (z * z) @ m.T
    second = q + q.T
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (second - 2.0 * p - (s - s.T) ** 2 / n) / (n - 1.0)
    var[n < 2] = np.nan
    np.fill_diagonal(var, np.nan)
    with np.errstate(invalid="ignore"):
        risky = np.triu((var < _DIRECT * second / np.maximum(n - 1.0, 1.0)) & (n >= 2), 1)
    for i, j in zip(*np.nonzero(risky), strict=True):
        both = valid[i] & valid[j]
        diff = reps[i, both] - reps[j, both]
        var[i, j] = var[j, i] = float(np.var(diff, ddof=1))
    se = np.sqrt(np.maximum(var, 0.0))
    se[np.isnan(var)] = np.nan
    return se if k else np.zeros((0, 0))


def _in_family(se: FloatArray) -> npt.NDArray[np.bool_]:
    with np.errstate(invalid="ignore"):
        return np.asarray(se > ZERO_SE)


def _max_t(centred: npt.NDArray[Any], inverse: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """T(b) (R,): the largest ``|centred_i(b) - centred_j(b)| * inverse_ij`` over i < j, NaN
    where no pair is defined (``inverse`` NaN outside the family), in blocks of pairs; in the
    inputs' precision."""
    k, r = centred.shape
    top = np.full(r, np.nan, dtype=centred.dtype)
    width = max(1, _CHUNK // max(r, 1))
    buf = np.empty(width * r, dtype=centred.dtype)
    for i in range(k - 1):
        for j0 in range(i + 1, k, width):
            j1 = min(k, j0 + width)
            block = buf[: (j1 - j0) * r].reshape(j1 - j0, r)
            np.subtract(centred[i][None, :], centred[j0:j1], out=block)
            block *= inverse[i, j0:j1, None]
            np.fmax(top, np.fmax.reduce(block, axis=0), out=top)  # |x| = max(x, -x)
            np.fmax(top, -np.fmin.reduce(block, axis=0), out=top)
    return top


def _critical(est: FloatArray, reps: FloatArray, se: FloatArray, level: float) -> float:
    """The quantile of T(b). T is computed in float32 first (about twice as fast), then every
    resample whose float32 value lies within twice a bound of its rounding error of the two
    order statistics the quantile interpolates is computed again in float64: those two are
    then exact, and resamples outside the band keep their side of them (float32 moves no
    value by more than the bound), so ``c`` equals the float64 computation."""
    if reps.shape[0] < 2 or reps.shape[1] == 0:
        return math.nan
    family = _in_family(se)
    if not family.any():
        return math.nan
    with np.errstate(divide="ignore"):
        inverse = np.where(family, 1.0 / np.where(family, se, 1.0), np.nan)
    centred = reps - est[:, None]
    stat = _max_t(centred.astype(np.float32), inverse.astype(np.float32)).astype(np.float64)
    usable = ~np.isnan(stat)
    n = int(usable.sum())
    if n == 0:
        return math.nan
    h = (n - 1) * level
    low, high = math.floor(h), min(math.floor(h) + 1, n - 1)
    part = np.partition(stat[usable], [low, high])
    # |T32 - T64| <= a few float32 ulps of (|x_i| + |x_j|) w_ij, x the centred replicates
    eps = float(np.finfo(np.float32).eps)
    bound = 16.0 * eps * float(np.nanmax(np.abs(centred))) * float(np.nanmax(inverse))
    again = usable & (stat >= part[low] - 2 * bound) & (stat <= part[high] + 2 * bound)
    if not math.isfinite(bound) or again.sum() > max(16, reps.shape[1] // 8):
        stat = _max_t(centred, inverse)
    elif again.any():
        stat[again] = _max_t(centred[:, again], inverse)
    return float(np.quantile(stat[usable], level))


def critical_value(
    estimates: npt.ArrayLike, replicates: npt.ArrayLike, level: float = LEVEL
) -> float:
    """The studentized simultaneous critical value ``c`` of K rows (estimates (K,),
    replicates (K, R)); NaN with no pair in the family or no resample where one is defined."""
    est, reps = _check(estimates, replicates)
    return _critical(est, reps, pair_standard_errors(reps), level)


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
        family = bool(_in_family(np.array(se))) and not math.isnan(c)
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
    est, reps = _check(estimates, replicates)
    if np.isnan(est).any():
        raise ValueError("ranked rows need a defined point estimate")
    k = est.shape[0]
    if len(keys) != k:
        raise ValueError("one key per ranked row")
    se = pair_standard_errors(reps) if k else np.zeros((0, 0))
    crit = _critical(est, reps, se, level)
    better = np.zeros(k, dtype=np.int64)
    worse = np.zeros(k, dtype=np.int64)
    family = _in_family(se)
    if not math.isnan(crit):
        step = max(1, _CHUNK // max(k, 1))
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
    "LEVEL",
    "PairTest",
    "RankInterval",
    "RankedBoard",
    "Ranker",
    "Resolution",
    "critical_value",
    "pair_standard_errors",
    "rank_board",
    "rank_intervals",
    "ranks",
]
