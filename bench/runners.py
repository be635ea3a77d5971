"""Overhead per request of ``medqade judge`` (on Inspect) against an instant stub server.

Usage::

    .venv/bin/python bench/runners.py [--items 300] [--concurrency 1 8 32] [--repeat 1]

The stub (``tests/servers/stub_server.py``, imported from the repository's tests: the test
servers are not part of the package) runs in its own process, so this process's CPU time
(``time.process_time``) is the runner's own work per request: the command's path from the
judge task (:func:`medqade.runners.inspect_tasks.judge_run_task`: the item in its seeded
order, the structured-output probe, our parser as scorer) through Inspect's ``openai-api``
provider and its log (an ``.eval`` in a temporary folder) to the rows the command writes
(:func:`medqade.runners.inspect_run.run_eval`). ``wall`` also holds the stub's time and the
loopback round trip. Each level runs ``--repeat`` times, median shown. Prints a table;
asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from medqade.runners.inspect_run import run_eval
from medqade.runners.inspect_tasks import judge_run_task
from medqade.runners.judge import JudgeItem
from medqade.runners.prompts import JUDGE_SYSTEM_PROMPT
from medqade.runners.run_settings import RunSettings
from medqade.vocab import DEFAULT_ROSTER

STUB = Path(__file__).resolve().parents[1] / "tests" / "servers" / "stub_server.py"


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
    """The stub server in its own process; its base URL."""
    proc = subprocess.Popen([sys.executable, str(STUB)], stdout=subprocess.PIPE, text=True)
    if proc.stdout is None:  # pragma: no cover - stdout is a pipe
        raise RuntimeError("no stdout from the stub server")
    line = proc.stdout.readline().split()
    if len(line) != 2 or line[0] != "port":
        proc.kill()
        raise RuntimeError(f"stub server did not report its port: {line}")
    return proc, f"http://127.0.0.1:{line[1]}/v1"


def run_level(items: list[JudgeItem], base_url: str, level: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of one run at concurrency ``level``, and its failed items."""
    settings = RunSettings(
        model="bench",
        base_url=base_url,
        concurrency=level,
        max_retries=0,
        max_tokens=256,
        progress=False,
    )
    students = DEFAULT_ROSTER.student_ids
    task = judge_run_task(
        items, students, JUDGE_SYSTEM_PROMPT, 5, "json_schema", settings.generate_config()
    )
    cpu0, wall0 = time.process_time(), time.perf_counter()
    asked = run_eval(task, settings)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return wall, cpu, sum(1 for r in asked.rows.values() if r.get("error"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300, help="requests per level")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--repeat", type=int, default=1, help="runs per level (median shown)")
    args = parser.parse_args()

    items = synthetic_items(args.items)
    proc, base_url = start_stub()
    rows = []
    try:
        run_level(items[:20], base_url, 8)  # warm-up: imports, first connection
        for level in args.concurrency:
            walls, cpus, failed = [], [], 0
            for _ in range(args.repeat):
                wall, cpu, bad = run_level(items, base_url, level)
                walls.append(wall)
                cpus.append(cpu)
                failed += bad
            rows.append((level, len(items), statistics.median(walls), statistics.median(cpus)))
            if failed:
                print(f"warning: {failed} requests failed at concurrency {level}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print(
        f"medqade judge (Inspect) vs. instant stub server, {args.items} requests per level, "
        f"median of {args.repeat} runs"
    )
    header = ("concurrency", "requests/s", "wall ms/req", "runner CPU ms/req", "CPU-bound req/s")
    print("  ".join(f"{h:>17}" for h in header))
    for level, n, wall, cpu in rows:
        cells = (
            level,
            f"{n / wall:.0f}",
            f"{1e3 * wall / n:.1f}",
            f"{1e3 * cpu / n:.1f}",
            f"{n / cpu:.0f}",
        )
        print("  ".join(f"{c:>17}" for c in cells))


if __name__ == "__main__":
    main()
