"""Coverage study of the pool estimators on the synthetic pool, over many seeds.

Usage: python bench/pool_coverage.py [--seeds N] [--first S] [--figure PATH]

For each seed, the synthetic release and its 26,598-item pool are simulated
(:func:`medqade.synthetic.pool.latent_consensus`); the latent truth of each student is the
pool share of Richtig among answers with a resolved latent consensus. Each estimator's 95% CI
either covers it or not. Prints, per judge and estimator, the share of intervals covering the
truth (over seeds x 5 students), the mean error and the mean CI width; ``--figure`` writes
the coverage as a bar chart (PNG). A correct 95% interval covers about 95% of the time; the
judge-only interval (biased) should visibly fail.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.pool import pool_estimates
from medqade.synthetic.pool import Pool, latent_consensus

JUDGES = ("gemini-3-flash-preview", "gpt-5.4-mini", "gemma3:27b", "qwen3:4b")
ESTIMATORS = ("physician_only", "judge_only", "ppi", "ppi_plain")
CODES = {vocab.FALSCH: 0, vocab.RICHTIG: 1, vocab.KEINE_ANGABE: 2, "": -1}


def judge_codes(pool: Pool, judge: str) -> npt.NDArray[np.int8]:
    """(pool items, 5) label codes of ``judge`` from the wide pool judgments."""
    students = list(vocab.DEFAULT_ROSTER.student_ids)
    j = pool.judgments[pool.judgments["evaluator"] == judge]
    row = pool.pool.reset_index().set_index("question_id")["index"]
    rows = j["question_id"].map(row).to_numpy()
    perm = {o: [students.index(m) for m in json.loads(o)] for o in j["order"].unique()}
    slots = np.array([perm[o] for o in j["order"]])
    out = np.full((len(pool.pool), 5), -1, dtype=np.int8)
    for k in range(5):
        out[rows, slots[:, k]] = j[f"resp_{k + 1}"].map(CODES).to_numpy()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--first", type=int, default=1000)
    parser.add_argument("--figure", type=Path, default=None)
    args = parser.parse_args()
    hits = {(j, e): [] for j in JUDGES for e in ESTIMATORS}  # type: dict[tuple[str, str], list[bool]]
    errors = {(j, e): [] for j in JUDGES for e in ESTIMATORS}  # type: dict[tuple[str, str], list[float]]
    widths = {(j, e): [] for j in JUDGES for e in ESTIMATORS}  # type: dict[tuple[str, str], list[float]]
    students = list(vocab.DEFAULT_ROSTER.student_ids)
    start = time.perf_counter()
    for seed in range(args.first, args.first + args.seeds):
        pool = latent_consensus(seed)
        lab = pool.in_benchmark
        truth = [
            float((pool.consensus[:, s] == 1).sum() / (pool.consensus[:, s] >= 0).sum())
            for s in range(5)
        ]
        for judge in JUDGES:
            codes = judge_codes(pool, judge)
            est = pool_estimates(
                students, pool.consensus[lab], codes[lab], pool.exact[lab], codes, pool.exact
            )
            for s, m in enumerate(students):
                for e in ESTIMATORS:
                    x = getattr(est[m], e)
                    hits[(judge, e)].append(x.low <= truth[s] <= x.high)
                    errors[(judge, e)].append(x.estimate - truth[s])
                    widths[(judge, e)].append(x.high - x.low)
        print(f"seed {seed} done ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    n = args.seeds * len(students)
    print(f"Coverage of 95% CIs over {args.seeds} seeds x 5 students = {n} intervals per cell")
    print(f"(Monte Carlo SE of a 95% coverage: {100 * math.sqrt(0.95 * 0.05 / n):.1f} points)\n")
    print("| judge | estimator | coverage % | mean error (points) | mean CI width (points) |")
    print("|---|---|---:|---:|---:|")
    for judge in JUDGES:
        for e in ESTIMATORS:
            print(
                f"| {judge} | {e} | {100 * np.mean(hits[(judge, e)]):.1f} | "
                f"{100 * np.mean(errors[(judge, e)]):+.2f} | "
                f"{100 * np.mean(widths[(judge, e)]):.2f} |"
            )
    if args.figure is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 3.6), dpi=120)
        x = np.arange(len(JUDGES))
        for i, e in enumerate(ESTIMATORS):
            cover = [100 * np.mean(hits[(j, e)]) for j in JUDGES]
            bars = ax.bar(x + (i - 1.5) * 0.2, cover, width=0.2, label=e.replace("_", " "))
            ax.bar_label(bars, fmt="%.1f", fontsize=6, padding=1)
        ax.axhline(95, color="black", lw=1, ls="--")
        ax.set_xticks(x, JUDGES, fontsize=8)
        ax.set_ylabel("share of 95% CIs covering the truth (%)")
        ax.set_ylim(0, 105)
        ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=4, frameon=False)
        fig.tight_layout()
        fig.savefig(args.figure)
        print(f"\nfigure: {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
