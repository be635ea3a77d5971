"""How robust the synthetic release's calibration is: the table on many seeds.

For each seed, write the synthetic raw release, build it and compute the calibration table
(:mod:`medqade.analyses.calibration`). Print how many seeds pass every row, then per row the
paper's figure, the mean and seed-to-seed standard deviation of this model's value, the
accepted range and the share of seeds that pass it, and the time of synthesize + build.
Last, the margins of RQ3's chained findings (every evaluator below the leave-one-out
physicians; Gemini 3 Flash strongest; GPT-5.4 Mini's interval overlapping the physicians'):
each margin's mean and seed-to-seed SD, the room the three findings share.

    python bench/calibration_seeds.py            # seeds 1..20
    python bench/calibration_seeds.py --seeds 5 6 7 --jobs 1

The time is synthesize + build of the 3,800-item benchmark (``--pool`` adds the pool).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from medqade.analyses.calibration import Target, calibration_table
from medqade.analyses.report import Report, reproduce
from medqade.dataset.build import build
from medqade.dataset.release import load_release
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic import synthesize

GEMINI_3, MINI = "gemini-3-flash-preview", "gpt-5.4-mini"
METRICS = ("kappa", "pa", "pabak")


def margins(report: Report) -> dict[str, float]:
    """How far each chained RQ3 finding is from failing (> 0: it holds)."""
    r = report.rq3
    loo, ev = r.physician_loo, r.evaluators
    out = {
        "LOO kappa - best evaluator kappa": loo.kappa.value
        - max(a.kappa.value for a in ev.values())
    }
    for m in METRICS:
        rest = max(a.metric(m).value for e, a in ev.items() if e != GEMINI_3)
        out[f"Gemini 3 Flash {m} - runner-up"] = ev[GEMINI_3].metric(m).value - rest
    for m in METRICS:
        mini, phys = ev[MINI].metric(m).ci, loo.metric(m).ci
        out[f"GPT-5.4 Mini {m} CI overlap"] = min(mini[1] - phys[0], phys[1] - mini[0])
    return out


def table_for(seed: int, pool: bool = False) -> tuple[list[Target], dict[str, float], float]:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        synthesize(Path(tmp) / "raw", seed=seed, pool=pool)
        build(Path(tmp) / "raw", Path(tmp) / "build")
        took = time.perf_counter() - start
        rel = load_release(Path(tmp) / "build")
        report = reproduce(rel)
        return calibration_table(rel, report), margins(report), took


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 21)))
    p.add_argument(
        "--pool", action="store_true", help="also write the 26,598-item pool (slower; not used)"
    )
    p.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="seeds run in parallel (timings: 1)"
    )
    args = p.parse_args()
    tables, found, times = [], [], []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = pool.map(table_for, args.seeds, [args.pool] * len(args.seeds))
        for seed, (rows, margin, took) in zip(args.seeds, runs, strict=True):
            tables.append(rows)
            found.append(margin)
            times.append(took)
            failed = [r.quantity for r in rows if not r.ok]
            print(
                f"seed {seed:3d}: {len(rows) - len(failed)}/{len(rows)} rows pass"
                + (f"; fails: {'; '.join(failed)}" if failed else ""),
                flush=True,
            )
    passing = sum(all(r.ok for r in rows) for rows in tables)
    print(
        f"\n{passing} of {len(tables)} seeds pass every row "
        f"(default seed {SYNTHETIC_SEED}: "
        + ("in the run)" if SYNTHETIC_SEED in args.seeds else "not in the run)")
    )
    print(
        f"synthesize + build: median {np.median(times):.1f} s, max {max(times):.1f} s"
        f" ({args.jobs} in parallel)\n"
    )
    width = max(len(r.quantity) for r in tables[0])
    print(f"{'row':{width}}  {'paper':>9}  {'mean':>9}  {'sd':>8}  {'accepted':>21}  pass")
    for i, first in enumerate(tables[0]):
        values = np.array([rows[i].value for rows in tables])
        share = np.mean([rows[i].ok for rows in tables])
        print(
            f"{first.quantity:{width}}  {first.paper:9.4g}  {values.mean():9.4g}  "
            f"{values.std(ddof=1) if len(values) > 1 else 0.0:8.3g}  "
            f"{f'[{first.low:.4g}, {first.high:.4g}]':>21}  {share:4.2f}"
        )
    print(f"\n{'RQ3 margin (> 0: holds)':{width}}  {'mean':>9}  {'sd':>8}  mean/sd  holds")
    for name in found[0]:
        v = np.array([m[name] for m in found])
        sd = v.std(ddof=1) if len(v) > 1 else 0.0
        ratio = f"{v.mean() / sd:7.2f}" if sd > 0 else f"{'-':>7}"
        print(f"{name:{width}}  {v.mean():9.3f}  {sd:8.3f}  {ratio}  {np.mean(v > 0):5.2f}")


if __name__ == "__main__":
    main()
