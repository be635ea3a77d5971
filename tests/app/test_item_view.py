"""One Browse item's HTML (``medqade.app.item_view``): escaping, review lines, contradictions."""

from __future__ import annotations

from medqade import vocab
from medqade.app.item_view import answer_card, item_header, label_grid


def test_answer_card_escapes_and_keeps_review_lines() -> None:
    card = answer_card(
        "Answer 1",
        "<b>model</b>",
        "Niere & <script>",
        vocab.RICHTIG_CODE,
        (7, 2, 1),
        adjudicated=True,
        triggers=["physicians split"],
        reviews=["erste Zeile\nzweite <Zeile>"],
    )
    assert "&lt;b&gt;model&lt;/b&gt;" in card and "Niere &amp; &lt;script&gt;" in card
    assert "<script>" not in card
    assert "7 R / 2 F / 1 k.A." in card and " · adjudicated" in card
    assert "split</span>" in card and "filter: physicians split" in card
    assert "erste Zeile<br>zweite &lt;Zeile&gt;" in card
    assert 'class="mq-answer mq-hit"' in card


def test_item_header_link_is_quoted_and_escaped() -> None:
    header = item_header("S-C01", ["split core"], "Frage <1>", "Antwort")
    assert 'data-mq-item="S-C01"' in header and 'href="?item=S-C01"' in header
    assert "Frage &lt;1&gt;" in header


def test_label_grid_marks_a_contradiction_not_an_abstention() -> None:
    r, f, a = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE
    grid = label_grid([("P01", "physician", [f, a, r])], [r, r, -1], [False, True, False])
    assert grid.count("mq-contra") == 2  # the cell (F against R) and the legend
    assert "F ≠" in grid and "class=mq-hit" in grid
