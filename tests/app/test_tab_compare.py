"""The Compare tab's handlers: the page's comparison as plain HTML tables (issue 39: no
``gr.Dataframe``), each header with its glossary entry, and *open in Browse* read back."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gradio as gr
import pytest

from medqade.app import compare_views, glossary
from medqade.app.config import SpaceConfig
from medqade.dataset.release import Release

ANSWERS_ID = "mq-compare-disagreements"


class Tables(HTMLParser):
    """Each table's header titles and texts, and each link's ``data-mq-item`` and text (an
    independent reading of the HTML)."""

    def __init__(self) -> None:
        super().__init__()
        self.heads: list[tuple[str, str | None]] = []
        self.links: list[tuple[str | None, str]] = []
        self.rows = 0
        self._head: str | None = None
        self._link: str | None = None
        self._in_head = False
        self._in_link = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "thead":
            self._in_head = True
        if tag == "th" and self._in_head:
            self.heads.append(("", a.get("title")))
        if tag == "tr" and not self._in_head:
            self.rows += 1
        if tag == "a":
            self._in_link, self._link = True, a.get("data-mq-item")
            self.links.append((self._link, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._in_head = False
        if tag == "a":
            self._in_link = False

    def handle_data(self, data: str) -> None:
        if self._in_head and self.heads:
            name, title = self.heads[-1]
            self.heads[-1] = (name + data, title)
        if self._in_link:
            item, text = self.links[-1]
            self.links[-1] = (item, text + data)


def read(page: str) -> Tables:
    parsed = Tables()
    parsed.feed(page)
    return parsed


@pytest.fixture(scope="module")
def app(sample_release: Release, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from medqade.app.ui import build_app

    results: Path = tmp_path_factory.mktemp("results")
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=20)
    return build_app(sample_release, results, config, background=False, analyses=False)


def handler(demo: Any, name: str) -> Any:
    """The function of the (private) event handler ``name``."""
    return next(f.fn for f in demo.fns.values() if f.name == name)


def test_compare_draws_plain_tables_with_their_glossary(app: Any, sample_release: Release) -> None:
    judge = sample_release.roster.evaluator_ids[0]
    out = handler(app, "ui")(judge, "physicians", "core")
    assert len(out) == 5 and all(isinstance(part, str) for part in out)
    box = [b for b in app.blocks.values() if getattr(b, "elem_id", "") == ANSWERS_ID]
    assert len(box) == 1 and isinstance(box[0], gr.HTML)  # not a gr.Dataframe
    summary, overall, slots, tiers, answers = out
    assert f'data-mq-a="{judge}" data-mq-b="physicians"' in summary
    for table in (overall, slots, tiers):
        heads = read(table).heads
        assert [h for h, _ in heads] == list(compare_views.DIFF_COLUMNS)
        assert heads[0][1] is None  # the row names' column
        assert [t for _, t in heads[1:]] == [glossary.COMPARE[h] for h, _ in heads[1:]]
    parsed = read(answers)
    assert [h for h, _ in parsed.heads] == list(compare_views.DISAGREEMENT_COLUMNS)
    assert [t for _, t in parsed.heads] == [
        glossary.COMPARE_ANSWERS[h] for h in compare_views.DISAGREEMENT_COLUMNS
    ]
    c = app.medqade_state.compare(judge, "physicians", "core")
    assert c.n_disagreements > 0
    assert parsed.rows == len(c.disagreements)
    wanted = [str(row["answer_id"]).split("/", 1)[0] for row in c.disagreements]
    assert parsed.links == [(item, item) for item in wanted]  # one link per answer, its item
    assert f'href="?tab=browse&amp;item={html.escape(wanted[0])}"' in answers
    assert "mq-answers" in answers  # the scrolling box of the page's stylesheet


def test_open_in_browse_opens_the_sent_item_only(app: Any, sample_release: Release) -> None:
    open_item = handler(app, "open_item")
    item = str(sample_release.item_ids[0])
    tab, shown, header = open_item(SimpleNamespace(item=item), False)
    assert tab == gr.update(selected="browse") and shown == item
    assert f'data-mq-item="{item}"' in header
    for value in ("../../etc/passwd", "S-C01/gemma3:4b", "x" * 300, 7, None, ""):
        assert open_item(SimpleNamespace(item=value), False) == (gr.skip(),) * 3, value
    assert open_item(SimpleNamespace(), False) == (gr.skip(),) * 3  # no item sent


def test_the_jumps_between_tabs_show_progress_on_one_box_not_the_tabs(app: Any) -> None:
    """Issue 39: Gradio's front end refreshes the loading status of every component that was
    ever an event's progress target at each later event; for the tabs (or a whole held-back
    tab) that reads back every component of every tab. The events that switch tabs from
    Compare, the leaderboard and the page's first event keep their progress on one box."""
    tabs = next(b for b in app.blocks.values() if isinstance(b, gr.Tabs))
    for name in ("open_comparison", "open_item", "url_state", "deep_link", "open_disagreement"):
        fn = next(f for f in app.fns.values() if f.name == name)
        assert tabs in fn.outputs, name  # it does switch tabs
        shown = fn.show_progress_on
        assert shown is not None and len(shown) == 1, name
        assert not isinstance(shown[0], (gr.Tabs, gr.Tab)) and shown[0] in fn.outputs, name
        assert not getattr(shown[0], "children", None), name  # a single component


def test_vs_physicians_opens_compare_with_its_outputs_in_the_wirings_order(
    app: Any, sample_release: Release
) -> None:
    """The leaderboard's *vs physicians* event: the Compare tab, both rows, the view and
    Compare's own outputs (what its button returns) in the order the wiring lists them."""
    open_comparison = handler(app, "open_comparison")
    judge = sample_release.roster.evaluator_ids[0]
    out = open_comparison(SimpleNamespace(a=judge, b="physicians"), "core")
    assert len(out) == 9 and out[0] == gr.update(selected="compare")
    assert out[1:4] == (judge, "physicians", "core")
    assert out[4:] == handler(app, "ui")(judge, "physicians", "core")
    assert open_comparison(SimpleNamespace(a=judge), "core") == (gr.skip(),) * 9
