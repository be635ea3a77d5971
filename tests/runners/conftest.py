"""Fixtures for the runner tests: a stub OpenAI-compatible server and a clean environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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
