"""How robust the synthetic release's calibration is: the table on many seeds.

For each seed, write the synthetic raw release, build it and compute the calibration table
(:mod:`medqade.synthetic.calibration`). Print how many seeds pass every row, then per row the
paper's figure, the mean and seed-to-seed standard deviation of this model's value, the
accepted range and the share of seeds that pass it, and the time of synthesize + build.

    python bench/calibration_seeds.py            # seeds 1..20
    python bench/calibration_seeds.py --seeds 5 6 7

The time is synthesize + build of the 3,800-item benchmark (``--pool`` adds the pool).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from medqade.build import build
from medqade.release import SYNTHETIC_SEED, load_release
from medqade.synthetic import synthesize
from medqade.synthetic.calibration import Target, calibration_table


def table_for(seed: int, pool: bool = False) -> tuple[list[Target], float]:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        synthesize(Path(tmp) / "raw", seed=seed, pool=pool)
        build(Path(tmp) / "raw", Path(tmp) / "build")
        took = time.perf_counter() - start
        return calibration_table(load_release(Path(tmp) / "build")), took


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 21)))
    p.add_argument(
        "--pool", action="store_true", help="also write the 26,598-item pool (slower; not used)"
    )
    args = p.parse_args()
    tables, times = [], []
    for seed in args.seeds:
        rows, took = table_for(seed, args.pool)
        tables.append(rows)
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
    print(f"synthesize + build: median {np.median(times):.1f} s, max {max(times):.1f} s\n")
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


if __name__ == "__main__":
    main()
