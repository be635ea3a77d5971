"""The Browse tab: filters over the question sets, one item opened, ``/browse`` and ``/item``.

The tab is built the first time it opens (:func:`medqade.app.deferred.on_demand`); other tabs
and deep links open an item in it through its door (:meth:`BrowseTab.ask`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import gradio as gr

from medqade.app import deferred, text
from medqade.app.browse import ALL, FLAGS, MAX_ID
from medqade.app.context import HIDDEN, READS, TabContext, Table, empty
from medqade.app.deferred import Door, hidden, on_demand


@dataclass(frozen=True)
class BrowseTab:
    """The tab (built on demand, :func:`medqade.app.deferred.on_demand`), its door and the
    handlers; :meth:`wire` adds the public ``/browse`` and ``/item`` once the tabs exist."""

    tab: gr.Tab
    door: Door
    handlers: BrowseHandlers

    @staticmethod
    def ask(item_id: str) -> tuple[str, str]:
        """The values of :attr:`door`'s outputs that open ``item_id`` here."""
        return Door.ask(item=item_id)

    def from_url(self, params: Any) -> tuple[str, str] | None:
        """The door's values for a ``?item=...`` link (``None``: none)."""
        item_id = str(params.get("item", "") or "")
        return self.ask(item_id) if item_id else None

    def wire(self) -> None:
        """The public ``/browse`` and ``/item`` (on hidden copies of the tab's inputs: its own
        are built on demand); the tab's contents and their events when it first opens."""
        h = self.handlers
        with hidden():
            filters = _filters(h.ctx.state.browse)
            item_view = _item_view()
            browse_api, item_api = gr.Button(), gr.Button()
        browse_api.click(
            h.browse_items,
            [filters[k] for k in INPUTS],
            [filters["count"], filters["results"]],
            api_name="browse",
            api_description=h.browse_items.__doc__,
            api_visibility="public",
            **READS,
        )
        item_api.click(
            h.item,
            [item_view["item_id"], item_view["blind"]],
            [item_view[k] for k in ("header", "answers", "labels")],
            api_name="item",
            api_description=h.item.__doc__,
            api_visibility="public",
            **READS,
        )
        on_demand(self.tab, self.door, lambda asked: build_browse(self, asked))


INPUTS: Final = ("split", "tier", "lexical", "specialty", "flags", "judge", "search")
"""What :meth:`BrowseHandlers.browse_items` reads, in the order of its parameters."""


def build_browse(tab: BrowseTab, asked: dict[str, Any]) -> None:
    """The tab's contents, built the first time it opens (the list filled, the item asked for
    opened), and their events: filters, opening an item (button, Enter, a row), the judge
    list renewed on each opening (a judge submitted since, by anyone, can be chosen) and each
    later request (*open in Browse*, a submission's disagreement) answered in place."""
    h = tab.handlers
    gr.Markdown(text.BROWSE_HELP)
    count, rows = h.browse_items(ALL, ALL, ALL, ALL, [], None, "")
    item_id = str(asked.get("item") or "")
    f = _filters(h.ctx.state.browse, count, rows)
    # an id is never a path; one too long is not put in the box (the view says why)
    shown = item_id if len(item_id) <= MAX_ID else ""
    v = _item_view(shown, h.item_ui(item_id, False) if item_id else None)
    inputs = [f[k] for k in INPUTS]
    tab.tab.select(h.judge_choices, None, [f["judge"]], **HIDDEN)
    gr.on(
        [
            f["split"].change,
            f["tier"].change,
            f["lexical"].change,
            f["specialty"].change,
            f["flags"].change,
            f["judge"].change,
            f["search"].submit,
        ],
        h.browse_items,
        inputs,
        [f["count"], f["results"]],
        **HIDDEN,
    )
    gr.on(
        [v["open_button"].click, v["item_id"].submit, v["blind"].change],
        h.item_ui,
        [v["item_id"], v["blind"], f["flags"], f["judge"]],
        [v["header"]],
        show_progress="hidden",
        **HIDDEN,
    )
    f["results"].select(
        h.open_selected,
        [v["blind"], f["flags"], f["judge"]],
        [v["item_id"], v["header"]],
        show_progress="hidden",
        **HIDDEN,
    )

    def answer(request: str, blind: bool) -> tuple[Any, ...]:
        wanted = str(deferred.asked(request).get("item") or "")
        if not wanted:
            return (gr.skip(), gr.skip())
        shown = wanted if len(wanted) <= MAX_ID else gr.skip()  # an id is never a path
        return (shown, h.item_ui(wanted, blind))

    tab.door.request.change(
        answer, [tab.door.request, v["blind"]], [v["item_id"], v["header"]], **HIDDEN
    )


@dataclass(frozen=True)
class BrowseHandlers:
    """The tab's handlers over the Space's :class:`~medqade.app.browse.BrowseIndex`: the
    public ``/browse`` and ``/item``, the page's item view, row clicks and deep links."""

    ctx: TabContext

    def browse_items(
        self,
        split: str,
        tier: str,
        lexical: str,
        specialty: str,
        filters: list[str],
        judge: str | None,
        search: str,
    ) -> tuple[str, Table]:
        """Question sets that pass every filter: `split` (core/extension/all), `tier`
        (T1-T4/all), `lexical` (exact match/no match/all), `specialty`, `filters` (any of
        "physicians split", "unresolved", "chosen judge disagrees with consensus", "all judges
        wrong", "physicians abstained"), `judge` (for the judge filter: a display name from
        the list, or an id as /compare takes: a paper evaluator's model id, a submission's
        record id or a unique prefix of at least 8 characters) and a free-text `search`.
        Returns a count line and the first 500 matching items."""
        browse = self.ctx.state.browse
        try:
            keep = browse.mask(split, tier, lexical, specialty, filters or [], judge, search or "")
        except ValueError as exc:
            return str(exc), empty()
        rows, total = browse.results(keep)
        shown = f" (showing the first {len(rows)})" if total > len(rows) else ""
        return f"{total:,} of {self.ctx.release.n_items:,} question sets{shown}", rows

    def item(self, item_id: str, blind: bool) -> tuple[str, Table, Table]:
        """One question set by id: its header (question, reference, split, tier, link), the
        five answers with consensus and votes, and every physician's and judge's label.
        With `blind` the models are hidden and the answers shuffled (fixed per item)."""
        browse = self.ctx.state.browse
        try:
            view = browse.view(item_id or "", bool(blind))
        except KeyError:
            return (browse.unknown_html(str(item_id or "")), empty(), empty())
        return view.header_html, view.answers, view.labels

    def item_ui(
        self,
        item_id: str,
        blind: bool,
        filters: list[str] | None = None,
        judge: str | None = None,
    ) -> str:
        """The page's item view: answer cards and the label grid (escaped HTML)."""
        browse = self.ctx.state.browse
        try:
            view = browse.view(item_id or "", bool(blind), filters or [], judge)
        except KeyError:
            return browse.unknown_html(str(item_id or ""))
        return view.html

    def open_selected(
        self, evt: gr.SelectData, blind: bool, filters: list[str] | None, judge: str | None
    ) -> tuple[Any, ...]:
        row = evt.row_value if isinstance(evt.row_value, list) else []
        item_id = str(row[0]) if row else ""
        return (item_id, self.item_ui(item_id, blind, filters, judge))

    def judge_choices(self) -> Any:
        """The judge filter's list as it is now (paper evaluators, then every stored judge
        submission); the chosen value stays."""
        return gr.update(choices=self.ctx.state.browse.judge_choices())


def _filters(browse: Any, count: str = "", rows: Table | None = None) -> dict[str, Any]:
    """The list's filters, search, count line and the list itself (``count`` and ``rows``:
    what it shows first)."""
    out: dict[str, Any] = {}
    with gr.Row():
        out["split"] = gr.Dropdown(browse.split_choices(), value=ALL, label="Split")
        out["tier"] = gr.Dropdown(browse.tier_choices(), value=ALL, label="Tier")
        out["lexical"] = gr.Dropdown(browse.lexical_choices(), value=ALL, label="Lexical")
        out["specialty"] = gr.Dropdown(
            browse.specialty_choices(), value=ALL, label="Specialty", visible=browse.has_specialty
        )
    with gr.Row():
        out["flags"] = gr.CheckboxGroup(list(FLAGS), label="Filters", scale=3, elem_id="mq-flags")
        out["judge"] = gr.Dropdown(  # custom values: /browse also takes a judge's id
            browse.judge_choices(),
            value=None,
            label="Judge (for its filter)",
            scale=1,
            allow_custom_value=True,
        )
    out["search"] = gr.Textbox(
        label="Search text", placeholder="question, answer or id", elem_id="mq-browse-search"
    )
    out["count"] = gr.Markdown(count, elem_id="mq-count")
    out["results"] = gr.Dataframe(
        rows,
        label="Question sets (select a row to open it)",
        interactive=False,
        max_height=400,
        pinned_columns=1,
        elem_id="mq-items",
    )
    return out


def _item_view(item_id: str = "", header: str | None = None) -> dict[str, Any]:
    """The id box, the blind switch, the Open button and the item view (with the hidden
    tables ``/item`` returns besides the header); ``item_id`` and its ``header``: the item
    it shows first."""
    out: dict[str, Any] = {}
    with gr.Row():
        # interactive said outright: built in a render, an event's output is drawn disabled
        out["item_id"] = gr.Textbox(
            item_id, label="Item id", scale=2, elem_id="mq-item-id", interactive=True
        )
        out["blind"] = gr.Checkbox(label="blind (hide models, shuffle)", scale=1)
        out["open_button"] = gr.Button("Open", scale=1)
    out["header"] = gr.HTML(
        header or '<p class="mq-empty">Select a row above or enter an item id to open it.</p>',
        elem_id="mq-item",
    )
    out["answers"] = gr.Dataframe(label="Answers", interactive=False, visible=False)
    out["labels"] = gr.Dataframe(label="Labels", interactive=False, visible=False)
    return out


def add_browse_tab(ctx: TabContext, door: Door) -> BrowseTab:
    """Lay out the Browse tab (inside ``gr.Tabs``) over the state in ``ctx``: only the tab;
    its contents are built when it first opens through ``door`` (:meth:`BrowseTab.wire`;
    the door is made before the tabs: it lives outside them)."""
    with gr.Tab("Browse", id="browse") as tab:
        pass
    return BrowseTab(tab=tab, door=door, handlers=BrowseHandlers(ctx))
