"""Shared constants and checks for the runner tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.cli import main
from medqade.vocab import DIFFICULTIES, LABELS, N_SLOTS
from servers.stub_server import StubServer

DATA = Path(__file__).resolve().parents[2] / "data" / "sample"
SECRET = "sk-test-NEVER-WRITE-THIS-0123456789"
SAMPLE_IDS = ["S-C01", "S-C02", "S-E01", "S-E02", "S-E03", "S-E04"]
STUDENTS = ("gemini-2.5-flash", "gpt-5-nano", "gemma3:27b", "gemma3:4b", "qwen3:4b")
RESP = tuple(f"resp_{k}" for k in range(1, N_SLOTS + 1))


def cli(command: str, stub: StubServer, out: Path, *extra: str) -> int:
    """Run ``medqade COMMAND`` against ``stub`` on the sample data, no progress display."""
    argv = [command, "--model", "stub-model", "--base-url", stub.base_url, "--data", str(DATA)]
    argv += ["--out", str(out), "--no-progress", *extra]
    return main(argv)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def check_judgments(path: Path, question_ids: list[str]) -> list[dict[str, Any]]:
    """Re-read a judge file with the raw release's rules; return its rows.

    Every line is a JSON object with ``question_id`` (known, once each, in order), ``order``
    (the five student ids, each once), ``resp_1..resp_5`` (a label or null) and
    ``difficulty`` (a difficulty or null); a line with a null has ``error`` and ``raw``.
    """
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["question_id"] for r in rows] == question_ids
    for r in rows:
        assert isinstance(r, dict)
        assert {"evaluator", "question_id", "order", *RESP, "difficulty"} <= set(r)
        assert sorted(r["order"]) == sorted(STUDENTS) and len(r["order"]) == N_SLOTS
        assert all(r[k] is None or r[k] in LABELS for k in RESP)
        assert r["difficulty"] is None or r["difficulty"] in DIFFICULTIES
        if any(r[k] is None for k in (*RESP, "difficulty")):
            assert all(r[k] is None for k in (*RESP, "difficulty"))
            assert r["error"] and "raw" in r
        else:
            assert "error" not in r and "raw" not in r
    return rows


def user_messages(stub: StubServer) -> list[str]:
    return [next(m["content"] for m in b["messages"] if m["role"] == "user") for b in stub.requests]


def score_json(path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """``medqade score PATH --kind KIND --json`` on the sample data (must succeed): the record."""
    capsys.readouterr()
    assert main(["score", str(path), "--data", str(DATA), "--kind", kind, "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def forge(out: Path, data: bytes) -> None:
    """Replace ``out`` with ``data`` and make its sidecar marker vouch for the new bytes (a
    hostile or careless hand: the marker's hash is recomputed, its settings kept)."""
    import hashlib

    marker = out.with_name(f".{out.name}.medqade.json")
    kept = json.loads(marker.read_text(encoding="utf-8"))
    kept["sha256"] = hashlib.sha256(data).hexdigest()
    out.write_bytes(data)
    marker.write_text(json.dumps(kept), encoding="utf-8")
