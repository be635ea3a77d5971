"""``medqade space``: its flags become the Space's settings (the Space itself is
medqade.app's: tests/app)."""

from __future__ import annotations

from pathlib import Path

from medqade.app import serve as serve_module
from medqade.app.config import SpaceConfig
from medqade.cli import main


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
