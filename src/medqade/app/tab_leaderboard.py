"""The Leaderboard tab: judges and models tables, column groups, downloads, ``/leaderboard``."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import gradio as gr

from medqade import scoring
from medqade.app import glossary, text, views
from medqade.app.board_table import board_html, event_text
from medqade.app.context import HIDDEN, READS, TabContext, Table
from medqade.app.leaderboard_layout import SEARCH_MAX, controls_components, table_components
from medqade.app.leaderboard_page import (
    DEFAULT_COLUMNS,
    FIRST_PAGE_KEYS,
    PHYSICIANS_CAPTION,
    FirstPage,
    Parts,
    first_page_keys,
)
from medqade.app.panel_view import PhysicianPanel
from medqade.app.pool_view import add_pool_panel, pool_view
from medqade.app.state import Boards
from medqade.app.tab_compare import CompareTab
from medqade.scoring.board import MARGIN_STEP, board_margin, resolution_note, rows

log = logging.getLogger(__name__)

METRICS: Final = {"kappa": "kappa", "PA": "pa", "PABAK": "pabak", "pa": "pa", "pabak": "pabak"}
"""The ranking metric as shown (and as the library names it)."""
SCROLL_TO_PHYSICIANS: Final = """() => {
  const go = (tries) => {
    const el = document.querySelector("#mq-physicians");
    if (el && el.offsetParent !== null && el.querySelector("tbody tr")) {
      (document.querySelector("#mq-physicians-note") || el).scrollIntoView({block: "start"});
    } else if (tries > 0) {
      setTimeout(() => go(tries - 1), 100);
    }
  };
  go(50);
}"""
"""Bring the per-physician table into view once it shows (the button's ``js`` step)."""


@dataclass(frozen=True)
class LeaderboardTab:
    """The tab's components and handlers; :meth:`wire` adds its events once the tabs exist."""

    tab: gr.Tab
    view: gr.Radio
    search: gr.Textbox
    columns: gr.CheckboxGroup
    note: gr.HTML
    cards: gr.HTML
    judges: gr.HTML
    models: gr.HTML
    downloads: tuple[gr.DownloadButton, gr.DownloadButton, gr.DownloadButton]
    shown: gr.State
    leaderboard: Callable[[str, str], tuple[Table, Table]]
    leaderboard_ui: Callable[..., tuple[Any, ...]]
    open_physicians: Callable[[gr.EventData], tuple[Any, Any]]
    metric: gr.Radio
    margin: gr.Number
    physicians_note: gr.Markdown
    physicians: gr.HTML
    physicians_button: gr.Button
    show_physicians: Callable[[], tuple[Any, Any]]
    first_keys: gr.Textbox
    first_page: FirstPage
    ready: threading.Event
    board_listeners: list[Callable[[], None]]

    @property
    def inputs(self) -> list[Any]:
        """What :attr:`leaderboard_ui` reads: view, search, column groups, what is shown, the
        ranking metric, the verdict's margin and the keys of the page's first leaderboard."""
        return [
            self.view,
            self.search,
            self.columns,
            self.shown,
            self.metric,
            self.margin,
            self.first_keys,
        ]

    @property
    def outputs(self) -> list[Any]:
        """What :attr:`leaderboard_ui` fills: note, both tables, the three downloads and the
        keys of what the page now shows (so an unchanged table is not sent again)."""
        return [self.note, self.cards, self.judges, self.models, *self.downloads, self.shown]

    def wire(self) -> None:
        """Refresh on every control and on opening the tab (sending only the parts whose
        content changed); the public ``/leaderboard`` (its tables as Dataframes, in hidden
        components outside the tabs). The button *Per-physician agreement* (or a click on the
        physician ceiling row) opens the per-physician table below it; the button also
        scrolls it into view."""
        self.judges.select(
            self.open_physicians, None, [self.physicians_note, self.physicians], **HIDDEN
        )
        self.physicians_button.click(
            self.show_physicians, None, [self.physicians_note, self.physicians], **HIDDEN
        ).then(None, None, None, js=SCROLL_TO_PHYSICIANS)
        gr.on(
            [
                self.view.change,
                self.columns.change,
                self.search.submit,
                self.tab.select,
                self.metric.change,
                self.margin.change,
            ],
            self.leaderboard_ui,
            self.inputs,
            self.outputs,
            show_progress="hidden",
            **HIDDEN,
        )
        lb_api = gr.Button(visible=False)
        api_tables = [gr.Dataframe(visible=False), gr.Dataframe(visible=False)]
        lb_api.click(
            self.leaderboard,
            [self.view, self.search],
            api_tables,
            api_name="leaderboard",
            api_description=self.leaderboard.__doc__,
            api_visibility="public",
            **READS,
        )

    def wire_compare(self, tabs: gr.Tabs, compare: CompareTab) -> None:
        """A click on a row's *vs physicians* link opens that comparison on the Compare tab of
        the same page, in the leaderboard's view (the page script keeps the link from opening
        a new browser tab)."""

        def open_comparison(evt: gr.EventData, view: str) -> tuple[Any, ...]:
            a, b = event_text(evt, "a"), event_text(evt, "b")
            if a is None or b is None:
                return tuple(gr.skip() for _ in range(9))
            view = view if view in ("core", "full") else "core"
            return (gr.update(selected="compare"), a, b, view, *compare.ui(a, b, view))

        outputs = [tabs, compare.a, compare.b, compare.view, compare.summary, compare.overall]
        outputs += [compare.slots, compare.tiers, compare.disagreements]
        # not queued: a judge against the physicians is computed ahead and kept for the board
        # (SpaceState.warm_comparisons); in the full view it is refused at once
        # the progress shows on the headline only: Gradio's front end refreshes the loading
        # status of every progress target at each later event, and for the tabs that means
        # reading back the state of every component of every tab (0.1-0.2 s; issue 39)
        self.judges.select(
            open_comparison, [self.view], outputs, show_progress_on=compare.summary, **HIDDEN
        )

    def load(self, demo: gr.Blocks) -> None:
        """Fill what the page does not carry yet when it loads (answered at once, outside
        the queue: the boards are computed before the Space serves); once the start-up work
        is done, the default leaderboard becomes the page's first (:class:`FirstPage`)."""
        demo.load(self.leaderboard_ui, self.inputs, self.outputs, **HIDDEN)
        self.first_page.attach(
            demo, (self.note, self.cards, self.judges, self.models), self.first_keys
        )

        def first_page() -> None:
            try:
                self.leaderboard_ui("core", "", list(views.DEFAULT_GROUPS))
            except Exception:  # the first event fills the page instead
                log.exception("the first page's leaderboard could not be drawn")

        def when_ready() -> None:
            self.ready.wait()
            first_page()

        self.board_listeners.append(first_page)  # a stored submission renews it at once
        # not a daemon: it draws with pandas (see SpaceState); it ends when the start-up does
        threading.Thread(target=when_ready, name="medqade-first-page").start()


@dataclass(frozen=True)
class LeaderboardHandlers:
    """The tab's handlers over the state in ``ctx``: the public ``/leaderboard``, the page's
    refresh (only the parts whose content changed) and the per-physician panel."""

    ctx: TabContext
    panel: PhysicianPanel
    first: FirstPage

    def leaderboard(self, view: str, search: str) -> tuple[Table, Table]:
        """The judges and models tables of the leaderboard for `view` ("core": the 200 items
        every physician rated; "full": all items), keeping rows whose name, model id, family,
        source, badge or organisation contain `search`. Numbers are rounded for display."""
        boards = self.ctx.state.boards(view if view in ("core", "full") else "core")
        groups = views.COLUMN_GROUPS
        return (
            views.select(boards.judges_display, views.JUDGE_GROUPS, groups, search or ""),
            views.select(boards.models_display, views.MODEL_GROUPS, groups, search or ""),
        )

    def margin(self, margin: Any) -> tuple[float, str]:
        """The verdict's margin as given (the Space's default when empty), or the default with
        a line saying why when it is not one the board offers
        (:func:`medqade.scoring.board.tables.board_margin`: 0 to 1 in steps of 0.01)."""
        default = self.ctx.state.config.margin
        if margin is None or margin == default:
            return default, ""
        try:
            return board_margin(margin), ""
        except (TypeError, ValueError):
            return default, (
                f"The margin must be a number from 0 to 1 in steps of {MARGIN_STEP:g}; "
                f"using {default:g}. "
            )

    def leaderboard_ui(
        self,
        view: str,
        search: str,
        columns: list[str],
        shown: dict[str, str] | None = None,
        metric: str = "kappa",
        margin: float | None = None,
        first: str = "",
    ) -> tuple[Any, ...]:
        """The tab's parts for these controls, each sent only when it differs from what the
        page shows (``shown``: this session's keys; before its first event, the keys of the
        first page it was served, ``first``). The default controls' parts also become the
        first page of the next visitors (:class:`FirstPage`)."""
        st = self.ctx.state
        view = view if view in ("core", "full") else "core"
        metric = METRICS.get(metric, "kappa")
        margin, problem = self.margin(margin)
        needle = search if isinstance(search, str) else ""
        if len(needle) > SEARCH_MAX:
            problem += (
                f"The search text has {len(needle):,} characters, more than {SEARCH_MAX}; "
                "showing every row. "
            )
            needle = ""
        boards = st.boards(view, metric, margin)
        note = problem + (
            resolution_note(boards.judges_resolution, metric)
            if st.references_ready
            else text.REFERENCES_PENDING
        )
        tag = f"{view}-{metric}-{margin:g}-{st.store.version}-{int(st.references_ready)}"
        chosen = sorted(set(columns or ()) & set(views.COLUMN_GROUPS))
        keys = {
            "note": note,
            "judges": repr((tag, needle, sorted(set(chosen) & set(views.JUDGE_GROUPS)))),
            "models": repr((tag, needle, sorted(set(chosen) & set(views.MODEL_GROUPS)))),
            "downloads": tag,
        }
        parts = Parts(boards, view, needle, chosen, note)
        default = (view, needle, chosen, metric) == ("core", "", DEFAULT_COLUMNS, "kappa")
        if default and margin == st.config.margin:
            self.first.show({k: keys[k] for k in FIRST_PAGE_KEYS}, parts)
        shown = dict(shown or first_page_keys(first))
        if all(shown.get(k) == v for k, v in keys.items()):
            return tuple(gr.skip() for _ in range(8))

        def changed(part: str, make: Callable[[], Any]) -> Any:
            return make() if shown.get(part) != keys[part] else gr.skip()

        out = (
            changed("note", parts.note_html),
            changed("judges", parts.cards),
            changed("judges", parts.judges),
            changed("models", parts.models),
        )
        if shown.get("downloads") == tag:
            return (*out, *(gr.skip(),) * 3, keys)
        return (*out, *self.downloads(boards, view, tag), keys)

    def downloads(self, boards: Boards, view: str, tag: str) -> tuple[Any, Any, Any]:
        """The judges CSV, models CSV and leaderboard JSON of ``boards`` (replacing this
        view's earlier files)."""
        release, exports = self.ctx.release, self.ctx.exports
        judges, models = boards.board.judges_frame(), boards.board.models_frame()
        payload = {
            "view": view,
            "dataset": {"hash": release.data_hash, "synthetic": release.synthetic},
            "judges": rows(judges),
            "models": rows(models),
        }
        return (
            exports.write(
                f"medqade-judges-{tag}.csv",
                scoring.csv_text(views.judges_export(judges)),
                replaces=f"medqade-judges-{view}-",
            ),
            exports.write(
                f"medqade-models-{tag}.csv",
                scoring.csv_text(models),
                replaces=f"medqade-models-{view}-",
            ),
            exports.write(
                f"medqade-leaderboard-{tag}.json",
                json.dumps(payload, indent=1, ensure_ascii=False),
                replaces=f"medqade-leaderboard-{view}-",
            ),
        )

    def open_physicians(self, evt: gr.EventData) -> tuple[Any, Any]:
        if event_text(evt, "open") != "physicians":
            return gr.skip(), gr.skip()
        return self.show_physicians()

    def show_physicians(self) -> tuple[Any, Any]:
        note, table = self.panel.table()
        board = board_html(table, PHYSICIANS_CAPTION, pinned=1, titles=glossary.PHYSICIANS)
        return gr.update(value=note, visible=True), gr.update(value=board, visible=True)


def add_leaderboard_tab(ctx: TabContext) -> LeaderboardTab:
    """Lay out the Leaderboard tab (inside ``gr.Tabs``) over the state in ``ctx``."""
    first = FirstPage()
    # the per-physician numbers are aggregates: on the release scored on (held-out labels too)
    handlers = LeaderboardHandlers(ctx, PhysicianPanel(ctx.state.scoring_release), first)
    with gr.Tab("Leaderboard", id="leaderboard", render_children=True) as tab:
        controls = controls_components(ctx)
        tables = table_components()
        pool = pool_view(ctx.config.data, ctx.release)  # the whole pool, when published
        if pool is not None:
            add_pool_panel(pool)
        shown = gr.State({})
        first_keys = gr.Textbox(visible=False, elem_id="mq-first-keys")
    return LeaderboardTab(
        tab=tab,
        **controls,
        **tables,
        shown=shown,
        first_keys=first_keys,
        first_page=first,
        ready=ctx.state.ready,
        board_listeners=ctx.state.board_listeners,
        leaderboard=handlers.leaderboard,
        leaderboard_ui=handlers.leaderboard_ui,
        open_physicians=handlers.open_physicians,
        show_physicians=handlers.show_physicians,
    )
