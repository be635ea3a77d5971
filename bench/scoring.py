"""Time to score one full judge submission and one full model-answer submission.

Usage::

    .venv/bin/python bench/scoring.py [--data BUILD] [--repeat 7] [--resamples 1000]

Without ``--data`` a synthetic release is synthesized and built into a temporary folder (from
``data/synthetic/facts.jsonl`` when present). The judge file holds all 19,000 labels of one
reference evaluator (CSV rows ``question_id,model,label``); the answers file the 3,800 answers
of one student (``question_id,answer``). Each figure is bytes in, result record out
(:func:`medqade.scoring.parse_submission` + :func:`medqade.scoring.score`, every CI with
``--resamples`` question resamples).

*cold* is the first submission scored on a freshly loaded release: it also pays for what the
scorer computes once per release (bootstrap weights, the physicians' leave-one-out reference,
the reference ensembles, normalised answer keys). *warm* is every later submission on the same
release, as in a running Space: the median of ``--repeat`` runs. Prints a table; asserts
nothing (the targets are under 1 s median on two cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from medqade.dataset.build import build
from medqade.dataset.release import Release, load_release
from medqade.scoring import parse_submission, score
from medqade.scoring.metrics import context
from medqade.synthetic import synthesize

FACTS = Path(__file__).resolve().parents[1] / "data" / "synthetic" / "facts.jsonl"


def files(release: Release) -> tuple[bytes, bytes]:
    j = release.judgments
    judge = j[j["evaluator"] == "gpt-5.4-mini"][["question_id", "model", "label"]]
    answers = pd.DataFrame({"question_id": release.item_ids, "answer": release.answer_text[:, 1]})
    return judge.to_csv(index=False).encode(), answers.to_csv(index=False).encode()


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench(folder: Path, repeat: int, resamples: int) -> None:
    release = load_release(folder)
    judge, answers = files(release)
    meta_j = {"name": "bench judge", "family": "GPT"}
    meta_a = {"name": "bench model", "family": "GPT"}

    def run_judge() -> None:
        score(release, parse_submission(judge, "judge.csv", release), meta_j, resamples)

    def run_answers() -> None:
        score(release, parse_submission(answers, "answers.csv", release), meta_a, resamples)

    rows = []
    for name, fn, size in (
        ("judge, 19,000 labels", run_judge, f"{len(judge):,} B"),
        ("answers, 3,800 answers", run_answers, f"{len(answers):,} B"),
    ):
        context.clear(release)
        cold = timed(fn)
        warm = [timed(fn) for _ in range(repeat)]
        rows.append((name, size, cold, statistics.median(warm), min(warm), max(warm)))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"release {folder} ({release.n_items} items), {resamples} resamples, {cpus} CPUs")
    print(
        f"{'submission':<24} {'file':>11} {'cold s':>8} {'warm median s':>14} {'min':>7} {'max':>7}"
    )
    for name, size, cold, med, lo, hi in rows:
        print(f"{name:<24} {size:>11} {cold:8.3f} {med:14.3f} {lo:7.3f} {hi:7.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=None, help="a built release folder")
    parser.add_argument("--repeat", type=int, default=7, help="warm runs per submission")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args()
    if args.data is not None:
        bench(args.data, args.repeat, args.resamples)
        return
    with tempfile.TemporaryDirectory() as tmp:
        raw = synthesize(
            Path(tmp) / "raw", seed=20260101, facts_path=FACTS if FACTS.exists() else None
        )
        build(raw, Path(tmp) / "build")
        bench(Path(tmp) / "build", args.repeat, args.resamples)


if __name__ == "__main__":
    main()
