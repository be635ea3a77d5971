"""The Browse tab: filters over the question sets, one item opened, ``/browse`` and ``/item``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from medqade.app import text
from medqade.app.browse import ALL, FLAGS, MAX_ID
from medqade.app.context import HIDDEN, READS, TabContext, Table, empty


@dataclass(frozen=True)
class BrowseTab:
    """The tab's components and handlers; :meth:`wire` adds its events once the tabs exist."""

    tab: gr.Tab
    split: gr.Dropdown
    tier: gr.Dropdown
    lexical: gr.Dropdown
    specialty: gr.Dropdown
    flags: gr.CheckboxGroup
    judge: gr.Dropdown
    search: gr.Textbox
    count: gr.Markdown
    results: gr.Dataframe
    item_id: gr.Textbox
    blind: gr.Checkbox
    open_button: gr.Button
    header: gr.HTML
    answers: gr.Dataframe
    labels: gr.Dataframe
    browse_items: Callable[..., tuple[str, Table]]
    item: Callable[[str, bool], tuple[str, Table, Table]]
    item_ui: Callable[..., str]
    open_selected: Callable[..., tuple[Any, ...]]
    open_disagreement: Callable[..., tuple[Any, ...]]
    judge_choices: Callable[[], Any]
    deep_link: Callable[..., tuple[Any, ...]]

    @property
    def inputs(self) -> list[Any]:
        """What :attr:`browse_items` reads, in the order of its parameters."""
        return [
            self.split,
            self.tier,
            self.lexical,
            self.specialty,
            self.flags,
            self.judge,
            self.search,
        ]

    @property
    def item_outputs(self) -> list[Any]:
        """What :attr:`item` (the API) fills: header, answers and labels."""
        return [self.header, self.answers, self.labels]

    @property
    def item_inputs(self) -> list[Any]:
        """What :attr:`item_ui` reads: id, blind, and the filters whose triggers it marks."""
        return [self.item_id, self.blind, self.flags, self.judge]

    def wire(self, tabs: gr.Tabs, disagreements: gr.Dataframe) -> None:
        """Filter and open events, the public ``/browse`` and ``/item``; a row selected in
        ``disagreements`` (Submit tab) opens that item here. Opening the tab refreshes only the
        judge list (as Compare does), so a judge submitted since the page loaded, by anyone,
        can be chosen; the item list was filled on load and only a filter changes it."""
        self.tab.select(self.judge_choices, None, [self.judge], **HIDDEN)
        gr.on(
            [
                self.split.change,
                self.tier.change,
                self.lexical.change,
                self.specialty.change,
                self.flags.change,
                self.judge.change,
                self.search.submit,
            ],
            self.browse_items,
            self.inputs,
            [self.count, self.results],
            show_progress_on=self.count,  # the count line, not the table (issue 39)
            **HIDDEN,
        )
        browse_api = gr.Button(visible=False)
        browse_api.click(
            self.browse_items,
            self.inputs,
            [self.count, self.results],
            api_name="browse",
            api_description=self.browse_items.__doc__,
            api_visibility="public",
            **READS,
        )
        gr.on(
            [self.open_button.click, self.item_id.submit, self.blind.change],
            self.item_ui,
            self.item_inputs,
            [self.header],
            show_progress="hidden",
            **HIDDEN,
        )
        item_api = gr.Button(visible=False)
        item_api.click(
            self.item,
            [self.item_id, self.blind],
            self.item_outputs,
            api_name="item",
            api_description=self.item.__doc__,
            api_visibility="public",
            **READS,
        )
        self.results.select(
            self.open_selected,
            [self.blind, self.flags, self.judge],
            [self.item_id, self.header],
            show_progress="hidden",
            **HIDDEN,
        )
        disagreements.select(
            self.open_disagreement,
            [self.blind],
            [tabs, self.item_id, self.header],
            show_progress_on=self.header,  # not the tabs (see LeaderboardTab.wire_compare)
            **HIDDEN,
        )

    def load(self, demo: gr.Blocks, tabs: gr.Tabs) -> None:
        """Fill the list when the page loads, and open the item of a ``?item=`` link (both
        answered at once, outside the queue: an index lookup)."""
        demo.load(
            self.browse_items,
            self.inputs,
            [self.count, self.results],
            show_progress_on=self.count,
            **HIDDEN,
        )
        demo.load(
            self.deep_link,
            [self.blind],
            [tabs, self.item_id, self.header],
            show_progress_on=self.header,  # not the tabs (see LeaderboardTab.wire_compare)
            **HIDDEN,
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

    def open_disagreement(self, evt: gr.SelectData, blind: bool) -> tuple[Any, ...]:
        row = evt.row_value if isinstance(evt.row_value, list) else []
        item_id = str(row[1]) if len(row) > 1 else ""
        return (gr.update(selected="browse"), item_id, self.item_ui(item_id, blind))

    def judge_choices(self) -> Any:
        """The judge filter's list as it is now (paper evaluators, then every stored judge
        submission); the chosen value stays."""
        return gr.update(choices=self.ctx.state.browse.judge_choices())

    def deep_link(self, request: gr.Request, blind: bool) -> tuple[Any, ...]:
        item_id = str(request.query_params.get("item", "") or "") if request else ""
        if not item_id:
            return (gr.skip(), gr.skip(), gr.skip())
        shown = item_id if len(item_id) <= MAX_ID else gr.skip()  # an id is never a path
        return (gr.update(selected="browse"), shown, self.item_ui(item_id, blind))


def _filters(browse: Any) -> dict[str, Any]:
    """The list's filters, search, count line and the list itself."""
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
    out["count"] = gr.Markdown(elem_id="mq-count")
    out["results"] = gr.Dataframe(
        label="Question sets (select a row to open it)",
        interactive=False,
        max_height=400,
        pinned_columns=1,
        elem_id="mq-items",
    )
    return out


def _item_view() -> dict[str, Any]:
    """The id box, the blind switch, the Open button and the item view (with the hidden
    tables ``/item`` returns besides the header)."""
    out: dict[str, Any] = {}
    with gr.Row():
        out["item_id"] = gr.Textbox(label="Item id", scale=2, elem_id="mq-item-id")
        out["blind"] = gr.Checkbox(label="blind (hide models, shuffle)", scale=1)
        out["open_button"] = gr.Button("Open", scale=1)
    out["header"] = gr.HTML(
        '<p class="mq-empty">Select a row above or enter an item id to open it.</p>',
        elem_id="mq-item",
    )
    out["answers"] = gr.Dataframe(label="Answers", interactive=False, visible=False)
    out["labels"] = gr.Dataframe(label="Labels", interactive=False, visible=False)
    return out


def add_browse_tab(ctx: TabContext) -> BrowseTab:
    """Lay out the Browse tab (inside ``gr.Tabs``) over the state in ``ctx``."""
    handlers = BrowseHandlers(ctx)
    with gr.Tab("Browse", id="browse", render_children=True) as tab:
        gr.Markdown(text.BROWSE_HELP)
        filters = _filters(ctx.state.browse)
        item_view = _item_view()
    return BrowseTab(
        tab=tab,
        **filters,
        **item_view,
        browse_items=handlers.browse_items,
        item=handlers.item,
        item_ui=handlers.item_ui,
        open_selected=handlers.open_selected,
        open_disagreement=handlers.open_disagreement,
        judge_choices=handlers.judge_choices,
        deep_link=handlers.deep_link,
    )
