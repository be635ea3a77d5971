"""The Compare tab: two judge rows on the same questions, paired differences, disagreements."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import gradio as gr
import pandas as pd

from medqade.app import compare_views, deferred
from medqade.app.cells import plain
from medqade.app.context import HIDDEN, READS, TabContext, frame
from medqade.app.deferred import Door, hidden, on_demand
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


@dataclass(frozen=True)
class CompareTab:
    """The tab (built on demand, :func:`medqade.app.deferred.on_demand`), its door and the
    handlers; :meth:`wire` adds the public ``/compare`` once the tabs exist."""

    tab: gr.Tab
    door: Door
    api: Callable[[str, str, str], dict[str, Any]]
    ui: Callable[[str, str, str], tuple[Any, ...]]
    choices: Callable[[], list[tuple[str, str]]]
    build: Callable[[gr.Tabs, BrowseTab, dict[str, Any]], None]

    @staticmethod
    def ask(a: str, b: str, view: str) -> tuple[str, str]:
        """The values of :attr:`door`'s outputs that open the comparison of ``a`` and ``b``."""
        return Door.ask(a=a, b=b, view=view)

    def from_url(self, params: Any) -> tuple[str, str] | None:
        """The door's values for a ``?tab=compare&a=...&b=...&view=...`` link (``None``: not
        such a link; ids longer than :data:`MAX_TOKEN` are not put in the lists)."""
        a, b = str(params.get("a", "") or ""), str(params.get("b", "") or "")
        if params.get("tab") != "compare" or not a or not b:
            return None
        view = "full" if params.get("view") == "full" else "core"
        return self.ask(a, b, view)

    def wire(self, tabs: gr.Tabs, browse: BrowseTab) -> None:
        """The public ``/compare`` (on hidden copies of the pickers: the tab's own are built on
        demand); the tab's contents and their events when it first opens."""
        with hidden():
            a, b, view = _pickers(self.choices(), None)
            api = gr.Button()
            out = gr.JSON()
        api.click(
            self.api,
            [a, b, view],
            out,
            api_name="compare",
            api_description=self.api.__doc__,
            api_visibility="public",
            **READS,
        )
        on_demand(self.tab, self.door, lambda asked: self.build(tabs, browse, asked))


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
        return (
            compare_views.headline_html(c),
            html_table(compare_views.overall_table(c), OVERALL),
            html_table(compare_views.slots_table(c, names), SLOTS),
            html_table(compare_views.tiers_table(c), TIERS),
            frame(compare_views.disagreements_table(c)),
        )


def _pickers(
    choices: list[tuple[str, str]], first: str | None, asked: dict[str, Any] | None = None
) -> tuple[gr.Dropdown, gr.Dropdown, gr.Radio]:
    """The two rows to compare (A: ``first``, the first paper evaluator; B: the physicians)
    and the view, or the rows and view ``asked`` for."""
    asked = asked or {}
    # the ids are only looked up (never paths); one too long is not put in the list
    a_value = _listed(asked.get("a")) or first or None
    b_value = _listed(asked.get("b")) or "physicians"
    view_value = "full" if asked.get("view") == "full" else "core"
    # interactive said outright: built in a render, an event's output is drawn disabled
    with gr.Row(elem_classes="mq-stack-on-phone"):  # one per line on a phone: names whole
        a, b = (
            gr.Dropdown(
                choices,
                value=value,
                label=side,
                elem_id=f"mq-{side.lower()}",
                allow_custom_value=True,
                interactive=True,
            )
            for side, value in (("A", a_value), ("B", b_value))
        )
        view = gr.Radio(
            ["core", "full"],
            value=view_value,
            label="View",
            min_width=160,
            elem_id="mq-compare-view",
            interactive=True,
        )
    return a, b, view


@dataclass(frozen=True)
class CompareBuilder:
    """The tab's contents, built the first time it opens (with the comparison asked for, if
    any), and their events: the Compare button, *open in Browse*, the row lists refreshed on
    each opening, and each later request (a *vs physicians* link) answered in place."""

    ctx: TabContext
    tab: gr.Tab
    door: Door
    handlers: CompareHandlers

    def __call__(self, tabs: gr.Tabs, browse: BrowseTab, asked: dict[str, Any]) -> None:
        ui, choices = self.handlers.ui, self.ctx.state.compare_choices
        evaluators = self.ctx.release.roster.evaluator_ids
        gr.Markdown(HELP)
        pickers = _pickers(choices(), evaluators[0] if evaluators else None, asked)
        button = gr.Button("Compare", variant="primary", elem_id="mq-compare")
        wanted = _wanted(asked)
        first = ui(*wanted) if wanted is not None else ("", "", "", "", None)
        summary = gr.HTML(_value(first[0]), elem_id="mq-compare-summary")
        # read-only tables nobody sorts: plain HTML, one innerHTML each (see html_table)
        overall = gr.HTML(_value(first[1]), elem_id="mq-compare-overall")
        with gr.Row(elem_classes="mq-stack-on-phone"):
            slots = gr.HTML(_value(first[2]), elem_id="mq-compare-slots")
            tiers = gr.HTML(_value(first[3]), elem_id="mq-compare-tiers")
        table = first[4] if isinstance(first[4], dict) else {}
        disagreements = gr.Dataframe(
            table.get("value", _no_disagreements()),
            datatype=table.get("datatype", "str"),
            label="Answers labelled differently (open in Browse)",
            interactive=False,
            max_height=400,
            elem_id="mq-compare-disagreements",
            elem_classes="mq-inpage",
        )
        outputs = [summary, overall, slots, tiers, disagreements]
        button.click(ui, list(pickers), outputs, api_visibility="private")

        def answer(request: str) -> tuple[Any, ...]:
            wanted = _wanted(deferred.asked(request))
            if wanted is None:
                return tuple(gr.skip() for _ in range(8))
            a, b, view = wanted
            picked = tuple(t if _listed(t) else gr.skip() for t in (a, b))
            return (*picked, view, *ui(a, b, view))

        self.door.request.change(answer, self.door.request, [*pickers, *outputs], **HIDDEN)

        def open_item(evt: gr.SelectData) -> tuple[Any, ...]:
            item = compare_views.linked_item(evt.value)
            if item is None:
                return (gr.skip(), gr.skip(), gr.skip())
            return (gr.update(selected="browse"), *browse.ask(item))

        disagreements.select(open_item, None, [tabs, *browse.door.outputs], **HIDDEN)
        self.tab.select(
            lambda: (gr.update(choices=choices()), gr.update(choices=choices())),
            None,
            list(pickers[:2]),
            **HIDDEN,
        )


def _listed(token: Any) -> str | None:
    """A requested row id as the list may show it (``None``: none, or longer than
    :data:`MAX_TOKEN`)."""
    token = str(token or "")
    return token if token and len(token) <= MAX_TOKEN else None


def _wanted(asked: dict[str, Any]) -> tuple[str, str, str] | None:
    """The rows and view a request asks for (``None``: no comparison asked)."""
    a, b = str(asked.get("a") or ""), str(asked.get("b") or "")
    if not a or not b:
        return None
    return a, b, "full" if asked.get("view") == "full" else "core"


def _value(part: Any) -> Any:
    """A component's first value from one of :meth:`CompareHandlers.ui`'s outputs (an update
    or a skip: nothing)."""
    if isinstance(part, dict):
        return part.get("value")
    return part if isinstance(part, (str, pd.DataFrame)) else None


def _no_disagreements() -> pd.DataFrame:
    return pd.DataFrame(columns=list(compare_views.DISAGREEMENT_COLUMNS))


def add_compare_tab(ctx: TabContext, door: Door) -> CompareTab:
    """Lay out the Compare tab over the state in ``ctx``: only the tab; its contents are
    built when it first opens through ``door`` (:meth:`CompareTab.wire`; the door is made
    before the tabs: it lives outside them)."""
    handlers = CompareHandlers(ctx)
    with gr.Tab("Compare", id="compare") as tab:
        pass
    return CompareTab(
        tab,
        door,
        handlers.api,
        handlers.ui,
        ctx.state.compare_choices,
        CompareBuilder(ctx, tab, door, handlers),
    )
