"""The Compare tab: two judge rows on the same questions, paired differences, disagreements."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import gradio as gr

from medqade.app import compare_views, glossary
from medqade.app.board_table import event_text
from medqade.app.cells import plain
from medqade.app.context import HIDDEN, READS, TabContext
from medqade.app.html_table import html_table
from medqade.app.tab_browse import BrowseTab
from medqade.files.problems import InputError
from medqade.scoring.board import MAX_TOKEN
from medqade.scoring.record import jsonable

HELP = """\
Pick two judges. Both are scored against the physician consensus on the **same** questions and
the **same** bootstrap resamples, so their difference has a paired 95% interval (narrower than
two separate intervals suggest). *Significant* = the paired interval excludes 0. The physician
reference exists only on the core (the 200 questions all ten physicians rated).
"""
OVERALL: Final = "Macro agreement, A - B"
SLOTS: Final = "Kappa per student slot"
TIERS: Final = "Kappa per difficulty tier"
ANSWERS: Final = "Answers labelled differently (open in Browse)"
ANSWERS_JS: Final = f"""
element.addEventListener("click", (e) => {{
  const target = e.target instanceof Element ? e.target : null;
  const link = target && target.closest("a[data-{compare_views.ITEM_DATA}]");
  if (!link || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  trigger("select", {{item: link.dataset.mqItem}});
}});
"""
"""The answers table's page script (``js_on_load``): a plain click on *open in Browse* opens
the item on the Browse tab of this page (event ``select`` with ``{"item": id}``); a middle or
modified click opens the link's address in a new browser tab."""


@dataclass(frozen=True)
class CompareTab:
    tab: gr.Tab
    a: gr.Dropdown
    b: gr.Dropdown
    view: gr.Radio
    button: gr.Button
    summary: gr.HTML
    overall: gr.HTML
    slots: gr.HTML
    tiers: gr.HTML
    disagreements: gr.HTML
    api: Callable[[str, str, str], dict[str, Any]]
    ui: Callable[[str, str, str], tuple[Any, ...]]
    choices: Callable[[], list[tuple[str, str]]]

    def load(self, demo: gr.Blocks) -> None:
        """Open a ``?tab=compare&a=...&b=...&view=...`` link: pick both rows and compare."""

        def from_url(request: gr.Request) -> tuple[Any, ...]:
            params = request.query_params if request else {}
            a, b = str(params.get("a", "") or ""), str(params.get("b", "") or "")
            view = "full" if params.get("view") == "full" else "core"
            if params.get("tab") != "compare" or not a or not b:
                return tuple(gr.skip() for _ in range(8))
            # the ids are only looked up (never paths); one too long is not put in the list
            picked = tuple(t if len(t) <= MAX_TOKEN else gr.skip() for t in (a, b))
            return (*picked, view, *self.ui(a, b, view))

        outputs = [self.a, self.b, self.view, self.summary, self.overall, self.slots]
        outputs += [self.tiers, self.disagreements]
        demo.load(from_url, None, outputs, api_visibility="private")

    def wire(self, tabs: gr.Tabs, browse: BrowseTab) -> None:
        """Compare on the button, the public ``/compare``, the row lists refreshed on opening
        the tab; a click on an answer's *open in Browse* link opens that item on the Browse
        tab of the same page (the page script keeps the link from opening a new one)."""

        def open_item(evt: gr.EventData, blind: bool) -> tuple[Any, ...]:
            item = compare_views.linked_item(event_text(evt, "item"))
            if item is None:
                return (gr.skip(), gr.skip(), gr.skip())
            return (gr.update(selected="browse"), item, browse.item_ui(item, blind))

        outputs = [self.summary, self.overall, self.slots, self.tiers, self.disagreements]
        self.button.click(self.ui, [self.a, self.b, self.view], outputs, api_visibility="private")
        api = gr.Button(visible=False)
        api.click(
            self.api,
            [self.a, self.b, self.view],
            gr.JSON(visible=False),
            api_name="compare",
            api_description=self.api.__doc__,
            api_visibility="public",
            **READS,
        )
        self.disagreements.select(
            open_item,
            [browse.blind],
            [tabs, browse.item_id, browse.header],
            show_progress_on=browse.header,  # not the tabs (see LeaderboardTab.wire_compare)
            **HIDDEN,
        )
        self.tab.select(
            lambda: (
                gr.update(choices=self.choices()),
                gr.update(choices=self.choices()),
            ),
            None,
            [self.a, self.b],
            api_visibility="private",
            queue=False,
        )


@dataclass(frozen=True)
class CompareHandlers:
    """The public ``/compare`` and the page's comparison (headline and tables)."""

    ctx: TabContext

    def api(self, a: str, b: str, view: str) -> dict[str, Any]:
        """Compare judge rows `a` and `b` (a paper evaluator id, "physicians", a baseline id,
        or the record id of a judge row on the leaderboard; ids only, at most 200 characters,
        never a file) on `view` ("core" or "full"): A - B of kappa, PA and PABAK with paired
        95% CIs, per slot, per tier, and the answers they label differently. A side that
        names no row gives {"error": message}."""
        try:
            out: dict[str, Any] = jsonable(self.ctx.state.compare(a, b, view or "core").to_dict())
        except (ValueError, InputError) as exc:
            return {"error": str(exc)}
        return out

    def ui(self, a: str, b: str, view: str) -> tuple[Any, ...]:
        if not a or not b:
            return ("<p>Pick two judges.</p>", *(gr.skip() for _ in range(4)))
        try:
            c = self.ctx.state.compare(a, b, view or "core")
        except (ValueError, InputError) as exc:
            return (f"<p><strong>Cannot compare:</strong> {plain(str(exc))}</p>",) + (
                gr.skip(),
            ) * 4
        names = {m.id: m.name for m in self.ctx.release.roster.students}
        tips = glossary.COMPARE
        return (
            compare_views.headline_html(c),
            html_table(compare_views.overall_table(c), OVERALL, titles=tips),
            html_table(compare_views.slots_table(c, names), SLOTS, titles=tips),
            html_table(compare_views.tiers_table(c), TIERS, titles=tips),
            html_table(
                compare_views.disagreements_table(c),
                ANSWERS,
                "mq-answers",
                titles=glossary.COMPARE_ANSWERS,
            ),
        )


def _pickers(ctx: TabContext) -> tuple[gr.Dropdown, gr.Dropdown, gr.Radio]:
    """The two rows to compare (A: the first paper evaluator, B: the physicians) and the view."""
    choices = ctx.state.compare_choices()
    evaluators = ctx.release.roster.evaluator_ids
    with gr.Row(elem_classes="mq-stack-on-phone"):  # one per line on a phone: names whole
        a = gr.Dropdown(
            choices,
            value=evaluators[0] if evaluators else None,
            label="A",
            elem_id="mq-a",
            allow_custom_value=True,
        )
        b = gr.Dropdown(
            choices, value="physicians", label="B", elem_id="mq-b", allow_custom_value=True
        )
        view = gr.Radio(
            ["core", "full"], value="core", label="View", min_width=160, elem_id="mq-compare-view"
        )
    return a, b, view


def add_compare_tab(ctx: TabContext) -> CompareTab:
    """Lay out the Compare tab over the state in ``ctx``."""
    handlers = CompareHandlers(ctx)
    with gr.Tab("Compare", id="compare") as tab:
        gr.Markdown(HELP)
        a, b, view = _pickers(ctx)
        button = gr.Button("Compare", variant="primary", elem_id="mq-compare")
        summary = gr.HTML(elem_id="mq-compare-summary")
        # read-only tables nobody sorts: plain HTML, one innerHTML each (see html_table)
        overall = gr.HTML(elem_id="mq-compare-overall")
        with gr.Row(elem_classes="mq-stack-on-phone"):
            slots = gr.HTML(elem_id="mq-compare-slots")
            tiers = gr.HTML(elem_id="mq-compare-tiers")
        # up to 500 rows, read and clicked, never sorted or edited: a plain table too (a
        # gr.Dataframe cost each visit to the tab most of its time; issue 39)
        disagreements = gr.HTML(
            js_on_load=ANSWERS_JS, elem_id="mq-compare-disagreements", elem_classes="mq-inpage"
        )
    return CompareTab(
        tab,
        a,
        b,
        view,
        button,
        summary,
        overall,
        slots,
        tiers,
        disagreements,
        handlers.api,
        handlers.ui,
        ctx.state.compare_choices,
    )
