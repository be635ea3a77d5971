"""Twenty submissions at once through gradio_client: all land, none overwritten."""

from __future__ import annotations

import itertools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from medqade.scoring.policy.store import RateLimit, ResultsStore

from .helpers import judge_variant, submit_args

N = 20


def test_twenty_concurrent_submissions_all_land(launch, sample_release, tmp_path: Path) -> None:
    app = launch()
    paths = []
    for k in range(N):
        path = tmp_path / f"judge{k}.csv"
        judge_variant(sample_release, k).to_csv(path, index=False)
        paths.append(path)
    clients = [app.client() for _ in range(N)]

    def send(k: int) -> tuple[str, dict]:
        status, result, _ = clients[k].predict(
            *submit_args(paths[k], name=f"Judge {k:02d}"), api_name="/submit"
        )
        return status, result

    with ThreadPoolExecutor(N) as pool:
        outcomes = list(pool.map(send, range(N)))

    assert all(status.startswith("Accepted") for status, _ in outcomes), outcomes
    ids = {result["record"]["id"] for _, result in outcomes}
    assert len(ids) == N
    files = sorted(p.stem for p in (app.results / "records").glob("*.json"))
    assert sorted(ids) == files
    assert len(list((app.results / "uploads").iterdir())) == N
    assert not [p for p in app.results.rglob("*.tmp")]
    # the in-memory store and a fresh read of the folder agree, and so does the leaderboard
    fresh = ResultsStore(app.results, RateLimit(0, 1.0))
    assert {r.id for r in fresh.records()} == ids
    judges, _ = app.client().predict("core", "Judge", api_name="/leaderboard")
    names = sorted(row[judges["headers"].index("name")] for row in judges["data"])
    assert names == [f"Judge {k:02d}" for k in range(N)]


def test_two_identical_uploads_at_once_one_is_duplicate(
    launch, judge_csv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both requests upload the same file, which Gradio keeps at one path; the first deletes
    it once read, and the second (held until then) is told it duplicates the stored record,
    not that the upload is gone."""
    app = launch()
    real = app.state.submit
    both_uploaded = threading.Barrier(2, timeout=60)
    order = itertools.count()

    def gated(path: str, *args: Any, **kwargs: Any) -> Any:
        both_uploaded.wait()
        if next(order) == 1:  # the second waits for the first request to delete the upload,
            # however long a loaded machine takes (a 60 s deadline was passed at load 6)
            deadline = time.monotonic() + 600
            while os.path.exists(path) and time.monotonic() < deadline:
                time.sleep(0.05)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(app.state, "submit", gated)
    clients = [app.client() for _ in range(2)]

    def send(k: int) -> str:
        return str(clients[k].predict(*submit_args(judge_csv), api_name="/submit")[0])

    with ThreadPoolExecutor(2) as pool:
        statuses = sorted(pool.map(send, range(2)))
    assert statuses[0].startswith("Accepted"), statuses
    (record,) = app.state.store.records()
    assert statuses[1] == (
        f"Not accepted: judge.csv: the same content was submitted before (record "
        f"{str(record.id)[:16]}); duplicates are not scored again"
    )
