"""Start-up, handler and submission times of the leaderboard Space on the synthetic release.

Usage::

    .venv/bin/python bench/space.py [--data D] [--resamples 1000] [--repeat 20]

Builds the app in-process (``build_app``) on the full synthetic release (3,800 items, the
embedded default unless ``--data`` is given) with a fresh results folder, launches it on a free
port, and prints:

- cold start: loading the release, building the app, first HTTP answer; then when the
  reference rows (computed in the background unless cached) and the paper's analyses are ready;
  and a warm start with the reference rows cached on disk;
- server time of the handlers behind a tab switch or a filter (``Blocks.process_api``: the
  Python function plus Gradio's pre- and postprocessing, median and max over ``--repeat``
  calls), and the client round trip of ``/browse`` and ``/item`` through ``gradio_client``;
- upload to result: a full judge submission (19,000 labels) and a full model-answer submission
  through ``gradio_client`` ``/submit``.

Targets from the issue: cold start to serving < 10 s, tab switch / filter < 300 ms server time,
upload to result < 2 s. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), max(times)


def handler(demo: Any, name: str) -> Callable[..., Any]:
    """Call the event handler ``name`` as the server does: preprocess, run, postprocess.

    One session state for all calls, as the server keeps one per browser session (building
    it copies the config of every block: about 70 ms here, which no click pays)."""
    from gradio.state_holder import SessionState

    block_fn = next(f for f in demo.fns.values() if getattr(f.fn, "__name__", "") == name)
    loop = asyncio.new_event_loop()
    session = SessionState(demo)

    def call(*inputs: Any) -> Any:
        coro = demo.process_api(block_fn, list(inputs), state=session)
        return loop.run_until_complete(coro)

    return call


def start(release: Any, results: Path, resamples: int) -> tuple[Any, str, float]:
    from medqade.app.config import SpaceConfig
    from medqade.app.ui import build_app, launch_kwargs

    t0 = time.perf_counter()
    port = free_port()
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=resamples, port=port)
    demo = build_app(release, results, config)
    demo.queue(default_concurrency_limit=4)
    demo.launch(prevent_thread_lock=True, quiet=True, **launch_kwargs(config))
    url = f"http://127.0.0.1:{port}/"
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
    return demo, url, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="build folder (default: synthetic)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    from gradio_client import Client, handle_file

    from medqade.dataset.sources import open_release, resolve_data

    folder = resolve_data(args.data)  # builds the synthetic release once (not timed)
    rows: list[tuple[str, str]] = []
    t0 = time.perf_counter()
    release = open_release(folder)
    t_load = time.perf_counter() - t0
    results = Path(tempfile.mkdtemp(prefix="medqade-bench-"))
    demo, url, t_serve = start(release, results, args.resamples)
    state = demo.medqade_state
    while not state.references_ready and time.perf_counter() - t0 < 120:
        time.sleep(0.05)
    t_refs = time.perf_counter() - t0
    try:
        state.report.result(timeout=120)
    except Exception as exc:  # report the failure as a figure, keep benchmarking
        rows.append(("analyses", f"failed: {exc}"))
    t_report = time.perf_counter() - t0
    state.ready.wait(120)
    rows += [
        ("release", f"{release.n_items} items, synthetic={release.synthetic}"),
        ("load release", f"{t_load:.2f} s"),
        ("cold start: serving (first HTTP 200)", f"{t_load + t_serve:.2f} s"),
        ("cold start: reference rows ready", f"{t_refs:.2f} s"),
        ("cold start: analyses ready", f"{t_report:.2f} s"),
    ]
    demo2, _, t_warm = start(release, results, args.resamples)
    demo2.medqade_state.ready.wait(60)
    rows.append(("warm start (reference rows cached): serving", f"{t_load + t_warm:.2f} s"))
    demo2.close()

    lb = handler(demo, "leaderboard_ui")
    browse = handler(demo, "browse_items")
    item = handler(demo, "item_ui")
    analysis = handler(demo, "analysis_ui")
    groups = ["kappa", "PA", "PABAK", "abstention", "accuracy", "by tier"]
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("leaderboard core", lambda: lb("core", "", groups, {}, "kappa", None)),
        ("leaderboard full", lambda: lb("full", "", groups, {}, "kappa", None)),
        ("leaderboard search", lambda: lb("core", "gemma", groups, {}, "kappa", None)),
        ("browse all", lambda: browse("all", "all", "all", "all", [], None, "")),
        (
            "browse tier+flags",
            lambda: browse("extension", "T3", "no match", "all", ["physicians split"], None, ""),
        ),
        (
            "browse judge disagrees",
            lambda: browse(
                "all",
                "all",
                "all",
                "all",
                ["chosen judge disagrees with consensus"],
                "GPT-5.4 Mini",
                "",
            ),
        ),
        ("browse text search", lambda: browse("all", "all", "all", "all", [], None, "niere")),
        ("item view", lambda: item(str(release.item_ids[1234]), False, [], None)),
        ("item view blind", lambda: item(str(release.item_ids[1234]), True, [], None)),
        ("analysis tab", lambda: analysis(None, "")),
    ]
    for name, fn in cases:
        first, _ = timed(fn, 1)  # the first visitor fills the caches
        med, worst = timed(fn, args.repeat)
        rows.append(
            (
                f"server: {name}",
                f"median {1000 * med:.1f} ms, max {1000 * worst:.1f} ms "
                f"(first call {1000 * first:.0f} ms)",
            )
        )

    client = Client(url, verbose=False, download_files=False)
    for name, call in (
        (
            "/browse",
            lambda: client.predict("all", "T4", "all", "all", [], None, "", api_name="/browse"),
        ),
        ("/item", lambda: client.predict(str(release.item_ids[7]), False, api_name="/item")),
    ):
        med, worst = timed(call, max(3, args.repeat // 4))
        rows.append(
            (f"round trip: {name}", f"median {1000 * med:.1f} ms, max {1000 * worst:.1f} ms")
        )

    tmp = Path(tempfile.mkdtemp(prefix="medqade-bench-upload-"))
    # a reference row submitted as is is refused as a copy (scoring.duplicates); a seeded 20%
    # of it is changed so that the bench times a submission that is scored
    rng = np.random.default_rng(0)
    j = release.judgments
    judge = j[j["evaluator"] == "gpt-5.4-mini"][["question_id", "model", "label"]].copy()
    flip = rng.random(len(judge)) < 0.2
    judge.loc[flip, "label"] = judge.loc[flip, "label"].map({"Richtig": "Falsch"}).fillna("Richtig")
    judge_path = tmp / "judge.csv"
    judge.to_csv(judge_path, index=False)
    a = release.answers
    mine = a[a["model"] == "gemma3:27b"][["question_id", "answer"]].copy()
    other = a[a["model"] != "gemma3:27b"].drop_duplicates("question_id").set_index("question_id")
    swap = rng.random(len(mine)) < 0.2
    mine.loc[swap, "answer"] = mine.loc[swap, "question_id"].map(other["answer"])
    answers_path = tmp / "answers.csv"
    mine.to_csv(answers_path, index=False)
    form = ["Bench", "bench-model", "", "GPT", "", "", "official", "", "", "", False, None]
    for name, path, kind in (
        (f"full judge ({len(judge):,} labels)", judge_path, "judge"),
        ("full model answers (3,800)", answers_path, "answers"),
    ):
        t = time.perf_counter()
        status, _, _ = client.predict(handle_file(str(path)), kind, *form, api_name="/submit")
        rows.append(
            (
                f"upload to result: {name}",
                f"{time.perf_counter() - t:.2f} s ({status.split(':')[0]})",
            )
        )
    demo.close()

    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
