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


def tab_render(demo: Any, tab_id: str) -> Any:
    """The ``gr.render`` that builds the tab ``tab_id`` on demand
    (:func:`medqade.app.deferred.on_demand`)."""
    import gradio as gr

    (tab,) = [b for b in demo.blocks.values() if isinstance(b, gr.Tab) and b.id == tab_id]
    inside = {child._id for child in tab.children}
    (render,) = [r for r in demo.renderables if r.container_id in inside]
    return render


@dataclass(frozen=True)
class Opened:
    """An on-demand tab built as for one session: its handlers by function name and its
    components by element id."""

    fns: dict[str, Any]
    parts: dict[str, Any]


def open_tab(demo: Any, tab_id: str, request: str = "") -> Opened:
    """Build the tab ``tab_id`` in-process as its first opening does (the door's flag set,
    ``request`` what was asked of it), in a copy of the page's config as a session has."""
    import copy

    from gradio.context import LocalContext

    from medqade.app.deferred import OPEN

    render = tab_render(demo, tab_id)
    config = copy.copy(demo.default_config)
    token = LocalContext.blocks_config.set(config)
    try:
        render.apply(OPEN, request)
    finally:
        LocalContext.blocks_config.reset(token)
    fns = {getattr(f.fn, "__name__", ""): f for f in config.fns.values() if f.rendered_in is render}
    parts = {
        b.elem_id: b
        for b in config.blocks.values()
        if getattr(b, "rendered_in", None) is render and b.elem_id
    }
    return Opened(fns, parts)


def open_over_http(url: str, demo: Any, tab_id: str, session: str, request: str = "") -> Any:
    """Build the tab ``tab_id`` in ``session`` over plain HTTP (as its first opening does);
    the session's handlers are then ``demo.state_holder[session].blocks_config.fns``."""
    from medqade.app.deferred import OPEN

    render = tab_render(demo, tab_id)
    index = next(i for i, f in demo.fns.items() if f.renderable is render)
    body = {"fn_index": index, "data": [OPEN, request], "session_hash": session}
    res = httpx.post(f"{url}gradio_api/run/predict", json=body, timeout=120)
    assert res.status_code == 200, res.text
    return res.json()
