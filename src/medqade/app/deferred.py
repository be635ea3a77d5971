"""What the served page holds back until the judges show: the parts a first screen does not need.

Gradio's page fetches the script of every component type whose ``visible`` is not ``False``
in the page's config, on every tab and inside closed accordions, and builds each component
before it draws the first tab. A component sent hidden costs neither: its script is fetched
when an update shows it. :func:`hold_back` hides, in the served config, everything on the
tabs other than the first and, on the first tab, the contents of its closed accordions and
the ``extra`` blocks given (its downloads); the page's first event shows them again
(:func:`shown`), so they are there a moment after the judges, before a visitor can open a
tab or a fold. What is hidden on purpose stays hidden: only blocks built visible are held.

Hidden components still travel in the config and the page still builds them, so the tabs a
first screen does not need are not in the served page at all: each is built on demand
(:func:`on_demand`, a ``gr.render`` inside the tab) the first time it opens, by a click on
its button, a link from another tab or a deep link. A :class:`Door` carries that: ``flag``
(a hidden textbox the tab's button sets in the page, without a round trip; its first change
builds the tab) and ``request`` (what another tab asks it to show, :meth:`Door.ask`; the
built tab answers each change of it). The public API endpoints stay outside the renders, on
hidden copies of their inputs (:func:`hidden`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import gradio as gr
from gradio.blocks import Block, BlockContext
from gradio.components import Component
from gradio.context import get_blocks_context
from gradio.layouts import Form

OPEN: Final = "open"
"""The flag's value once its tab was asked for."""
_asked = itertools.count(1)


def _below(block: Block) -> Iterator[Block]:
    """The blocks inside ``block`` (not itself), depth first."""
    for child in getattr(block, "children", None) or ():
        yield child
        yield from _below(child)


def _holdable(block: Block) -> bool:
    """A block the page draws and an update can show: built visible, not a session value or
    one of Gradio's own form wrappers."""
    if isinstance(block, (gr.State, Form)):
        return False
    return getattr(block, "visible", None) is True


def hold_back(tabs: gr.Tabs, first: str, extra: Iterable[Block] = ()) -> list[Block]:
    """Hide what the first screen does not need (see the module) and return it, in page
    order, for :func:`shown`. ``first``: the id of the tab the page opens on. A tab built on
    demand is not held: its render's container is all the served page has of it."""
    held: list[Block] = []
    context = get_blocks_context()
    renders = {r.container_id for r in context.renderables} if context else set()
    seen: set[int] = set(renders)
    for tab in tabs.children:
        if getattr(tab, "id", None) == first:
            roots: list[Block] = [
                a for a in _below(tab) if isinstance(a, gr.Accordion) and a.open is False
            ]
            candidates = [b for root in roots for b in _below(root)]
            for block in extra:
                candidates += [block, *_below(block)]
        else:
            candidates = list(_below(tab))
        for block in candidates:
            if _holdable(block) and block._id not in seen:
                seen.add(block._id)
                held.append(block)
    for block in held:
        block.visible = False
    return held


def shown(held: Sequence[Block]) -> tuple[Any, ...]:
    """The updates that show ``held`` again (outputs of the page's first event)."""
    return tuple(gr.update(visible=True) for _ in held)


@dataclass(frozen=True)
class Door:
    """How a tab built on demand is opened (see the module): ``flag`` builds it on its first
    change, ``request`` carries what another tab or a deep link asks it to show."""

    flag: gr.Textbox
    request: gr.Textbox

    @classmethod
    def make(cls) -> Door:
        """Two hidden textboxes (outside every tab: build it before the tabs)."""
        return cls(gr.Textbox(visible=False), gr.Textbox(visible=False))

    @property
    def outputs(self) -> list[gr.Textbox]:
        """What an event that opens the tab fills besides the tabs: :meth:`ask`'s two values."""
        return [self.request, self.flag]

    @staticmethod
    def ask(**what: Any) -> tuple[str, str]:
        """The request (JSON, numbered so that asking twice for the same thing is a change
        too) and the flag: the values of :attr:`outputs`."""
        return json.dumps({"n": next(_asked), **what}), OPEN


def asked(request: str | None) -> dict[str, Any]:
    """What a :meth:`Door.ask` request holds (``{}``: none, or not one of ours)."""
    try:
        value = json.loads(request or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def on_demand(tab: gr.Tab, door: Door, build: Callable[[dict[str, Any]], None]) -> None:
    """Inside ``tab`` (laid out already; its place among the tabs is kept): build its contents
    with ``build(request)`` the first time ``door``'s flag changes (the tab's button sets it
    in the page, so opening it costs one round trip: the render's). Events ``build`` adds live
    with what it built; those that must answer a later request listen to ``door.request``'s
    change."""
    parent = tab.parent
    with tab:

        @gr.render(  # type: ignore[untyped-decorator]
            inputs=[door.flag, door.request],
            triggers=[door.flag.change],
            queue=False,
            show_progress="hidden",
        )
        def _contents(flag: str | None, request: str | None) -> None:
            if flag == OPEN:
                build(asked(request))

    tab.parent = parent  # entering it again made the page its parent
    tab.select(None, None, door.flag, js=f"() => {json.dumps(OPEN)}")


@contextmanager
def hidden() -> Iterator[None]:
    """Components built inside are sent hidden, without element ids and without the rows,
    columns and forms they were laid out in: the inputs and outputs of a public API endpoint
    whose page components are built on demand, made by the same code as those (same types,
    choices and limits), at the cost of one hidden column and form in the page's config."""
    context = get_blocks_context()
    with gr.Column(visible=False) as box:
        yield
    inside = list(_below(box))
    box.children = []
    for block in inside:
        if isinstance(block, BlockContext) and not isinstance(block, Component):  # layout
            if context is not None:
                context.blocks.pop(block._id, None)
            continue
        if not isinstance(block, gr.State):
            block.visible = False
        block.elem_id = None
        box.add(block)
    box.fill_expected_parents()


__all__: Sequence[str] = ["OPEN", "Door", "asked", "hidden", "hold_back", "on_demand", "shown"]
