"""Markdown drawn on the server, for the text a new visitor's first screen shows.

Gradio's ``gr.Markdown`` parses and sanitises its text in the browser: each one on the first
screen cost the page load some 20-30 ms of main-thread time here (issue 39; the figures are in
docs/space.md). The introduction, the Leaderboard's lead and its note are therefore
:func:`block`\\ s: ``gr.HTML`` holding the text rendered once by ``markdown-it-py``
(CommonMark and tables), with Gradio's prose styles. Raw HTML in the text is escaped, never
passed through, so a note that ever quoted a visitor's input could not inject markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Final

import gradio as gr
from markdown_it import MarkdownIt

CLASS: Final = "mq-prose"
"""The class of every :func:`block` (the stylesheet sets its spacing like Gradio's Markdown)."""


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def html(text: str) -> str:
    """``text`` (Markdown) as HTML; raw HTML in it is shown as text. ``""`` stays empty."""
    return _renderer().render(text) if text else ""


def block(text: str = "", **kwargs: Any) -> gr.HTML:
    """A ``gr.HTML`` showing ``text`` (Markdown) drawn by :func:`html`; set a new text with
    ``html(new_text)`` as the component's value."""
    classes = kwargs.pop("elem_classes", None) or []
    classes = [classes] if isinstance(classes, str) else list(classes)
    kwargs.setdefault("padding", False)  # flush with the page, as gr.Markdown is
    return gr.HTML(html(text), elem_classes=[CLASS, *classes], **kwargs)


__all__: Sequence[str] = ["CLASS", "block", "html"]
