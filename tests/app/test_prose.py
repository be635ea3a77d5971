"""Markdown drawn on the server for the first screen (medqade.app.prose)."""

from __future__ import annotations

import gradio as gr

from medqade.app import prose, text


def test_renders_emphasis_headings_links_and_tables() -> None:
    out = prose.html(
        "# Title\n**bold** and *it* [doc](https://example.org/a)\n\n| a |\n|---|\n| 1 |"
    )
    assert "<h1>Title</h1>" in out
    assert "<strong>bold</strong>" in out and "<em>it</em>" in out
    assert '<a href="https://example.org/a">doc</a>' in out
    assert "<table>" in out and "<td>1</td>" in out


def test_raw_html_and_script_links_are_not_passed_through() -> None:
    out = prose.html(
        '<img src=x onerror="alert(1)"> <script>alert(2)</script> [x](javascript:alert(3))'
    )
    assert "<img" not in out and "<script" not in out
    assert "&lt;img" in out and "&lt;script&gt;" in out
    assert 'href="javascript' not in out


def test_empty_text_stays_empty() -> None:
    assert prose.html("") == ""


def test_block_is_an_html_component_with_the_prose_class_and_no_padding() -> None:
    with gr.Blocks():
        block = prose.block(text.LEADERBOARD_LEAD, elem_id="lead", elem_classes="extra")
    assert isinstance(block, gr.HTML)
    assert block.value == prose.html(text.LEADERBOARD_LEAD)
    assert block.elem_classes == [prose.CLASS, "extra"] and block.elem_id == "lead"
    assert block.padding is False
