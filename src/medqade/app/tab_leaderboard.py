"""The Leaderboard tab: judges and models tables, column groups, downloads, ``/leaderboard``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from medqade import scoring
from medqade.app import text, views
from medqade.app.context import HIDDEN, READS, TabContext, Table, frame


@dataclass(frozen=True)
class LeaderboardTab:
    """The tab's components and handlers; :meth:`wire` adds its events once the tabs exist."""

    tab: gr.Tab
    view: gr.Radio
    search: gr.Textbox
    columns: gr.CheckboxGroup
    note: gr.Markdown
    judges: gr.Dataframe
    models: gr.Dataframe
    downloads: tuple[gr.DownloadButton, gr.DownloadButton, gr.DownloadButton]
    leaderboard: Callable[[str, str], tuple[Table, Table]]
    leaderboard_ui: Callable[[str, str, list[str]], tuple[Any, ...]]

    @property
    def inputs(self) -> list[Any]:
        """What :attr:`leaderboard_ui` reads: view, search and column groups."""
        return [self.view, self.search, self.columns]

    @property
    def outputs(self) -> list[Any]:
        """What :attr:`leaderboard_ui` fills: note, both tables and the three downloads."""
        return [self.note, self.judges, self.models, *self.downloads]

    def wire(self) -> None:
        """Refresh on every control and on opening the tab; the public ``/leaderboard``."""
        gr.on(
            [self.view.change, self.columns.change, self.search.submit, self.tab.select],
            self.leaderboard_ui,
            self.inputs,
            self.outputs,
            **HIDDEN,
        )
        lb_api = gr.Button(visible=False)
        lb_api.click(
            self.leaderboard,
            [self.view, self.search],
            [self.judges, self.models],
            api_name="leaderboard",
            api_description=self.leaderboard.__doc__,
            api_visibility="public",
            **READS,
        )

    def load(self, demo: gr.Blocks) -> None:
        """Fill the tables when the page loads."""
        demo.load(self.leaderboard_ui, self.inputs, self.outputs, api_visibility="private")


def add_leaderboard_tab(ctx: TabContext) -> LeaderboardTab:
    """Lay out the Leaderboard tab (inside ``gr.Tabs``) over the state in ``ctx``."""
    release, st, exports = ctx.release, ctx.state, ctx.exports

    def leaderboard(view: str, search: str) -> tuple[Table, Table]:
        """The judges and models tables of the leaderboard for `view` ("core": the 200 items
        every physician rated; "full": all items), keeping rows whose name, model id, family,
        source, badge or organisation contain `search`. Numbers are rounded for display."""
        boards = st.boards(view if view in ("core", "full") else "core")
        groups = views.COLUMN_GROUPS
        return (
            views.select(boards.judges_display, views.JUDGE_GROUPS, groups, search or ""),
            views.select(boards.models_display, views.MODEL_GROUPS, groups, search or ""),
        )

    def leaderboard_ui(view: str, search: str, columns: list[str]) -> tuple[Any, ...]:
        view = view if view in ("core", "full") else "core"
        boards = st.boards(view)
        judges = views.select(boards.judges_display, views.JUDGE_GROUPS, columns, search or "")
        models = views.select(boards.models_display, views.MODEL_GROUPS, columns, search or "")
        note = (
            ""
            if st.references_ready
            else (
                "Reference rows (paper evaluators, physicians, baselines, students) are being "
                "computed for this dataset; reload in a few seconds."
            )
        )
        tag = f"{view}-{st.store.version}-{int(st.references_ready)}"
        payload = {
            "view": view,
            "dataset": {"hash": release.data_hash, "synthetic": release.synthetic},
            "judges": json.loads(boards.judges.to_json(orient="records")),
            "models": json.loads(boards.models.to_json(orient="records")),
        }
        return (
            note,
            frame(judges),
            frame(models),
            exports.write(
                f"medqade-judges-{tag}.csv",
                scoring.csv_text(boards.judges),
                replaces=f"medqade-judges-{view}-",
            ),
            exports.write(
                f"medqade-models-{tag}.csv",
                scoring.csv_text(boards.models),
                replaces=f"medqade-models-{view}-",
            ),
            exports.write(
                f"medqade-leaderboard-{tag}.json",
                json.dumps(payload, indent=1, ensure_ascii=False),
                replaces=f"medqade-leaderboard-{view}-",
            ),
        )

    with gr.Tab("Leaderboard", id="leaderboard") as tab:
        gr.Markdown(text.LEADERBOARD_HELP)
        with gr.Row():
            view = gr.Radio(["core", "full"], value="core", label="View", scale=1, min_width=160)
            search = gr.Textbox(
                label="Search", placeholder="name, model id, family, organisation", scale=3
            )
        columns = gr.CheckboxGroup(
            list(views.COLUMN_GROUPS), value=list(views.DEFAULT_GROUPS), label="Columns"
        )
        note = gr.Markdown()
        judges_table = gr.Dataframe(
            label="Judges (agreement with physician consensus)",
            interactive=False,
            pinned_columns=2,
            max_height=600,
            elem_id="mq-judges",
        )
        models_table = gr.Dataframe(
            label="Models (accuracy by physician consensus)",
            interactive=False,
            pinned_columns=2,
            max_height=500,
            elem_id="mq-models",
        )
        with gr.Row():
            dl_judges = gr.DownloadButton("Judges CSV", size="sm")
            dl_models = gr.DownloadButton("Models CSV", size="sm")
            dl_json = gr.DownloadButton("Leaderboard JSON", size="sm")

    return LeaderboardTab(
        tab=tab,
        view=view,
        search=search,
        columns=columns,
        note=note,
        judges=judges_table,
        models=models_table,
        downloads=(dl_judges, dl_models, dl_json),
        leaderboard=leaderboard,
        leaderboard_ui=leaderboard_ui,
    )
