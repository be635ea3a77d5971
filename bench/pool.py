"""Time the pool: synthesize + build with and without it, and `medqade pool-estimate`.

Usage: python bench/pool.py [--repeat N]

Prints the median wall time of N runs per step. Goals (pool issue): pool-estimate on
26,598 x 5 labels under 2 s including its CI; synthesize + build with the pool under 60 s
(the benchmark alone: under 20 s).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from medqade.commands.pool_estimate import estimate
from medqade.dataset.build import build
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic import synthesize


def _median(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for pool in (False, True):
            synth, built = [], []
            for i in range(args.repeat):
                raw, out = root / f"raw-{pool}-{i}", root / f"build-{pool}-{i}"
                t0 = time.perf_counter()
                synthesize(raw, seed=SYNTHETIC_SEED, pool=pool)
                t1 = time.perf_counter()
                build(raw, out)
                t2 = time.perf_counter()
                synth.append(t1 - t0)
                built.append(t2 - t1)
            total = [a + b for a, b in zip(synth, built, strict=True)]
            label = "with the pool   " if pool else "benchmark alone "
            print(
                f"{label} synthesize {_median(synth)}, build {_median(built)}, "
                f"total {_median(total)}"
            )
        data = str(root / f"build-True-{args.repeat - 1}")
        for judge in ("gemini-3-flash-preview", "qwen3:4b"):
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                labels, _est = estimate(data, judge)
                times.append(time.perf_counter() - t0)
            n = labels.judge_pool.size
            print(f"pool-estimate {judge}: {n} labels, load + estimate + CIs {_median(times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
