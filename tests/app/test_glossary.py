"""The column glossary (issue 39): one entry per display column, used by tooltips and About."""

from __future__ import annotations

import html

import pandas as pd

from medqade.app import glossary, views
from medqade.app.board_table import board_html


def test_every_column_of_both_tables_has_exactly_one_entry() -> None:
    """The glossary lists the judges and models tables' columns, no more, no fewer."""
    assert list(glossary.JUDGES) == list(dict.fromkeys(glossary.JUDGES))
    assert set(glossary.JUDGES) == set(views.JUDGE_ALL)
    assert set(glossary.MODELS) == set(views.MODEL_ALL)
    assert all(len(words) > 15 for words in [*glossary.JUDGES.values(), *glossary.MODELS.values()])


def test_about_section_lists_every_entry_as_the_tooltips_say_it() -> None:
    text = glossary.markdown()
    assert text.startswith("## What the columns mean")
    for entries in (glossary.JUDGES, glossary.MODELS):
        for name, words in entries.items():
            assert f"- **{name}**: {words}" in text


def test_board_headers_carry_their_entry_as_title_escaped() -> None:
    table = pd.DataFrame({"rank": [1.0], "name": ['<b>"x"</b>'], "coverage": [1.0]})
    page = board_html(table, "Judges", titles={**glossary.JUDGES, "name": 'a "quoted" <tip>'})
    assert f'title="{html.escape(glossary.JUDGES["coverage"], quote=True)}"' in page
    assert 'title="a &quot;quoted&quot; &lt;tip&gt;"' in page
    assert "title=" not in board_html(table, "Judges")


def test_every_column_of_the_per_physician_table_has_exactly_one_entry() -> None:
    """The per-physician table (Table S4, with or without review codes) has a tooltip and a
    glossary entry for each of its headers, and the glossary nothing more."""
    from medqade.analyses.panel_table import HEADER

    assert set(glossary.PHYSICIANS) == {*HEADER, "Review codes"}
    assert all(len(words) > 15 for words in glossary.PHYSICIANS.values())
    assert "**Physicians one by one**" in glossary.markdown()
    for name, words in glossary.PHYSICIANS.items():
        assert f"- **{name}**: {words}" in glossary.markdown()


def test_every_column_of_the_compare_tables_has_exactly_one_entry() -> None:
    """Compare's difference tables and its answers labelled differently: each header but the
    row-name column has its entry (the tooltip), and About lists them."""
    from medqade.app import compare_views

    assert set(glossary.COMPARE) == set(compare_views.DIFF_COLUMNS) - {""}
    assert set(glossary.COMPARE_ANSWERS) == set(compare_views.DISAGREEMENT_COLUMNS)
    text = glossary.markdown()
    for title, entries in (
        ("Compare: A against B", glossary.COMPARE),
        ("Compare: answers labelled differently", glossary.COMPARE_ANSWERS),
    ):
        assert f"**{title}**" in text
        assert all(len(words) > 15 for words in entries.values())
        for name, words in entries.items():
            assert f"- **{name}**: {words}" in text
