"""What the served page holds back until the judges show: the parts a first screen does not need.

Gradio's page fetches the script of every component type whose ``visible`` is not ``False``
in the page's config, on every tab and inside closed accordions, and builds each component
before it draws the first tab. A component sent hidden costs neither: its script is fetched
when an update shows it. :func:`hold_back` hides, in the served config, everything on the
tabs other than the first and, on the first tab, the contents of its closed accordions and
the ``extra`` blocks given (its downloads); the page's first event shows them again
(:func:`shown`), so they are there a moment after the judges, before a visitor can open a
tab or a fold. What is hidden on purpose stays hidden: only blocks built visible are held.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import gradio as gr
from gradio.blocks import Block
from gradio.layouts import Form


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
    order, for :func:`shown`. ``first``: the id of the tab the page opens on."""
    held: list[Block] = []
    seen: set[int] = set()
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
            if _holdable(block) and id(block) not in seen:
                seen.add(id(block))
                held.append(block)
    for block in held:
        block.visible = False
    return held


def shown(held: Sequence[Block]) -> tuple[Any, ...]:
    """The updates that show ``held`` again (outputs of the page's first event)."""
    return tuple(gr.update(visible=True) for _ in held)


__all__: Sequence[str] = ["hold_back", "shown"]
