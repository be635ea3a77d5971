"""Time `medqade synthesize` + `medqade build` on the 3,800-item synthetic benchmark.

Usage: python bench/build.py [--repeat N] [--pool]

Prints wall time per step (median of N runs) and the peak resident memory of the process.
The goal (synthetic-release issue): synthesize + build of the benchmark under 20 s on a 2-core
machine. The default release also carries the 26,598-item pool, whose goal is 60 s: `--pool`
times that release here, and `bench/pool.py` times both side by side.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from medqade.dataset.build import build
from medqade.dataset.sources import SYNTHETIC_SEED
from medqade.synthetic import synthesize


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pool", action="store_true", help="include the pool (goal < 60 s)")
    args = parser.parse_args()
    synth, built = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            synthesize(Path(tmp) / "raw", seed=SYNTHETIC_SEED, pool=args.pool)
            t1 = time.perf_counter()
            build(Path(tmp) / "raw", Path(tmp) / "build")
            t2 = time.perf_counter()
        synth.append(t1 - t0)
        built.append(t2 - t1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = [s + b for s, b in zip(synth, built, strict=True)]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print("release: " + ("benchmark + pool" if args.pool else "benchmark (no pool)"))
    print(f"synthesize  median {statistics.median(synth):6.2f} s  (n={args.repeat})")
    print(f"build       median {statistics.median(built):6.2f} s")
    goal = 60 if args.pool else 20
    print(f"total       median {statistics.median(total):6.2f} s  (goal < {goal} s)")
    print(f"peak RSS    {peak:6.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
