"""The Blocks page: the banner of a synthetic release, and the settings it is launched with."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from medqade.app import assets, page_head, ui
from medqade.app.config import SpaceConfig
from medqade.app.ui import build_app


def test_synthetic_release_shows_banner(sample_release, tmp_path: Path) -> None:
    synthetic = replace(sample_release, meta=replace(sample_release.meta, synthetic=True))
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    demo = build_app(synthetic, tmp_path, config, background=False, analyses=False)
    values = [c.get("props", {}).get("value") for c in demo.config["components"]]
    assert any(isinstance(v, str) and "SYNTHETIC DATA" in v for v in values)
    about = [v for v in values if isinstance(v, str) and "## What MedQADE is" in v]
    assert about and "synthetic release" in about[0]
    plain = build_app(sample_release, tmp_path, config, background=False, analyses=False)
    values = [c.get("props", {}).get("value") for c in plain.config["components"]]
    assert not any(isinstance(v, str) and "SYNTHETIC DATA" in v for v in values)


def test_launch_settings_come_from_the_config(tmp_path: Path) -> None:
    config = SpaceConfig(results_dir=tmp_path, max_upload_mb=3)
    kwargs = ui.launch_kwargs(config)
    assert kwargs["css"] is page_head.CSS and kwargs["head"] is page_head.HEAD
    assert kwargs["max_file_size"] == 3 * 1024 * 1024 == config.max_upload_bytes
    assert (kwargs["server_name"], kwargs["server_port"]) == (config.host, config.port)
    assert kwargs["show_error"] is False
    (middleware,) = kwargs["app_kwargs"]["middleware"]
    assert middleware.cls is assets.FrontendAssets  # Gradio's front-end files from memory
