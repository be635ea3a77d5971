"""Speed and memory of ``medqade reproduce`` against a per-call reference pipeline.

Usage::

    .venv/bin/python bench/reproduce.py [--data D] [--reference-resamples 20]

(a) The project: :func:`medqade.analyses.report.reproduce` with ``--resamples`` question
resamples (1,000) and ``--contrast-resamples`` (5,000) for the RQ2 contrasts, run ``--repeat``
times (median shown); then the figures (PNG + SVG), timed separately.

(b) A straightforward reference built from the oracle libraries, called once per resample and
per pair: for RQ1, scikit-learn ``cohen_kappa_score`` and percent agreement for the 45 physician
pairs x 5 slots and ``krippendorff.alpha`` for the 5 slots; for RQ3, kappa and PA of the nine
evaluators x 5 slots against the consensus and of the ten physicians x 5 slots against the
leave-one-out consensus. It uses the same resample indices as the project (the first
``--reference-resamples`` rows of the same index matrix) and its time is extrapolated linearly
to ``--resamples``; the output says so. The reference covers only the RQ1/RQ3 bootstraps while
(a) is the whole reproduction, so the ratio understates the speed-up.

The maximum absolute difference is taken over every replicate the reference computed (per slot
and per evaluator/physician) and over the point estimates. Peak memory: ``tracemalloc`` peak of
one ``reproduce`` call (numpy buffers included) and the process's maximum resident set size.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
import tracemalloc
import warnings
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from medqade import stats
from medqade.analyses.report import reproduce
from medqade.analyses.rq1 import slot_statistics
from medqade.analyses.rq3 import macro_agreement
from medqade.consensus import majority_of_codes
from medqade.dataset.release import Release, load_release
from medqade.dataset.sources import open_release
from medqade.measures.seeds import BOOTSTRAP_SEED, question_weights
from medqade.measures.slots import substantive


def _kappa_pa(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    from sklearn.metrics import cohen_kappa_score

    ok = (a >= 0) & (b >= 0)
    x, y = a[ok], b[ok]
    if x.size < 2:
        return float("nan"), float(np.mean(x == y)) if x.size else float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = cohen_kappa_score(x, y, labels=[0, 1], replace_undefined_by=np.nan)
    return float(k), float(np.mean(x == y))


def _alpha(x: np.ndarray) -> float:
    import krippendorff

    data = np.where(x >= 0, x, np.nan).astype(float)
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    except ValueError:
        return float("nan")


def reference_replicate(phys: np.ndarray, evals: np.ndarray, ref: np.ndarray) -> dict[str, Any]:
    """RQ1 and RQ3 statistics of one (resampled) core, one library call per pair and slot.

    ``phys`` (10, items, 5) and ``evals`` (9, items, 5) hold substantive codes (-1 missing),
    ``ref`` (items, 5) the consensus.
    """
    n_phys = phys.shape[0]
    kappa, pa, alpha = np.zeros(5), np.zeros(5), np.zeros(5)
    for s in range(5):
        ks, ps = [], []
        for i, j in combinations(range(n_phys), 2):
            k, p = _kappa_pa(phys[i, :, s], phys[j, :, s])
            ks.append(k)
            ps.append(p)
        kappa[s], pa[s] = np.nanmean(ks), np.nanmean(ps)
        alpha[s] = _alpha(phys[:, :, s])
    ev_kappa = np.zeros((evals.shape[0], 5))
    ev_pa = np.zeros((evals.shape[0], 5))
    for e in range(evals.shape[0]):
        for s in range(5):
            ev_kappa[e, s], ev_pa[e, s] = _kappa_pa(evals[e, :, s], ref[:, s])
    loo_kappa = np.zeros((n_phys, 5))
    for p in range(n_phys):
        others = majority_of_codes(np.delete(phys, p, axis=0), axis=0).astype(np.int64)
        for s in range(5):
            loo_kappa[p, s], _ = _kappa_pa(phys[p, :, s], others[:, s])
    return {
        "kappa": kappa,
        "pa": pa,
        "alpha": alpha,
        "ev_kappa": np.nanmean(ev_kappa, axis=1),
        "ev_pa": np.nanmean(ev_pa, axis=1),
        "loo_kappa": float(np.mean(np.nanmean(loo_kappa, axis=1))),
    }


def project_replicates(
    phys: np.ndarray, evals: np.ndarray, ref: np.ndarray, weights: np.ndarray
) -> dict[str, Any]:
    """The same statistics from the project's vectorised code, for the given weights."""
    rq1 = slot_statistics(phys, weights)
    ev_pa, ev_kappa = macro_agreement(evals, ref, weights)
    loo = []
    for p in range(phys.shape[0]):
        others = majority_of_codes(np.delete(phys, p, axis=0), axis=0).astype(np.int64)
        _, k = macro_agreement(phys[p : p + 1], others, weights)
        loo.append(k[:, 0])
    return {
        "kappa": rq1.kappa,
        "pa": rq1.pa,
        "alpha": rq1.alpha,
        "ev_kappa": ev_kappa,
        "ev_pa": ev_pa,
        "loo_kappa": np.mean(np.stack(loo, axis=1), axis=1),
    }


def max_abs_diff(a: Any, b: Any) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(x) & np.isnan(y))
    if (np.isnan(x) != np.isnan(y)).any():
        return float("inf")
    return float(np.max(np.abs(x[both] - y[both]), initial=0.0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="build folder (default: embedded default)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--contrast-resamples", type=int, default=5000)
    parser.add_argument("--reference-resamples", type=int, default=20)
    parser.add_argument("--seed", type=int, default=BOOTSTRAP_SEED)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t0 = time.perf_counter()
    release: Release = (
        load_release(Path(args.data))
        if args.data and Path(args.data).is_dir()
        else open_release(args.data)
    )
    _ = release.is_core, release.lexical, release.tier
    load_s = time.perf_counter() - t0
    print(
        f"release: {release.n_items} items, synthetic={release.synthetic}, loaded in {load_s:.2f} s"
    )
    print(f"cpus available: {len(os.sched_getaffinity(0))}")

    # (a) the project
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        report = reproduce(
            release,
            resamples=args.resamples,
            seed=args.seed,
            contrast_resamples=args.contrast_resamples,
        )
        times.append(time.perf_counter() - t0)
    project_s = statistics.median(times)
    from medqade.analyses.figures import write_figures

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        write_figures(report, Path(tmp))
        figures_s = time.perf_counter() - t0
    tracemalloc.start()
    reproduce(
        release,
        resamples=args.resamples,
        seed=args.seed,
        contrast_resamples=args.contrast_resamples,
    )
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    # (b) the reference, on the first K rows of the project's own core index matrix
    core = release.is_core
    n_core = int(core.sum())
    idx = stats.bootstrap_indices(n_core, args.resamples, np.random.default_rng(args.seed))
    weights = question_weights(n_core, args.resamples, args.seed)
    assert np.array_equal(weights, stats.resample_weights(idx, n_core))
    k = min(args.reference_resamples, args.resamples)
    phys = substantive(release.physician_labels[:, core])
    evals = substantive(release.evaluator_labels[:, core])
    ref = release.consensus[core].astype(np.int64)
    t0 = time.perf_counter()
    ref_reps = [reference_replicate(phys[:, row], evals[:, row], ref[row]) for row in idx[:k]]
    reference_k_s = time.perf_counter() - t0
    reference_s = reference_k_s * args.resamples / k
    ref_point = reference_replicate(phys, evals, ref)

    t0 = time.perf_counter()
    project_replicates(phys, evals, ref, weights)
    like_s = time.perf_counter() - t0
    mine = project_replicates(phys, evals, ref, weights[:k])
    diff = 0.0
    for key in mine:
        diff = max(diff, max_abs_diff(mine[key], np.stack([np.asarray(r[key]) for r in ref_reps])))
    # point estimates of the report against the reference on the unresampled core
    rq1_kappa = [s.kappa.value for s in report.rq1.slots.values()]
    rq1_alpha = [s.alpha.value for s in report.rq1.slots.values()]
    rq3_kappa = [a.kappa.value for a in report.rq3.evaluators.values()]
    diff = max(
        diff,
        max_abs_diff(rq1_kappa, ref_point["kappa"]),
        max_abs_diff(rq1_alpha, ref_point["alpha"]),
        max_abs_diff(rq3_kappa, ref_point["ev_kappa"]),
        max_abs_diff(report.rq3.physician_loo.kappa.value, ref_point["loo_kappa"]),
    )
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(
        f"(a) project reproduce(): {project_s:.2f} s (median of {args.repeat}; "
        f"{args.resamples} resamples, {args.contrast_resamples} for the RQ2 contrasts), "
        f"figures {figures_s:.2f} s"
    )
    print(
        f"(b) reference (sklearn/krippendorff per pair and resample, RQ1 + RQ3 only): "
        f"{reference_k_s:.2f} s for {k} resamples, extrapolated linearly to "
        f"{args.resamples}: {reference_s:.1f} s"
    )
    print(f"speed-up (b)/(a): {reference_s / project_s:.0f}x (whole reproduction vs RQ1+RQ3 only)")
    print(
        f"like for like: the project's vectorised RQ1+RQ3 replicates for {args.resamples} "
        f"resamples take {like_s:.3f} s, {reference_s / like_s:.0f}x faster than (b)"
    )
    print(f"max |project - reference| over {k} replicates and the point estimates: {diff:.3g}")
    print(
        f"peak memory: tracemalloc {traced_peak / 2**20:.0f} MiB during reproduce(), "
        f"max RSS {rss_mb:.0f} MiB (whole process, release loaded)"
    )
    ok = reference_s / project_s >= 100 and project_s < 5 and rss_mb < 1024 and diff < 1e-9
    print("goals (>=100x, <5 s, <1 GB, diff < 1e-9):", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
