"""What the served page holds back until its first event: other tabs, closed folds, downloads."""

from __future__ import annotations

from pathlib import Path

import gradio as gr

from medqade.app import deferred
from medqade.app.config import SpaceConfig
from medqade.app.ui import build_app


def _page() -> tuple[gr.Blocks, gr.Tabs, dict[str, gr.components.Component]]:
    parts: dict[str, gr.components.Component] = {}
    with gr.Blocks() as demo, gr.Tabs() as tabs:
        with gr.Tab("First", id="first"):
            parts["lead"] = gr.Markdown("lead")
            with gr.Accordion("closed", open=False):
                parts["folded"] = gr.Checkbox()
            with gr.Accordion("open", open=True):
                parts["unfolded"] = gr.Number()
            parts["download"] = gr.DownloadButton("file")
            parts["hidden"] = gr.Markdown(visible=False)
        with gr.Tab("Second", id="second"):
            with gr.Row():
                parts["other"] = gr.Dataframe()
            parts["other_hidden"] = gr.Textbox(visible=False)
            parts["state"] = gr.State(1)
    return demo, tabs, parts


def test_holds_back_other_tabs_closed_folds_and_extras_only() -> None:
    _demo, tabs, parts = _page()
    held = deferred.hold_back(tabs, "first", [parts["download"]])
    for name in ("folded", "download", "other"):
        assert parts[name] in held and parts[name].visible is False, name
    for name in ("lead", "unfolded"):
        assert parts[name] not in held and parts[name].visible is True, name
    # built hidden on purpose: not held, so the first event does not show it
    assert parts["hidden"] not in held and parts["other_hidden"] not in held
    assert parts["state"] not in held
    # the other tab's row is held with its table; the tabs themselves stay (their buttons)
    assert any(isinstance(b, gr.Row) for b in held)
    assert all(not isinstance(b, gr.Tab) for b in held)
    assert len({id(b) for b in held}) == len(held)
    assert all(u == {"__type__": "update", "visible": True} for u in deferred.shown(held))
    assert len(deferred.shown(held)) == len(held)


def test_the_space_serves_its_first_screen_and_shows_the_rest_on_the_first_event(
    sample_release, tmp_path: Path
) -> None:
    config = SpaceConfig(results_dir=tmp_path, resamples=20)
    demo = build_app(sample_release, tmp_path, config, background=False, analyses=False)
    served = demo.config
    comps = {c["id"]: c for c in served["components"]}
    shown_types = {
        c["type"] for c in served["components"] if c.get("props", {}).get("visible") is not False
    }
    # no module of a table, figure, upload or download is fetched before the judges show, nor
    # Gradio's Markdown (the first screen's text is drawn on the server: medqade.app.prose)
    assert not shown_types & {
        "dataframe",
        "plot",
        "file",
        "downloadbutton",
        "json",
        "dropdown",
        "markdown",
    }
    assert {"html", "radio", "textbox"} <= shown_types
    judges = [c for c in comps.values() if c["props"].get("elem_id") == "mq-judges"]
    assert judges and judges[0]["props"]["visible"] is True
    # the page's first events include one that shows every held block, and only those
    held = {i for i, c in comps.items() if c.get("props", {}).get("visible") is False}
    showing = [
        d
        for d in served["dependencies"]
        if any(t[1] == "load" for t in d["targets"]) and len(d["outputs"]) > 20
    ]
    assert len(showing) == 1
    outputs = set(showing[0]["outputs"])
    assert outputs - {showing[0]["outputs"][0], showing[0]["outputs"][1]} <= held
    browse_items = [c["id"] for c in comps.values() if c["props"].get("elem_id") == "mq-items"]
    assert browse_items and set(browse_items) <= outputs
    # the models board sits below the judges: sent hidden, shown by the first event
    models = [i for i, c in comps.items() if c["props"].get("elem_id") == "mq-models"]
    assert models and models[0] in held and models[0] in outputs
