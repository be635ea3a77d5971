"""The Blocks page: the banner of a synthetic release, the settings it is launched with, and
where its events show their progress."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import gradio as gr

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


def test_no_event_the_page_sends_shows_its_progress_on_a_figure_table_or_container(
    sample_release, tmp_path: Path
) -> None:
    """Issue 39: Gradio's front end keeps a loading status for every progress target an event
    ever had (its outputs, unless ``show_progress_on`` names others) and at each later event
    reads each one back with everything inside it (a ``structuredClone`` per value). A
    figure, a table or a container there made every click after it slower (the *vs
    physicians* link: 130 ms on a fresh page, 300 ms once Analysis and Browse were open), so
    each event the page sends shows its progress on one small component instead. The public
    API's hidden buttons are never clicked in a page and are left as they are."""
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    demo = build_app(sample_release, tmp_path, config, background=False, analyses=False)

    def heavy(block: object) -> bool:  # a figure, a table, or blocks inside it
        return isinstance(block, (gr.Plot, gr.Dataframe)) or bool(getattr(block, "children", None))

    def api_button(block: object) -> bool:  # an API endpoint's: hidden, outside every tab
        return isinstance(block, gr.Button) and block.visible is False and block.parent is demo

    checked, failing = 0, []
    for fn in demo.fns.values():
        triggers = [block for block, _event in fn.targets if block is not None]
        blocks = [demo.blocks.get(t) for t in triggers]
        if blocks and all(api_button(b) for b in blocks):
            continue
        targets = fn.show_progress_on or fn.outputs
        failing += [fn.name] if any(heavy(t) for t in targets) else []
        checked += 1
    assert not failing, ", ".join(failing)
    assert checked > 20
