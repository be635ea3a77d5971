"""Helpers shared by the Space tests: submission files, form arguments, a free port."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from gradio_client import handle_file

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Running:
    """A launched Space: the Blocks, its URL, its state and its results folder."""

    demo: Any
    url: str
    state: Any
    results: Path

    def client(self) -> Any:
        from gradio_client import Client

        return Client(self.url, verbose=False, download_files=False)
