"""``medqade space``: flags to settings, local serving, the Hub mirror (faked)."""

from __future__ import annotations

import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from medqade.app import serve as serve_module
from medqade.app.config import SpaceConfig
from medqade.cli import main

from .helpers import free_port


def test_cli_space_maps_flags_to_config(monkeypatch, tmp_path: Path) -> None:
    seen: list[SpaceConfig] = []
    monkeypatch.setattr(serve_module, "serve", lambda config: seen.append(config))
    monkeypatch.delenv("MEDQADE_DATASET", raising=False)
    code = main(
        [
            "space",
            "--data",
            "some/folder",
            "--results",
            str(tmp_path),
            "--port",
            "7999",
            "--host",
            "0.0.0.0",
            "--rate-limit",
            "3",
            "--require-login",
        ]
    )
    assert code == 0
    (config,) = seen
    assert config.data == "some/folder" and config.results_dir == tmp_path
    assert (config.port, config.host, config.rate_limit) == (7999, "0.0.0.0", 3)
    assert config.require_login and config.show_login


def test_cli_space_rejects_negative_rate_limit(capsys) -> None:
    assert main(["space", "--rate-limit", "-1"]) == 2
    assert "--rate-limit must be 0 (off) or more" in capsys.readouterr().err


def test_serve_local_build_answers_http(built_sample: Path, tmp_path: Path) -> None:
    port = free_port()
    config = SpaceConfig(
        data=str(built_sample), results_dir=tmp_path / "r", port=port, resamples=20
    )
    demo = serve_module.serve(config, block=False)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            page = response.read().decode("utf-8")
        assert response.status == 200 and "MedQADE leaderboard" in page
    finally:
        demo.close()


class FakeScheduler:
    def __init__(self) -> None:
        self.lock = threading.Lock()


def test_prepare_pulls_and_mirrors_results_repo(
    built_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, Any]] = []
    scheduler = FakeScheduler()

    def pull(repo: str, folder: Path, token: str | None = None) -> Path:
        calls.append(("pull", repo))
        return folder

    def mirror(repo: str, folder: Path, every: float, token: str | None) -> FakeScheduler:
        calls.append(("mirror", repo))
        return scheduler

    monkeypatch.setattr(serve_module, "pull_results", pull)
    monkeypatch.setattr(serve_module, "start_mirror", mirror)
    config = SpaceConfig(
        data=str(built_sample), results_dir=tmp_path / "r", results_repo="org/res", resamples=20
    )
    demo = serve_module.prepare(config)
    assert calls == [("pull", "org/res"), ("mirror", "org/res")]
    assert demo.medqade_state.store._write_lock is scheduler.lock
