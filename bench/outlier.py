"""The physician outlier rule: how often its verdicts change with the bootstrap seed, and its cost.

Usage::

    python bench/outlier.py [--seeds 20] [--resamples 1000 20000]

On the default synthetic release (built once into the cache, not timed), the outlier rule of
:mod:`medqade.measures.raters` (Bonferroni 99.5% percentile interval of each physician's core
kappa gap) is computed for bootstrap seeds 1..N, once per resample count: 1,000 (the former
rule: 2.5 replicates beyond each bound) and :data:`~medqade.measures.raters.OUTLIER_RESAMPLES`
(the rule now). Printed per physician: how many seeds give each verdict, and the mean
Monte-Carlo standard error of the adjusted bounds (:func:`~medqade.measures.raters.
quantile_mc_se`). Then the in-process time of :func:`medqade.measures.rater_report.panel_report`
with the outlier rule on 1,000 and on the default resamples (median of 3 after one warm-up).
Prints Markdown; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections import Counter

import numpy as np

from medqade.dataset.release import Release
from medqade.dataset.sources import open_release, resolve_data
from medqade.measures.physician_reference import loo_references
from medqade.measures.rater_report import panel_report
from medqade.measures.raters import (
    OUTLIER_RESAMPLES,
    adjusted_level,
    kappa_gap,
    outlier_verdict,
    quantile_mc_se,
)
from medqade.measures.reference_agreement import agreement
from medqade.measures.seeds import STREAM_OUTLIER, question_weights


def verdicts(release: Release, resamples: int, seed: int) -> list[tuple[str | None, float, float]]:
    core = release.is_core
    labels = release.physician_labels[:, core]
    refs = loo_references(labels)
    w = question_weights(int(core.sum()), resamples, seed, STREAM_OUTLIER)
    slots = release.roster.student_ids
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        agr = [agreement(labels[p], refs[p], slots, w) for p in range(len(labels))]
    level = adjusted_level(len(labels))
    tail = (1 - level) / 2
    out = []
    for p in range(len(labels)):
        gap, bounds = kappa_gap(agr, p, level)
        reps = gap.replicates if gap.replicates is not None else np.array([np.nan])
        out.append(
            (outlier_verdict(*bounds), quantile_mc_se(reps, tail), quantile_mc_se(reps, 1 - tail))
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--resamples", type=int, nargs="+", default=[1000, OUTLIER_RESAMPLES])
    args = parser.parse_args()
    release = open_release(resolve_data(None))
    names = release.roster.physicians
    for r in args.resamples:
        runs = [verdicts(release, r, seed) for seed in range(1, args.seeds + 1)]
        print(f"\n{r:,} resamples, seeds 1-{args.seeds}\n")
        print("| physician | verdicts over seeds | mean MC s.e. of the bounds (low, high) |")
        print("|---|---|---|")
        for p, name in enumerate(names):
            counts = Counter(run[p][0] for run in runs)
            text = ", ".join(f"{v} {n}" for v, n in counts.most_common())
            se_low = statistics.fmean(run[p][1] for run in runs)
            se_high = statistics.fmean(run[p][2] for run in runs)
            print(f"| {name} | {text} | {se_low:.4f}, {se_high:.4f} |")
    print("\n| panel_report (resamples 1,000) | median of 3 |")
    print("|---|---:|")
    for tail_r in (1000, OUTLIER_RESAMPLES):
        panel_report(release, 1000, outlier_resamples=tail_r)
        times = []
        for _ in range(3):
            t = time.perf_counter()
            panel_report(release, 1000, outlier_resamples=tail_r)
            times.append(time.perf_counter() - t)
        print(f"| outlier rule on {tail_r:,} resamples | {statistics.median(times):.2f} s |")


if __name__ == "__main__":
    main()
