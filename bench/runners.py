"""Throughput of the judge runner against an instant OpenAI-compatible stub server.

Usage::

    .venv/bin/python bench/runners.py [--items 2000] [--concurrency 1 8 32]

The stub (:mod:`medqade.runners.stub_server`) runs in its own process, so the runner's CPU
time (``time.process_time`` of this process) is the runner's own overhead per request:
building the request, the ``openai`` client and ``httpx``, parsing and validating the
verdict, the cache line and the progress bookkeeping. ``wall`` also holds the stub's time and
the loopback round trip. Each level gets a fresh cache, so every item is a real request;
each level runs ``--repeat`` times and the median is shown. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from medqade.runners.engine import run_jobs
from medqade.runners.judge import JudgeItem, judge_jobs, judge_parser
from medqade.runners.settings import Endpoint, RetryPolicy, RunConfig
from medqade.vocab import DEFAULT_ROSTER


def synthetic_items(n: int) -> list[JudgeItem]:
    """``n`` question sets shaped like the real ones (German text, five answers)."""
    students = DEFAULT_ROSTER.student_ids
    return [
        JudgeItem(
            question_id=f"B-{i:05d}",
            question=f"Das Antidot bei einer Vergiftung Nummer {i} ist ___.",
            reference="Acetylcystein",
            order=students,
            answers=("Acetylcystein", "ACC", "Naloxon", "Flumazenil", None),
        )
        for i in range(n)
    ]


def start_stub() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "medqade.runners.stub_server"],
        stdout=subprocess.PIPE,
        text=True,
    )
    if proc.stdout is None:  # pragma: no cover - stdout is a pipe
        raise RuntimeError("no stdout from the stub server")
    line = proc.stdout.readline().split()
    if len(line) != 2 or line[0] != "port":
        proc.kill()
        raise RuntimeError(f"stub server did not report its port: {line}")
    return proc, f"http://127.0.0.1:{line[1]}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000, help="requests per level")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--repeat", type=int, default=3, help="runs per level (median shown)")
    args = parser.parse_args()

    items = synthetic_items(args.items)
    jobs = judge_jobs(items)
    parse = judge_parser(len(DEFAULT_ROSTER.student_ids))
    proc, base_url = start_stub()
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # warm-up: imports, first connection
            warm = RunConfig(Endpoint("bench", base_url), progress=False)
            run_jobs(jobs[:20], parse, warm)
            for level in args.concurrency:
                walls, cpus, failed = [], [], 0
                for rep in range(args.repeat):
                    config = RunConfig(
                        Endpoint("bench", base_url),
                        retry=RetryPolicy(max_retries=0, max_invalid=0),
                        concurrency=level,
                        cache_dir=Path(tmp) / f"cache-{level}-{rep}",
                        progress=False,
                    )
                    cpu0, wall0 = time.process_time(), time.perf_counter()
                    _, summary = run_jobs(jobs, parse, config)
                    cpus.append(time.process_time() - cpu0)
                    walls.append(time.perf_counter() - wall0)
                    failed += summary.failed
                rows.append((level, len(jobs), statistics.median(walls), statistics.median(cpus)))
                if failed:
                    print(f"warning: {failed} requests failed at concurrency {level}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print(
        f"judge runner vs. instant stub server, {args.items} requests per level, "
        f"median of {args.repeat} runs"
    )
    header = ("concurrency", "requests/s", "wall µs/req", "runner CPU µs/req", "CPU-bound req/s")
    print("  ".join(f"{h:>17}" for h in header))
    for level, n, wall, cpu in rows:
        cells = (
            level,
            f"{n / wall:.0f}",
            f"{1e6 * wall / n:.0f}",
            f"{1e6 * cpu / n:.0f}",
            f"{n / cpu:.0f}",
        )
        print("  ".join(f"{c:>17}" for c in cells))


if __name__ == "__main__":
    main()
