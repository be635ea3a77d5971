"""Issue 39: the Space as a new visitor meets it, in headless Chromium at 1440x900 and 390x844.

Every figure starts inside its own box (none hangs off the left edge where no scrolling
reaches), every jump to an item lands with the item's heading on screen, every header of the
judges and models boards has a tooltip with its glossary entry, no figure's alt text is
Gradio's "undefined plot", no empty figure box is drawn, and the phone cards are legible.
"""

from __future__ import annotations

from typing import Any

import pytest

from medqade.app import glossary

from . import test_browser_layout as layout
from .helpers import Running
from .test_browser_layout import ARTIFACTS, CHROMIUM, DESKTOP, PHONE, click_tab, open_page

space = layout.space  # the module's fixtures: one Space and one browser for these tests too
browser = layout.browser

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` executable on PATH"),
]
SIZES = pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440x900", "390x844"])


def heading_in_view(page: Any) -> bool:
    """Whether the shown item's heading line lies wholly inside the viewport."""
    return bool(
        page.evaluate(
            """() => {
              const h = document.querySelector("#mq-item [data-mq-item] .mq-item-id");
              if (!h) return false;
              const r = h.getBoundingClientRect();
              return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
            }"""
        )
    )


def wait_heading(page: Any) -> None:
    page.wait_for_function(
        """() => {
          const h = document.querySelector("#mq-item [data-mq-item] .mq-item-id");
          if (!h) return false;
          const r = h.getBoundingClientRect();
          return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
        }""",
        timeout=10_000,
    )


def open_analysis(page: Any) -> Any:
    from playwright.sync_api import expect

    click_tab(page, "Analysis")
    images = page.locator("#mq-analysis .mq-plot img")
    expect(images.first).to_be_visible(timeout=60_000)
    # the figures arrive one after another: under load (CI at load 12-15) only the first was
    # there 500 ms after it showed; wait for the tests' minimum instead of a fixed pause
    page.wait_for_function(
        "document.querySelectorAll('#mq-analysis .mq-plot img').length >= 5", timeout=60_000
    )
    page.wait_for_timeout(500)
    return images


@SIZES
def test_every_figure_starts_inside_its_box(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 1: at 390 px each 600 px figure hung 137 px off the left edge of its box."""
    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        images = open_analysis(page)
        assert images.count() >= 5
        for k in range(images.count()):
            edges = images.nth(k).evaluate(
                """img => {
                  const box = img.closest(".mq-plot").getBoundingClientRect();
                  const r = img.getBoundingClientRect();
                  return [r.left, box.left, r.width];
                }"""
            )
            left, box_left, width = edges
            assert width > 0
            assert left >= box_left - 0.5 and left >= 0, f"figure {k}: left {left} < {box_left}"
        page.screenshot(
            path=str(ARTIFACTS / f"space-analysis-visitor-{size['width']}x{size['height']}.png")
        )
    finally:
        page.close()
    assert errors == []


@SIZES
def test_figures_have_real_alt_text_and_no_empty_box(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 7: every alt text was "undefined plot visualising provided data", and the cost
    figure without cost data was an empty 500 px box (now one line says what to submit)."""
    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        images = open_analysis(page)
        alts = [images.nth(k).get_attribute("alt") or "" for k in range(images.count())]
        assert alts and all("undefined" not in a for a in alts), alts
        assert all(a.startswith("Figure: ") and len(a) > 30 for a in alts), alts
        assert any("Accuracy" in a or "accuracy" in a for a in alts)
        cost = page.locator(".mq-empty-figure").filter(has_text="token counts")
        assert cost.count() >= 1 and cost.first.is_visible()
        assert "Inspect log" in cost.first.inner_text()
        visible = [images.nth(k).is_visible() for k in range(images.count())]
        assert all(visible)  # no hidden or blank image element left behind
    finally:
        page.close()
    assert errors == []


@SIZES
def test_deep_link_lands_on_the_item(space: Running, browser: Any, size: dict[str, int]) -> None:
    """Item 2: ``?item=`` opened the item 1,368 px (desktop) / 2,220 px (phone) down."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport=size)
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{space.url}?tab=browse&item=S-C02", wait_until="domcontentloaded")
        expect(page.locator("#mq-item")).to_contain_text("Paracetamol", timeout=20_000)
        wait_heading(page)
        assert heading_in_view(page)
        assert page.evaluate("document.activeElement.classList.contains('mq-item-id')")
    finally:
        page.close()


@SIZES
def test_open_in_browse_and_row_tap_land_on_the_item(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 2: Compare's "open in Browse" and a tap on a Browse row show the item on screen."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = browser.new_page(viewport=size)
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(
            f"{space.url}?tab=compare&a=gemini-2.5-flash&b=physicians",
            wait_until="domcontentloaded",
        )
        to_browse = page.locator("#mq-compare-disagreements a[href*='tab=browse']:visible").first
        expect(to_browse).to_be_visible(timeout=30_000)
        item = to_browse.inner_text().strip()
        to_browse.scroll_into_view_if_needed()
        to_browse.click()
        shown = page.locator("#mq-item [data-mq-item]")
        expect(shown).to_have_attribute("data-mq-item", item, timeout=20_000)
        wait_heading(page)
        # a tap on another row of the Browse table
        page.evaluate("window.scrollTo(0, 0)")
        rows = page.locator("#mq-items .virtual-row")
        expect(rows.first).to_be_visible(timeout=10_000)
        row = rows.nth(2)
        row.scroll_into_view_if_needed()
        row.locator(".body-cell").first.click()
        expect(shown).not_to_have_attribute("data-mq-item", item, timeout=20_000)
        wait_heading(page)
        assert heading_in_view(page)
    finally:
        page.close()
    assert errors == []


@SIZES
def test_every_board_header_has_its_glossary_tooltip(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 3: no header had a tooltip; the About tab lists every column the same way."""
    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        for board, entries in (("#mq-judges", glossary.JUDGES), ("#mq-models", glossary.MODELS)):
            heads = page.locator(f"{board} thead th")
            assert heads.count() >= 10
            for k in range(heads.count()):
                name = heads.nth(k).inner_text().strip()
                assert heads.nth(k).get_attribute("title") == entries[name], name
        click_tab(page, "About")
        about = page.locator("#mq-about-glossary")
        for name in [*glossary.JUDGES, *glossary.MODELS]:
            assert f"{name}:" in about.inner_text(), name
    finally:
        page.close()
    assert errors == []


def test_phone_cards_are_legible(space: Running, browser: Any) -> None:
    """Item 6: rank ranges wrapped ("8-" / "11"), the CI was 11.2 px and the verdict 11.9 px
    grey; View and Search sat below all the cards."""
    errors: list[str] = []
    page = open_page(browser, space.url, PHONE, errors)
    try:
        facts = page.evaluate(
            """() => [...document.querySelectorAll("#mq-cards li.mq-card")].map(li => {
              const rank = li.querySelector(".mq-card-rank");
              const range = document.createRange();
              range.selectNodeContents(rank);
              const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
              const ci = li.querySelector(".mq-card-kappa small");
              const verdict = li.querySelector(".mq-card-verdict");
              return {
                rank: rank.textContent, lines: tops.size,
                ci: ci ? parseFloat(getComputedStyle(ci).fontSize) : 99,
                verdict: parseFloat(getComputedStyle(verdict).fontSize),
              };
            })"""
        )
        assert len(facts) >= 5
        assert any("–" in f["rank"] for f in facts)
        for f in facts:
            assert f["lines"] == 1, f
            assert f["ci"] >= 13 and f["verdict"] >= 13, f
        search = page.locator("#mq-search").bounding_box()
        first_card = page.locator("#mq-cards li.mq-card").first.bounding_box()
        assert search is not None and first_card is not None
        assert search["y"] < first_card["y"]
        page.screenshot(path=str(ARTIFACTS / "space-cards-visitor-390x844.png"))
    finally:
        page.close()
    assert errors == []


@SIZES
def test_browse_grid_reads_like_the_page(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 8: the question sets were in a monospace font, a cut question had no ellipsis,
    and a click drew a spreadsheet's edit frame around the cell."""
    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        click_tab(page, "Browse")
        rows = page.locator("#mq-items .virtual-row")
        rows.first.wait_for()
        texts = page.locator("#mq-items .body-cell span.text")
        fonts = texts.evaluate_all("els => els.map(e => getComputedStyle(e).fontFamily)")
        assert fonts and not any("mono" in f.lower() for f in fonts), fonts[:3]
        cut = texts.evaluate_all(
            """els => els.filter(e => e.scrollWidth > e.clientWidth + 1)
                        .map(e => getComputedStyle(e).textOverflow)"""
        )
        if size is PHONE:  # the 390 px grid cuts the questions (the desktop's fits them)
            assert cut, "no question is cut at this width (the test needs one)"
        assert set(cut) <= {"ellipsis"}
        cell = rows.nth(1).locator(".body-cell").last
        cell.scroll_into_view_if_needed()
        cell.click()
        page.wait_for_timeout(300)
        frames = cell.evaluate(
            """c => [c, ...c.querySelectorAll("*")].map(e => getComputedStyle(e).boxShadow)
                   .filter(s => s !== "none")"""
        )
        assert frames == []
    finally:
        page.close()
    assert errors == []


@SIZES
def test_compare_before_and_after_the_first_run(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 6: before the first run a blank gap and a header-only table; on the phone the A
    and B names were cut ("Gemini 3 Flash (pa") under the dropdown's arrow. After the run
    every header has its tooltip (item 3)."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        click_tab(page, "Compare")
        button = page.locator("#mq-compare")
        expect(button).to_be_visible()
        table = page.locator("#mq-compare-disagreements").bounding_box()
        assert table is None or table["x"] + table["width"] <= 0  # no header-only table
        for box in ("#mq-compare-overall", "#mq-compare-slots", "#mq-compare-tiers"):
            assert not page.locator(box).is_visible(), box
        for side in ("#mq-a", "#mq-b"):
            field = page.locator(f"{side} input")
            fits = field.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
            assert fits, f"{side}: {field.input_value()!r} is cut"
        page.screenshot(
            path=str(ARTIFACTS / f"space-compare-empty-{size['width']}x{size['height']}.png")
        )
        button.click()
        expect(page.locator("#mq-compare-disagreements")).to_be_visible(timeout=30_000)
        expect(page.locator("#mq-compare-overall table")).to_be_visible()
        # issue 39: plain tables whose headers carry their glossary entry as the tooltip
        for box, entries in (
            ("#mq-compare-overall", glossary.COMPARE),
            ("#mq-compare-disagreements", glossary.COMPARE_ANSWERS),
        ):
            heads = page.eval_on_selector_all(
                f"{box} thead th", "hs => hs.map(h => [h.textContent.trim(), h.title])"
            )
            assert [n for n, _ in heads if n] == list(entries), box
            assert all(title == entries[n] for n, title in heads if n), box
        assert page.locator("#mq-compare-disagreements .virtual-row").count() == 0
    finally:
        page.close()
    assert errors == []


@SIZES
def test_every_board_row_line_falls_on_a_whole_pixel(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Item 8: the pinned columns of the judges table drew their row lines on only some rows:
    rows 23.64 px high put most 1 px lines between two pixels, where they fade away."""
    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        for board in ("#mq-judges", "#mq-models"):
            edges = page.eval_on_selector_all(
                f"{board} tbody tr",
                """rows => rows.map(r => {
                  const top = r.closest(".mq-board").getBoundingClientRect().top;
                  return r.cells[0].getBoundingClientRect().bottom - top;
                })""",
            )
            assert len(edges) >= 5
            off = [e for e in edges if abs(e - round(e)) > 0.01]
            assert off == [], f"{board}: row edges between pixels {off[:4]}"
    finally:
        page.close()
    assert errors == []


def test_phone_compare_tables_fit_without_sideways_scrolling(space: Running, browser: Any) -> None:
    """Item 6: on the phone Compare's tables cut their CI column (418 px in a 302 px box)."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport=PHONE)
    page.set_default_timeout(60_000)
    try:
        page.goto(
            f"{space.url}?tab=compare&a=gemini-2.5-flash&b=physicians",
            wait_until="domcontentloaded",
        )
        expect(page.locator("#mq-compare-tiers table")).to_be_visible(timeout=30_000)
        wide = page.evaluate(
            """() => [...document.querySelectorAll("[id^=mq-compare-] .mq-table")]
                 .filter(e => e.scrollWidth > e.clientWidth + 1)
                 .map(e => [e.closest("[id]").id, e.scrollWidth, e.clientWidth])"""
        )
        assert wide == []
        page.screenshot(path=str(ARTIFACTS / "space-compare-run-390x844.png"), full_page=True)
    finally:
        page.close()
