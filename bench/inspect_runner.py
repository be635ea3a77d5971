"""Overhead per request of the judge through Inspect (``medqade/judge``'s solver and scorer)
against an instant OpenAI-compatible stub server, beside ``bench/runners.py`` (our engine).

Usage::

    .venv/bin/python bench/inspect_runner.py [--items 500] [--concurrency 1 8 32]

The stub runs in its own process, so this process's CPU time (``time.process_time``) is
Inspect's own per request: its provider (``openai-api``, the ``openai`` client), the solver
(the item in its seeded order), the scorer (our parser), the sample bookkeeping and the log
(an ``.eval`` in a temporary folder). Metrics are the valid share only (no bootstrap). Each
level runs ``--repeat`` times, median shown; the cache is off, so every item is a request.
Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, get_model

from medqade.runners.inspect_metrics import valid_share
from medqade.runners.inspect_tasks import judge_scorer, judge_solver
from medqade.runners.prompts import JUDGE_SYSTEM_PROMPT, judge_user_message
from medqade.vocab import DEFAULT_ROSTER
from runners import start_stub, synthetic_items  # bench/runners.py, beside this script


def bench_task(n: int) -> Task:
    students = DEFAULT_ROSTER.student_ids
    samples = [
        Sample(
            id=item.question_id,
            input=judge_user_message(item.question, item.reference, item.answers),
            metadata={
                "question_id": item.question_id,
                "question": item.question,
                "reference": item.reference,
                "answers": dict(zip(item.order, item.answers, strict=True)),
            },
        )
        for item in synthetic_items(n)
    ]
    return Task(
        dataset=MemoryDataset(samples),
        solver=judge_solver(JUDGE_SYSTEM_PROMPT, students, 5),
        scorer=judge_scorer(len(students)),
        metrics=[valid_share()],
        config=GenerateConfig(max_tokens=256, temperature=0.0),
        name="judge",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=500, help="requests per level")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--repeat", type=int, default=3, help="runs per level (median shown)")
    args = parser.parse_args()
    proc, base_url = start_stub()
    os.environ["STUB_BASE_URL"], os.environ["STUB_API_KEY"] = base_url, "sk-bench"
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:

            def run(n: int, level: int) -> float:
                model = get_model("openai-api/stub/bench", memoize=False)
                (log,) = inspect_eval(
                    bench_task(n),
                    model=model,
                    max_connections=level,
                    log_dir=tmp,
                    display="none",
                    max_retries=0,
                )
                if log.status != "success":
                    raise RuntimeError(str(log.error)[:500])
                return 0.0

            run(20, 8)  # warm-up: imports, first connection
            for level in args.concurrency:
                walls, cpus = [], []
                for _ in range(args.repeat):
                    cpu0, wall0 = time.process_time(), time.perf_counter()
                    run(args.items, level)
                    cpus.append(time.process_time() - cpu0)
                    walls.append(time.perf_counter() - wall0)
                rows.append((level, args.items, statistics.median(walls), statistics.median(cpus)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(
        f"judge through Inspect vs. instant stub server, {args.items} requests per level, "
        f"median of {args.repeat} runs"
    )
    header = ("concurrency", "requests/s", "wall µs/req", "Inspect CPU µs/req", "CPU-bound req/s")
    print("  ".join(f"{h:>18}" for h in header))
    for level, n, wall, cpu in rows:
        cells = (level, f"{n / wall:.0f}", f"{1e6 * wall / n:.0f}", f"{1e6 * cpu / n:.0f}")
        print("  ".join(f"{c:>18}" for c in (*cells, f"{n / cpu:.0f}")))


if __name__ == "__main__":
    main()
