"""Helpers shared by the Space tests: submission files, form arguments, a free port, and
starting a Space that copes with a loaded machine (a port taken between being found and being
bound is retried; the server is waited for, never timed)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TypeVar

import httpx
import pandas as pd
from gradio_client import handle_file

from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.dataset.release import Release

EVALUATOR = "gpt-5.4-mini"
SCRIPT = "<script>window.__mq_xss = 1</script>"
IMG = '<img src=x onerror="window.__mq_xss = 2">'


def judge_frame(release: Release, evaluator: str = EVALUATOR) -> pd.DataFrame:
    """One paper evaluator's labels as a judge submission (question_id, model, label)."""
    j = release.judgments
    frame = j[j["evaluator"] == evaluator][["question_id", "model", "label"]]
    return frame.sort_values(["question_id", "model"]).reset_index(drop=True)


def judge_variant(release: Release, k: int) -> pd.DataFrame:
    """A judge submission that differs from every other ``k`` (row ``k`` relabelled)."""
    frame = judge_frame(release)
    labels = ("Richtig", "Falsch", "Keine Angabe")
    current = frame.loc[k % len(frame), "label"]
    shift = 1 + k // len(frame)
    frame.loc[k % len(frame), "label"] = labels[(labels.index(current) + shift) % 3]
    return frame


def submit_args(
    path: Path, kind: str = "judge", name: str = "My judge", **extra: object
) -> list[Any]:
    """Positional arguments of ``/submit`` (the file first, then the form fields)."""
    fields: dict[str, object] = {
        "kind": kind,
        "name": name,
        "model_id": "my-judge-1",
        "revision": "2026-01-01",
        "family": "GPT",
        "organisation": "Example Lab",
        "link": "https://example.org/model",
        "prompt": "official",
        "prompt_sha256": "",
        "decoding": "temperature 0",
        "notes": "",
        "validate_only": False,
        "labels_file": None,
        "price_in": "",
        "price_out": "",
    }
    fields.update(extra)
    return [handle_file(str(path)), *fields.values()]


HTTP_TIMEOUT_S: Final = 600.0
"""How long a test's HTTP request may wait for the Space (a loaded machine is slow, not
wrong: no test asserts on speed)."""
READY_S: Final = 300.0
"""How long a starting Space may take to answer its first request."""
PORT_ATTEMPTS: Final = 8

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on_free_port(start: Callable[[int], T], attempts: int = PORT_ATTEMPTS) -> tuple[T, int]:
    """``start(port)`` on a free port, and the port; a port another process took between
    :func:`free_port` and the bind (Gradio's ``OSError``: "Cannot find empty port") is
    retried on another. The last failure is raised in one line, not Gradio's traceback."""
    last: OSError | None = None
    for _ in range(attempts):
        port = free_port()
        try:
            return start(port), port
        except OSError as exc:
            last = exc
    raise RuntimeError(
        f"no free port in {attempts} attempts; last: {type(last).__name__}: {last}"
    ) from None


def url_ok(url: str) -> bool:
    """Gradio's check that a launched server answers (``gradio.networking.url_ok``), patient:
    Gradio's own gives up after one 3-second request, so a loaded machine reads as
    "localhost is not accessible". Retried for up to :data:`READY_S` seconds."""
    deadline = time.monotonic() + READY_S
    while True:
        try:
            response = httpx.head(url, timeout=60, verify=False)
            if response.status_code in (200, 401, 301, 302, 303, 307, 308):
                return True
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


@dataclass
class Running:
    """A launched Space: the Blocks, its URL, its state and its results folder."""

    demo: Any
    url: str
    state: Any
    results: Path

    def client(self) -> Any:
        from gradio_client import Client

        return Client(
            self.url,
            verbose=False,
            download_files=False,
            httpx_kwargs={"timeout": HTTP_TIMEOUT_S},
        )


def make_state(release: Release, results: Path, **overrides: Any) -> SpaceState:
    """A Space state over ``results`` without background work (no rate limit, 10 resamples)."""
    config = replace(SpaceConfig(results_dir=results, rate_limit=0, resamples=10), **overrides)
    return SpaceState(release, results, config, background=False, analyses=False)


def write_variant(release: Release, path: Path, k: int) -> Path:
    """The ``k``-th judge variant (:func:`judge_variant`) written as CSV at ``path``."""
    judge_variant(release, k).to_csv(path, index=False)
    return path
