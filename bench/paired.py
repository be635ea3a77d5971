"""Paired ranks at scale: leaderboard rebuild, Space cold start and ``medqade compare``.

Usage::

    .venv/bin/python bench/paired.py [--submissions 1000] [--resamples 1000] [--verified]
        [--leaderboard-only]

On the default synthetic release (built once into the cache, not timed), one real judge
submission (the labels of a paper evaluator with a seeded 5% of its substantive labels flipped)
is scored with :func:`medqade.scoring.score`; ``--submissions`` N stored submissions are copies
of that record, each with its own id (sha256 of its index), name, and seeded perturbations of
its point values, intervals and bootstrap replicates (``numpy.random.default_rng(i)``), so that
their ranks differ. Reference records come from :mod:`medqade.scoring.board.sources` (computed once
into
the temporary results folder, not timed). Measured:

1. leaderboard rebuild (:func:`medqade.scoring.board.tables`, core view, kappa): the first call
   over the reference rows + N records with a fresh :class:`~medqade.measures.Ranker` (cold),
   then one new record added and the second call with the same ranker (goal < 2 s); once with
   the N stored rows unverified (the usual case: only verified rows are ranked) and once with
   all of them verified (every row ranked, the worst case). The ranks come from simultaneous
   intervals over all ranked pairs (:mod:`medqade.measures.ranking`), so every rebuild ranks
   the whole board again (O(K R)); ``distinct`` counts distinct rank intervals.
2. Space cold start: the N records written into a temporary results folder in the Space's
   layout (``records/<id>.json`` with a ``space`` object; every record names the same stored
   upload, so the Space parses one judge file per record, as it would), then ``python -m
   medqade space`` started as a subprocess: seconds from ``Popen`` to the first HTTP 200 on
   ``/`` (goal < 30 s), and to the first ``/leaderboard`` API answer (``gradio_client``) that
   lists the reference rows and all N submissions. ``--verified`` stores them verified, so the
   Space ranks all of them on its first leaderboard call.
3. ``medqade compare`` (goal < 1 s): in-process :func:`medqade.scoring.board.comparison.resolve` +
   :func:`~medqade.scoring.board.comparison.compare` for two paper evaluators and for the physicians
   against an evaluator (median of 5 after one warm-up), and the CLI ``python -m medqade
   compare gemini-2.5-flash gemma3:4b`` on the results folder with the N submissions (median of
   3 after one warm-up run; this includes interpreter start, imports, loading the release and
   reading the N records), and the same with no stored submission (reference rows only).

Prints the figures as a Markdown table (what | figure | goal); asserts nothing. Every temporary
folder is removed at the end. On a shared machine, load inflates the figures.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from medqade import vocab
from medqade.app.accounts import SCHEME as ACCOUNT_SCHEME
from medqade.dataset.release import Release
from medqade.dataset.sources import open_release, resolve_data
from medqade.measures import Ranker
from medqade.measures.paired import DEFAULT_MARGIN
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.scoring import leaderboard, parse_submission, score
from medqade.scoring.board.comparison import compare, resolve
from medqade.scoring.board.sources import cached_reference_records
from medqade.scoring.record import replicates
from medqade.scoring.record.score_record import ScoreRecord

EVALUATOR = "gpt-5.4-mini"
FLIP_SHARE = 0.05
JUDGE_METRICS = ("kappa", "pa", "pabak")
ROOT = Path(__file__).resolve().parents[1]
Row = tuple[str, str, str]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def judge_file(release: Release) -> bytes:
    """The evaluator's labels as CSV, a seeded share of Richtig/Falsch swapped."""
    j = release.judgments
    judge = j[j["evaluator"] == EVALUATOR][["question_id", "model", "label"]].copy()
    rng = np.random.default_rng(0)
    flip = (rng.random(len(judge)) < FLIP_SHARE) & judge["label"].isin(
        [vocab.RICHTIG, vocab.FALSCH]
    ).to_numpy()
    swapped = judge["label"].map({vocab.RICHTIG: vocab.FALSCH, vocab.FALSCH: vocab.RICHTIG})
    judge.loc[flip, "label"] = swapped[flip]
    return judge.to_csv(index=False).encode()


def _shift_block(block: dict[str, Any], shifts: dict[str, float]) -> None:
    for m, s in shifts.items():
        if isinstance(block.get(m), int | float):
            block[m] = float(block[m]) + s
        ci = block.get(f"{m}_ci")
        if isinstance(ci, list) and len(ci) == 2 and all(isinstance(x, int | float) for x in ci):
            block[f"{m}_ci"] = [float(ci[0]) + s, float(ci[1]) + s]


def variant(base: dict[str, Any], i: int, verified: bool) -> dict[str, Any]:
    """Copy ``i`` of ``base``: own id and name, seeded shifts of values, CIs and replicates."""
    rec = copy.deepcopy(base)
    rng = np.random.default_rng(i)
    rec["id"] = hashlib.sha256(f"bench-paired-{i}".encode()).hexdigest()
    rec["meta"] = {**rec.get("meta", {}), "name": f"bench judge {i:05d}", "verified": verified}
    rec["flags"] = [f for f in rec.get("flags", []) if f != "duplicate_of_reference"]
    shifts = {m: float(rng.normal(0.0, 0.03)) for m in JUDGE_METRICS}
    for view in ("core", "full"):
        if isinstance(rec.get(view), dict):
            _shift_block(rec[view], shifts)
        reps = (rec.get("replicates") or {}).get(view) or {}
        for m, block in list(reps.items()):
            x = replicates.decode(block)
            if x is not None:
                noise = rng.normal(0.0, 0.002, x.shape)
                reps[m] = replicates.encode(x + shifts.get(m, 0.0) + noise)
    if isinstance(rec.get("physician_difference"), dict):
        _shift_block(rec["physician_difference"], shifts)
    return rec


def timed(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm-up
    return statistics.median(timed(fn) for _ in range(repeat))


def bench_leaderboard(
    refs: list[ScoreRecord], base: dict[str, Any], n: int, verified: bool
) -> list[Row]:
    stored = [variant(base, i, verified) for i in range(n)]
    new = variant(base, n, verified)
    ranker = Ranker()
    what = "verified (all ranked)" if verified else "unverified (not ranked)"
    cold = timed(
        lambda: leaderboard([*refs, *stored], "core", "kappa", ranker=ranker).judges_frame()
    )
    judges: Any = None

    def again() -> None:
        nonlocal judges
        judges = leaderboard([*refs, *stored, new], "core", "kappa", ranker=ranker).judges_frame()

    warm = timed(again)
    ranked = judges[judges["rank"].notna()]
    distinct = len(set(zip(ranked["rank"], ranked["rank_worst"], strict=True)))
    return [
        (f"leaderboard, {n:,} stored {what}: cold (fresh Ranker)", f"{cold:.2f} s", ""),
        (
            f"leaderboard, {n:,} stored {what}: rebuild after 1 new",
            f"{warm:.2f} s ({len(ranked):,} rows ranked, {distinct:,} distinct rank intervals)",
            "< 2 s",
        ),
    ]


def write_store(results: Path, base: dict[str, Any], upload: bytes, n: int, verified: bool) -> None:
    """The N variants in the Space's layout, all naming the same stored upload."""
    records, uploads = results / "records", results / "uploads"
    records.mkdir(parents=True, exist_ok=True)
    uploads.mkdir(parents=True, exist_ok=True)
    name = f"{hashlib.sha256(upload).hexdigest()}.csv"
    (uploads / name).write_bytes(upload)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(n):
        rec = variant(base, i, verified)
        rec["space"] = {
            "account": hashlib.sha256(f"bench-account-{i % 97}".encode()).hexdigest(),
            "account_scheme": ACCOUNT_SCHEME,
            "submitted_at": (start + timedelta(minutes=i)).isoformat(timespec="seconds"),
            "key": hashlib.sha256(f"bench-key-{i}".encode()).hexdigest(),
            "uploads": [name],
        }
        body = json.dumps(rec, ensure_ascii=False, indent=1, allow_nan=True)
        (records / f"{rec['id']}.json").write_text(body + "\n", encoding="utf-8")


def env_for(resamples: int) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    env["GRADIO_ANALYTICS_ENABLED"] = "False"
    env["MEDQADE_RESAMPLES"] = str(resamples)
    env["MEDQADE_ACCOUNT_KEY"] = "bench-paired-not-a-secret"
    env.pop("MEDQADE_RESULTS_REPO", None)
    return env


def bench_space(
    build: Path, results: Path, n: int, n_ref_judges: int, resamples: int, verified: bool
) -> list[Row]:
    from gradio_client import Client

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    cmd = [sys.executable, "-m", "medqade", "space", "--data", str(build)]
    cmd += ["--results", str(results), "--port", str(port), "--rate-limit", "0"]
    log = results.parent / "space.log"
    what = "verified" if verified else "unverified"
    rows: list[Row] = []
    with log.open("wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env_for(resamples), stdout=out, stderr=out)
        try:
            t_http = None
            while time.perf_counter() - t0 < 300 and proc.poll() is None:
                try:
                    with urllib.request.urlopen(url, timeout=5) as response:
                        if response.status == 200:
                            t_http = time.perf_counter() - t0
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
                time.sleep(0.1)
            rows.append(
                (
                    f"Space cold start, {n:,} stored {what}: process start to first HTTP 200",
                    "failed (see the log)" if t_http is None else f"{t_http:.1f} s",
                    "< 30 s",
                )
            )
            if t_http is None:
                sys.stderr.write(log.read_text(errors="replace")[-4000:])
                return rows
            client = Client(url, verbose=False, download_files=False)
            t_api, shown = None, 0
            while time.perf_counter() - t0 < 600:
                judges, _ = client.predict("core", "", api_name="/leaderboard")
                shown = len(judges["data"])
                if shown >= n + n_ref_judges:
                    t_api = time.perf_counter() - t0
                    break
                time.sleep(0.2)
            rows.append(
                (
                    f"Space cold start, {n:,} stored {what}: to /leaderboard with every row",
                    f"{t_api:.1f} s ({shown:,} judge rows)"
                    if t_api is not None
                    else f"not within 600 s ({shown:,} rows)",
                    "",
                )
            )
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return rows


def bench_compare(
    release: Release, records: list[dict[str, Any]], results: Path, n: int, resamples: int
) -> list[Row]:
    rows: list[Row] = []
    for a, b in (("gemini-2.5-flash", "gemma3:4b"), ("physicians", "gemini-2.5-flash")):

        def run(a: str = a, b: str = b) -> None:
            sa, sb = resolve(release, a, records), resolve(release, b, records)
            compare(release, sa, sb, "core", resamples, BOOTSTRAP_SEED)

        rows.append(
            (
                f"compare in-process (resolve + compare): {a} vs {b}",
                f"{1000 * median_time(run, 5):.0f} ms (median of 5)",
                "< 1 s",
            )
        )
    env = env_for(resamples)
    empty = results.parent / "results-empty"
    shutil.copytree(results / "reference", empty / "reference")  # reference rows only
    for folder, stored in ((results, n), (empty, 0)):
        cmd = [sys.executable, "-m", "medqade", "compare", "gemini-2.5-flash", "gemma3:4b"]
        cmd += ["--results", str(folder), "--resamples", str(resamples)]

        def cli(cmd: list[str] = cmd) -> None:
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)

        rows.append(
            (
                f"`medqade compare gemini-2.5-flash gemma3:4b` subprocess, {stored:,} stored",
                f"{median_time(cli, 3):.2f} s (median of 3; interpreter start, imports, "
                "release load, reading the records)",
                "< 1 s",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=1000, help="stored submissions N")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument(
        "--verified",
        action="store_true",
        help="store the Space's submissions as verified (all ranked: the worst case)",
    )
    parser.add_argument(
        "--leaderboard-only", action="store_true", help="time only the leaderboard rebuild (1.)"
    )
    args = parser.parse_args()
    n = args.submissions

    build = resolve_data(None)  # builds the synthetic default once (not timed)
    release = open_release(build)
    tmp = Path(tempfile.mkdtemp(prefix="medqade-bench-paired-"))
    rows: list[Row] = []
    try:
        results = tmp / "results"
        results.mkdir()
        print("scoring one judge submission and the reference rows (not timed) ...", flush=True)
        upload = judge_file(release)
        sub = parse_submission(upload, "judge.csv", release, "judge")
        base = score(release, sub, {"name": "bench judge"}, resamples=args.resamples).to_json()
        refs = cached_reference_records(
            release, results, args.resamples, BOOTSTRAP_SEED, DEFAULT_MARGIN
        )
        n_ref_judges = sum(1 for r in refs if r.kind == "judge")
        rows.append(
            (
                "setup",
                f"{release.n_items:,} items, {args.resamples:,} resamples, {len(refs)} reference "
                f"records ({n_ref_judges} judges), {os.cpu_count()} CPUs",
                "",
            )
        )
        for verified in (False, True):
            print(f"leaderboard, verified={verified} ...", flush=True)
            rows += bench_leaderboard(refs, base, n, verified)
        if args.leaderboard_only:
            return _print(rows)
        print("writing the Space's results folder ...", flush=True)
        write_store(results, base, upload, n, args.verified)
        print("Space cold start ...", flush=True)
        rows += bench_space(build, results, n, n_ref_judges, args.resamples, args.verified)
        print("compare ...", flush=True)
        stored = [variant(base, i, args.verified) for i in range(n)]
        rows += bench_compare(release, [*refs, *stored], results, n, args.resamples)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _print(rows)


def _print(rows: list[Row]) -> None:
    print()
    print("| what | figure | goal |")
    print("|---|---|---|")
    for what, figure, goal in rows:
        print(f"| {what} | {figure} | {goal} |")


if __name__ == "__main__":
    main()
