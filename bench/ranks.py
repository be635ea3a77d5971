"""Ranks of simulated judges: the studentized max-T of :mod:`medqade.measures.ranking` against
the former unstudentized max-T and the unadjusted pairwise rule.

Usage::

    python bench/ranks.py [--boards 20 5 1] [--resamples 1000] [--old-at-1000] [--release]

Seeded simulation (``numpy.random.default_rng``, seed 2026 + board): a reference of 200 items x
5 slots (Richtig with probability 0.6 per answer, as a physician consensus would be), and K
judges, each agreeing with the reference on a seeded share of the answers independently.
Every judge is scored with the project's own :func:`medqade.measures.macro_agreement` (macro
kappa over the five slots) on the same question resamples
(:func:`medqade.measures.question_weights`, R = 1,000). It prints:

- **identical quality** (every judge agrees on 85%), K = 10, 100 and 1,000 (20, 5 and 1
  boards by default): for the studentized max-T (each pair in its own bootstrap standard
  error) the share of rows with best rank 1 (goal >= 95% at K = 100), the mean and largest
  best rank, the mean worst rank (K when no row is told apart), the distinct rank intervals,
  the critical value and the time to rank one board; for the former unstudentized max-T (one
  critical value on the metric's scale, the 95% quantile of the range of the centred
  replicates) its share at rank 1 and critical value; for the unadjusted pairwise rule (1 + the
  rows whose paired 95% percentile interval lies above 0) the share ranked below 1st (at
  K = 1,000 only with ``--old-at-1000``, about a million percentile intervals);
- **a noisy row**: a board of K = 10 and of K = 100 judges of *different* quality (agreement
  spread evenly from 78% to 92%), then one row added that labels at random and abstains on
  60% of the answers (abstentions excluded pairwise, so its kappa rests on 40% of the answers:
  the widest row of the board): how many of the other rows' rank intervals change under each
  rule, and each rule's critical value (studentized: in standard errors; unstudentized: in
  kappa);
- 20 copies of the leader added to the first identical-quality K = 100 board;
- the rebuild time of a board of 1,000 stored rows plus one new with
  :class:`medqade.measures.Ranker` (median of 5; everything ranked again);
- with ``--release``: the default synthetic release's reference board (core, kappa, R = 1,000,
  the seed every board uses) ranked four ways: the former rule with the five string baselines
  ranked (what the board showed before issue 33), the former rule without them, the
  studentized rule without them (the board now) and the studentized rule with them.

Prints Markdown tables; asserts nothing. Load on a shared machine inflates the times: the
load average is printed beside them.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from medqade import vocab
from medqade.measures import Ranker, macro_agreement, question_weights
from medqade.measures.ranking import rank_board, rank_intervals

ITEMS, SLOTS = 200, 5
PREVALENCE, ACCURACY = 0.6, 0.85
SIZES = (10, 100, 1000)
COPIES = 20
LEVEL = 0.95


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def scored(accuracy: np.ndarray, resamples: int, seed: int, abstain: float = 0.0) -> tuple:
    """Point estimates (K,) and replicates (K, R) of macro kappa of judges of ``accuracy``
    (K,); the last row abstains on a share ``abstain`` of the answers when given."""
    rng = np.random.default_rng(2026 + seed)
    k = accuracy.shape[0]
    reference = np.where(rng.random((ITEMS, SLOTS)) < PREVALENCE, vocab.RICHTIG_CODE, 0)
    agree = rng.random((k, ITEMS, SLOTS)) < accuracy[:, None, None]
    labels = np.where(agree, reference[None], 1 - reference[None]).astype(np.int64)
    if abstain:
        labels[-1] = np.where(rng.random((ITEMS, SLOTS)) < abstain, vocab.ABSTAIN_CODE, labels[-1])
    weights = question_weights(ITEMS, resamples, seed, 1)
    _, est = macro_agreement(labels, reference)
    _, reps = macro_agreement(labels, reference, weights)
    return np.asarray(est, dtype=np.float64), np.asarray(reps, dtype=np.float64).T


def board(k: int, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    return scored(np.full(k, ACCURACY), resamples, seed)


def former(est: np.ndarray, reps: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The former unstudentized max-T: c = the 95% quantile of the range of the centred
    replicates; j better than i when est_j - est_i > c."""
    centred = reps - est[:, None]
    valid = ~np.isnan(centred)
    top = np.where(valid, centred, -np.inf).max(axis=0)
    bottom = np.where(valid, centred, np.inf).min(axis=0)
    usable = valid.sum(axis=0) >= 2
    crit = float(np.quantile(top[usable] - bottom[usable], LEVEL))
    diff = est[None, :] - est[:, None]  # j minus i
    return 1 + (diff > crit).sum(axis=1), len(est) - (-diff > crit).sum(axis=1), crit


def unadjusted(reps: np.ndarray) -> np.ndarray:
    """1 + the rows whose paired percentile interval against the row lies above 0."""
    k = reps.shape[0]
    out = np.ones(k, dtype=np.int64)
    for i in range(k):
        diff = reps - reps[i][None, :]
        low = np.nanpercentile(diff, 2.5, axis=1)
        low[i] = 0.0
        out[i] += int((low > 0).sum())
    return out


def identical(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray] | None:
    print(
        f"K judges of identical quality, {ITEMS} items x {SLOTS} slots, "
        f"R = {args.resamples:,}, macro kappa\n"
    )
    print(
        "| K | boards | studentized: best rank 1 | mean / largest best rank | mean worst rank "
        "| distinct intervals | c (SEs) | time to rank | former max-T: best rank 1 | c (kappa) "
        "| unadjusted: below 1st |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    first_100 = None
    for k, n_boards in zip(SIZES, args.boards, strict=True):
        rows: list[dict[str, float]] = []
        for b in range(n_boards):
            est, reps = board(k, args.resamples, b)
            if k == 100 and first_100 is None:
                first_100 = (est, reps)
            t = time.perf_counter()
            best, worst, crit = rank_intervals(est, reps)
            spent = time.perf_counter() - t
            old_best, _, old_crit = former(est, reps)
            row = {
                "share_1": float((best == 1).mean()),
                "mean_best": float(best.mean()),
                "max_best": float(best.max()),
                "mean_worst": float(worst.mean()),
                "distinct": float(len(set(zip(best.tolist(), worst.tolist(), strict=True)))),
                "c": crit,
                "time": spent,
                "old_1": float((old_best == 1).mean()),
                "old_c": old_crit,
                "below": math.nan,
            }
            if k < 1000 or args.old_at_1000:
                row["below"] = float((unadjusted(reps) > 1).mean())
            rows.append(row)
        if not rows:
            continue
        m = {key: statistics.fmean(r[key] for r in rows) for key in rows[0]}
        below = "not run" if math.isnan(m["below"]) else f"{100 * m['below']:.1f}%"
        print(
            f"| {k:,} | {n_boards} | {100 * m['share_1']:.1f}% | {m['mean_best']:.2f} / "
            f"{m['max_best']:.1f} | {m['mean_worst']:.1f} | {m['distinct']:.1f} | "
            f"{m['c']:.2f} | {1000 * m['time']:.0f} ms ({load()}) | {100 * m['old_1']:.1f}% | "
            f"{m['old_c']:.3f} | {below} |"
        )
    return first_100


def separations(rule: str, est: np.ndarray, reps: np.ndarray) -> tuple[np.ndarray, float]:
    """(K, K): whether row j is significantly better than row i, and the critical value."""
    if rule == "former":
        crit = former(est, reps)[2]
        return est[None, :] - est[:, None] > crit, crit
    board = rank_board(range(len(est)), est, reps)
    with np.errstate(invalid="ignore"):
        z = (est[None, :] - est[:, None]) / board.standard_errors
    return np.nan_to_num(z, nan=0.0) > board.critical, board.critical


def changed(before: np.ndarray, after: np.ndarray) -> int:
    """Rows whose comparisons with the original rows changed (so whose rank interval would
    differ but for the new row itself)."""
    k = before.shape[0]
    a = after[:k, :k]
    return int(((a != before).any(axis=1) | (a != before).any(axis=0)).sum())


def noisy_row(args: argparse.Namespace) -> None:
    print("\nOne noisy row (random labels, 60% abstentions) added to judges of different quality\n")
    print(
        "| K | rule | rows whose comparisons with the others changed | "
        "critical value before -> after | separated pairs before |"
    )
    print("|---:|---|---:|---|---:|")
    for k in (10, 100):
        acc = np.append(np.linspace(0.78, 0.92, k), 0.5)
        est, reps = scored(acc, args.resamples, 500 + k, abstain=0.6)
        base, base_reps = est[:k], reps[:k]
        for name, rule in (("studentized max-T", "studentized"), ("former max-T", "former")):
            before, c0 = separations(rule, base, base_reps)
            after, c1 = separations(rule, est, reps)
            print(
                f"| {k} | {name} | {changed(before, after)} of {k} | "
                f"{c0:.3f} -> {c1:.3f} | {int(before.sum())} |"
            )


def copies(est: np.ndarray, reps: np.ndarray) -> None:
    lead = int(np.argmax(est))
    others = np.arange(len(est)) != lead
    more_est = np.concatenate([est, np.repeat(est[lead], COPIES)])
    more_reps = np.vstack([reps, np.repeat(reps[lead : lead + 1], COPIES, axis=0)])
    print(f"\n{COPIES} copies of the leader added to the first K = 100 board (other rows)\n")
    print("| rule | mean best rank | rows whose best rank changed | critical value |")
    print("|---|---:|---:|---|")
    for name, rule in (("studentized max-T", rank_intervals), ("former max-T", former)):
        b0, _, c0 = rule(est, reps)
        b1, _, c1 = rule(more_est, more_reps)
        b1 = b1[: len(est)]
        print(
            f"| {name} | {b0[others].mean():.2f} -> {b1[others].mean():.2f} | "
            f"{int((b1[others] != b0[others]).sum())} of {int(others.sum())} | "
            f"{c0:.4f} -> {c1:.4f} |"
        )
    r0 = unadjusted(reps)
    r1 = unadjusted(more_reps)[: len(est)]
    print(
        f"| unadjusted pairwise | {r0[others].mean():.2f} -> {r1[others].mean():.2f} | "
        f"{int((r1[others] != r0[others]).sum())} of {int(others.sum())} | |"
    )


def rebuild_time(resamples: int) -> tuple[float, float]:
    start = time.perf_counter()
    est, reps = board(1001, resamples, 99)
    score_s = time.perf_counter() - start
    rows = [(f"row{i}", float(est[i]), reps[i]) for i in range(1001)]
    times = []
    for _ in range(5):
        ranker = Ranker()
        ranker.rank(rows[:1000])
        t = time.perf_counter()
        ranker.rank(rows)
        times.append(time.perf_counter() - t)
    return statistics.median(times), score_s


def core_kappa(record: Any) -> float:
    return float(record.core.value("kappa"))


def release_board() -> None:
    """The default release's reference board ranked four ways (module docstring)."""
    from medqade.dataset.sources import open_release
    from medqade.scoring import reference_records
    from medqade.scoring.record import replicates

    release = open_release(None)
    refs = [
        r
        for r in reference_records(release, resamples=1000)
        if r.kind == "judge" and r.meta is not None and r.meta.source in ("paper", "baseline")
    ]
    rows = [(r.name, str(r.meta.source if r.meta else ""), core_kappa(r)) for r in refs]
    reps = {r.name: replicates.of_block(r.replicates, "core", "kappa") for r in refs}
    rows.sort(key=lambda x: -x[2])
    judges = [n for n, s, _ in rows if s == "paper"]
    everyone = [n for n, _, _ in rows]
    kappa = {n: k for n, _, k in rows}

    def ranked(names: list[str], rule: Callable[..., tuple]) -> tuple[dict[str, str], float]:
        est = np.array([kappa[n] for n in names])
        best, worst, crit = rule(est, np.stack([reps[n] for n in names]))
        pairs = zip(names, best, worst, strict=True)
        return {n: (str(b) if b == w else f"{b}-{w}") for n, b, w in pairs}, crit

    ways = [
        ("former, baselines ranked", ranked(everyone, former)),
        ("former, without baselines", ranked(judges, former)),
        ("studentized, without baselines (now)", ranked(judges, rank_intervals)),
        ("studentized, baselines ranked", ranked(everyone, rank_intervals)),
    ]
    print("\nThe default release's reference board (core, kappa, R = 1,000)\n")
    print("| judge | kappa | " + " | ".join(w for w, _ in ways) + " |")
    print("|---|---:|" + "---|" * len(ways))
    for n, _, k in rows:
        print(f"| {n} | {k:.3f} | " + " | ".join(r.get(n, "") for _, (r, _) in ways) + " |")
    crits = " | ".join(f"{c:.3f}" for _, (_, c) in ways)
    print(f"| critical value | | {crits} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, nargs=3, default=(20, 5, 1), metavar="N")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--old-at-1000", action="store_true", help="run the old rule at K=1000")
    parser.add_argument("--release", action="store_true", help="rank the default release too")
    args = parser.parse_args()
    first_100 = identical(args)
    noisy_row(args)
    if first_100 is not None:
        copies(*first_100)
    rank_s, score_s = rebuild_time(args.resamples)
    print(
        f"\nrebuild, 1,000 stored rows + 1 new (Ranker, R = {args.resamples:,}): "
        f"{rank_s * 1000:.0f} ms median of 5 ({load()}; goal < 2 s); scoring the 1,001 "
        f"simulated judges took {score_s:.1f} s (not part of a rebuild)"
    )
    if args.release:
        release_board()


if __name__ == "__main__":
    main()
