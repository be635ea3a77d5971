"""The Leaderboard tab's layout: the controls and tables it lays out, each filling a field of
:class:`~medqade.app.tab_leaderboard.LeaderboardTab`."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from medqade.app import leaderboard_layout, views
from medqade.app.board_table import BOARD_JS
from medqade.app.config import SpaceConfig
from medqade.app.tab_leaderboard import LeaderboardTab
from medqade.scoring.board.tables import MARGIN_STEP


def _controls(tmp_path: Path, margin: float = 0.07) -> dict[str, object]:
    ctx = SimpleNamespace(config=SpaceConfig(results_dir=tmp_path, margin=margin))
    with gr.Blocks():
        return leaderboard_layout.controls_components(ctx)  # type: ignore[arg-type]


def test_controls_offer_the_views_groups_metrics_and_margin(tmp_path: Path) -> None:
    controls = _controls(tmp_path, margin=0.07)
    view, search, columns = controls["view"], controls["search"], controls["columns"]
    metric, margin = controls["metric"], controls["margin"]
    assert isinstance(view, gr.Radio) and [c[0] for c in view.choices] == ["core", "full"]
    assert isinstance(search, gr.Textbox) and search.max_length == leaderboard_layout.SEARCH_MAX
    assert isinstance(columns, gr.CheckboxGroup)
    assert [c[0] for c in columns.choices] == list(views.COLUMN_GROUPS)
    assert columns.value == list(views.DEFAULT_GROUPS)
    assert isinstance(metric, gr.Radio) and metric.value == "kappa"
    assert isinstance(margin, gr.Number) and margin.value == 0.07 and margin.step == MARGIN_STEP
    assert "mq-phone-only" in (controls["cards"].elem_classes or [])  # type: ignore[attr-defined]


def test_tables_are_boards_drawn_by_the_board_script() -> None:
    with gr.Blocks():
        tables = leaderboard_layout.table_components()
    for key in ("judges", "physicians", "models"):
        board = tables[key]
        assert isinstance(board, gr.HTML) and board.js_on_load == BOARD_JS
    assert not tables["physicians"].visible and tables["judges"].visible
    assert "mq-inpage" in (tables["judges"].elem_classes or [])  # its links open in place
    labels = [button.label for button in tables["downloads"]]
    assert labels == ["Judges CSV", "Models CSV", "Leaderboard JSON"]


def test_every_component_laid_out_fills_a_field_of_the_tab(tmp_path: Path) -> None:
    with gr.Blocks():
        tables = leaderboard_layout.table_components()
    fields = {f.name for f in dataclasses.fields(LeaderboardTab)}
    assert set(_controls(tmp_path)) | set(tables) <= fields
