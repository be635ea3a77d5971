"""Ranks of judges of identical true quality: the unadjusted pairwise rule against max-T.

Usage::

    python bench/ranks.py [--boards 20 5 1] [--resamples 1000] [--old-at-1000]

Seeded simulation (``numpy.random.default_rng``, seed 2026 + board): a reference of 200 items x
5 slots (Richtig with probability 0.6 per answer, as a physician consensus would be), and K
judges of *identical* true quality, each agreeing with the reference on a seeded 85% of the
answers independently. Every judge is scored with the project's own
:func:`medqade.measures.macro_agreement` (macro kappa over the five slots) on the same question
resamples (:func:`medqade.measures.question_weights`, R = 1,000). For K = 10, 100 and 1,000
(20, 5 and 1 boards by default) it prints:

- the new rule (:mod:`medqade.measures.ranking`, simultaneous 95% max-T intervals): share of
  rows with best rank 1 (goal >= 95% at K = 100), the mean and the largest best rank, the mean
  worst rank (K when no row is told apart), the distinct rank intervals on a board;
- the old rule (1 + the rows whose unadjusted paired 95% percentile interval lies above 0):
  share ranked below 1st, the largest rank on a board (mean over boards), distinct ranks. At
  K = 1,000 only with ``--old-at-1000`` (about a million percentile intervals);
- 20 copies of the leader added to the first K = 100 board: how the other rows' best ranks
  change under both rules;
- the rebuild time of a board of 1,000 stored rows plus one new with
  :class:`medqade.measures.Ranker` (median of 5; everything ranked again).

Prints Markdown tables; asserts nothing. Load on a shared machine inflates the times.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from medqade import vocab
from medqade.measures import Ranker, macro_agreement, question_weights
from medqade.measures.ranking import rank_intervals

ITEMS, SLOTS = 200, 5
PREVALENCE, ACCURACY = 0.6, 0.85
SIZES = (10, 100, 1000)
COPIES = 20


def board(k: int, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Point estimates (K,) and replicates (K, R) of macro kappa of K identical judges."""
    rng = np.random.default_rng(2026 + seed)
    reference = np.where(rng.random((ITEMS, SLOTS)) < PREVALENCE, vocab.RICHTIG_CODE, 0)
    agree = rng.random((k, ITEMS, SLOTS)) < ACCURACY
    labels = np.where(agree, reference[None], 1 - reference[None]).astype(np.int64)
    weights = question_weights(ITEMS, resamples, seed, 1)
    _, est = macro_agreement(labels, reference)
    _, reps = macro_agreement(labels, reference, weights)
    return np.asarray(est, dtype=np.float64), np.asarray(reps, dtype=np.float64).T


def old_ranks(reps: np.ndarray) -> np.ndarray:
    """The former rule: 1 + the rows whose paired percentile interval against it is above 0."""
    k = reps.shape[0]
    out = np.ones(k, dtype=np.int64)
    for i in range(k):
        diff = reps - reps[i][None, :]
        low = np.nanpercentile(diff, 2.5, axis=1)
        low[i] = 0.0
        out[i] += int((low > 0).sum())
    return out


def summary_new(est: np.ndarray, reps: np.ndarray) -> dict[str, float]:
    best, worst, _ = rank_intervals(est, reps)
    return {
        "share_1": float((best == 1).mean()),
        "mean_best": float(best.mean()),
        "max_best": float(best.max()),
        "mean_worst": float(worst.mean()),
        "distinct": float(len(set(zip(best.tolist(), worst.tolist(), strict=True)))),
    }


def summary_old(reps: np.ndarray) -> dict[str, float]:
    r = old_ranks(reps)
    return {
        "below_1": float((r > 1).mean()),
        "max": float(r.max()),
        "distinct": float(len(set(r.tolist()))),
    }


def mean_of(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.fmean(r[key] for r in rows) for key in rows[0]}


def copies_effect(est: np.ndarray, reps: np.ndarray, old: bool) -> list[str]:
    lead = int(np.argmax(est))
    others = np.arange(len(est)) != lead
    more_est = np.concatenate([est, np.repeat(est[lead], COPIES)])
    more_reps = np.vstack([reps, np.repeat(reps[lead : lead + 1], COPIES, axis=0)])
    b0, w0, c0 = rank_intervals(est, reps)
    b1, w1, c1 = rank_intervals(more_est, more_reps)
    b1, w1 = b1[: len(est)], w1[: len(est)]
    lines = [
        f"| max-T | {b0[others].mean():.2f} -> {b1[others].mean():.2f} | "
        f"{int((b1[others] != b0[others]).sum())} of {int(others.sum())} | "
        f"{w0[others].mean():.1f} -> {w1[others].mean():.1f} | c {c0:.4f} -> {c1:.4f} |"
    ]
    if old:
        r0 = old_ranks(reps)
        r1 = old_ranks(more_reps)[: len(est)]
        lines.append(
            f"| unadjusted pairwise | {r0[others].mean():.2f} -> {r1[others].mean():.2f} | "
            f"{int((r1[others] != r0[others]).sum())} of {int(others.sum())} | | |"
        )
    return lines


def rebuild_time(resamples: int) -> tuple[float, float]:
    est, reps = board(1001, resamples, 99)
    rows = [(f"row{i}", float(est[i]), reps[i]) for i in range(1001)]
    times = []
    for _ in range(5):
        ranker = Ranker()
        ranker.rank(rows[:1000])
        t = time.perf_counter()
        ranker.rank(rows)
        times.append(time.perf_counter() - t)
    start = time.perf_counter()
    board(1001, resamples, 98)
    return statistics.median(times), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, nargs=3, default=(20, 5, 1), metavar="N")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--old-at-1000", action="store_true", help="run the old rule at K=1000")
    args = parser.parse_args()
    print(
        f"K judges of identical quality, {ITEMS} items x {SLOTS} slots, "
        f"R = {args.resamples:,}, macro kappa\n"
    )
    print(
        "| K | boards | max-T: best rank 1 | mean / largest best rank | mean worst rank | "
        "distinct intervals | unadjusted: below 1st | largest rank | distinct ranks |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    first_100: tuple[np.ndarray, np.ndarray] | None = None
    for k, n_boards in zip(SIZES, args.boards, strict=True):
        new, old = [], []
        for b in range(n_boards):
            est, reps = board(k, args.resamples, b)
            if k == 100 and first_100 is None:
                first_100 = (est, reps)
            new.append(summary_new(est, reps))
            if k < 1000 or args.old_at_1000:
                old.append(summary_old(reps))
        n, o = mean_of(new), (mean_of(old) if old else None)
        old_cells = (
            f"{100 * o['below_1']:.1f}% | {o['max']:.1f} | {o['distinct']:.1f}"
            if o
            else "not run | | "
        )
        print(
            f"| {k:,} | {n_boards} | {100 * n['share_1']:.1f}% | {n['mean_best']:.2f} / "
            f"{n['max_best']:.1f} | {n['mean_worst']:.1f} | {n['distinct']:.1f} | {old_cells} |"
        )
    if first_100 is not None:
        print(f"\n{COPIES} copies of the leader added to the first K = 100 board (other rows)\n")
        print("| rule | mean best rank | rows whose best rank changed | mean worst rank | |")
        print("|---|---:|---:|---:|---|")
        for line in copies_effect(*first_100, old=True):
            print(line)
    rank_s, score_s = rebuild_time(args.resamples)
    print(
        f"\nrebuild, 1,000 stored rows + 1 new (Ranker, R = {args.resamples:,}): "
        f"{rank_s * 1000:.1f} ms median of 5 (goal < 2 s); "
        f"scoring the 1,001 simulated judges took {score_s:.1f} s (not part of a rebuild)"
    )


if __name__ == "__main__":
    main()
