"""The Space in headless Chromium at desktop and phone size: screenshots, layout and links.

Every tab is photographed at 1440x900 and 390x844 into ``artifacts/`` (git-ignored; CI keeps it
as a test artefact). At 390 px the top judge's kappa must be on screen without sideways
scrolling; opening an item must change the address, and that address must open the item.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from matplotlib.text import Text

from medqade.app.config import SpaceConfig

from .helpers import Running, on_free_port

CHROMIUM = shutil.which("chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
TABS = ("Leaderboard", "Submit", "Browse", "Compare", "Analysis", "About")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` executable on PATH"),
]


@pytest.fixture(scope="module")
def space(sample_release: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """The Space with the paper's analyses (so the Analysis tab has figures)."""
    from medqade.app.ui import build_app, launch_kwargs

    results = tmp_path_factory.mktemp("results")
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=50)
    demo = build_app(sample_release, results, config, background=False)
    demo.queue(default_concurrency_limit=4)

    def on(port: int) -> None:
        kwargs = launch_kwargs(replace(config, port=port, host="127.0.0.1"))
        demo.launch(prevent_thread_lock=True, quiet=True, **kwargs)

    _, port = on_free_port(on)
    state = demo.medqade_state  # type: ignore[attr-defined]
    yield Running(demo, f"http://127.0.0.1:{port}/", state, results)
    demo.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield chromium
        chromium.close()


def open_page(browser: Any, url: str, size: dict[str, int], errors: list[str]) -> Any:
    from playwright.sync_api import expect

    page = browser.new_page(viewport=size)
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url, wait_until="domcontentloaded")
    expect(page.locator("#mq-judges")).to_contain_text("ceiling", timeout=60_000)
    # the models board comes with the page's first event, which shows what was held back
    page.wait_for_selector("#mq-models tbody tr", state="attached", timeout=60_000)
    return page


def click_tab(page: Any, name: str) -> None:
    """Click a tab (every tab is in the tab row at both sizes: it wraps, no overflow menu)."""
    page.get_by_role("tab", name=name).click()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_every_tab_screenshot(space: Running, browser: Any, size: dict[str, int]) -> None:
    """Every tab, a comparison and the per-physician table, photographed into ``artifacts/``."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        for name in TABS:
            click_tab(page, name)
            if name == "Analysis":
                expect(page.locator("#mq-analysis .mq-plot img").first).to_be_visible(
                    timeout=20_000
                )
            if name == "Browse":
                page.get_by_label("Item id").fill("S-C01")
                page.get_by_label("Item id").press("Enter")
                expect(page.locator("#mq-item .mq-grid")).to_be_visible(timeout=10_000)
            page.wait_for_timeout(300)
            shot = ARTIFACTS / f"space-{name.lower()}-{size['width']}x{size['height']}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 5_000
            if size is PHONE:
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= size["width"] + 1, f"{name} tab scrolls sideways ({wide} px)"
        # what two buttons open: a comparison and the per-physician table
        click_tab(page, "Compare")
        page.locator("#mq-compare").click()
        expect(page.locator("#mq-compare-summary [data-mq-a]")).to_be_visible(timeout=20_000)
        page.wait_for_timeout(300)
        shots = [ARTIFACTS / f"space-compare-run-{size['width']}x{size['height']}.png"]
        page.screenshot(path=str(shots[-1]), full_page=True)
        click_tab(page, "Leaderboard")
        page.locator("#mq-physicians-open").click()
        expect(page.locator("#mq-physicians tbody tr").first).to_be_visible(timeout=20_000)
        page.wait_for_timeout(300)
        shots.append(ARTIFACTS / f"space-physicians-{size['width']}x{size['height']}.png")
        page.screenshot(path=str(shots[-1]), full_page=True)
        assert all(shot.stat().st_size > 5_000 for shot in shots)
    finally:
        page.close()
    assert errors == []


def test_phone_shows_top_judge_kappa_without_sideways_scrolling(
    space: Running, browser: Any
) -> None:
    errors: list[str] = []
    page = open_page(browser, space.url, PHONE, errors)
    try:
        kappa = page.locator("#mq-cards .mq-card-kappa").first
        kappa.scroll_into_view_if_needed()
        box = kappa.bounding_box()
        assert box is not None and box["width"] > 0
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
        assert "κ 0." in kappa.inner_text() or "κ 1." in kappa.inner_text()
        # desktop does not show the cards
        page.set_viewport_size(DESKTOP)
        assert not page.locator("#mq-cards").is_visible()
    finally:
        page.close()
    assert errors == []


def test_opening_an_item_changes_the_address(space: Running, browser: Any) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, DESKTOP, errors)
    try:
        click_tab(page, "Browse")
        expect(page).to_have_url(re.compile(r"tab=browse"))
        first = page.locator("#mq-items .virtual-row").first
        expect(first).to_be_visible(timeout=10_000)
        first.locator(".body-cell").first.click()
        expect(page.locator("#mq-item [data-mq-item]")).to_be_attached(timeout=10_000)
        item = page.locator("#mq-item [data-mq-item]").get_attribute("data-mq-item")
        expect(page).to_have_url(re.compile(f"item={re.escape(str(item))}"))
        link = page.locator("#mq-item a[data-mq-link]")
        expect(link).to_have_text(f"{space.url}?item={item}")
        click_tab(page, "Analysis")
        expect(page).to_have_url(re.compile(r"^[^#]*\?tab=analysis$"))
    finally:
        page.close()
    assert errors == []


def test_deep_link_opens_item_tab_and_view(space: Running, browser: Any) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    page = browser.new_page(viewport=PHONE)
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{space.url}?tab=browse&item=S-C02", wait_until="domcontentloaded")
        expect(page.locator("#mq-item")).to_contain_text("Paracetamol", timeout=20_000)
        expect(page.locator("[data-tab-id=browse].selected").first).to_be_attached()
        grid = page.locator("#mq-item table.mq-grid")
        expect(grid).to_contain_text("consensus")
        expect(grid).to_contain_text("GPT-5.4 Mini")
        box = grid.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"]
        page.goto(f"{space.url}?tab=analysis&view=full", wait_until="domcontentloaded")
        expect(page.locator("[data-tab-id=analysis].selected").first).to_be_attached()
        expect(page).to_have_url(re.compile(r"tab=analysis&view=full"))
    finally:
        page.close()
    assert errors == []


def test_compare_deep_link_opens_and_the_address_follows(space: Running, browser: Any) -> None:
    """``?tab=compare&a=..&b=..`` opens the comparison; comparing others updates the address."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = browser.new_page(viewport=DESKTOP)
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(
            f"{space.url}?tab=compare&a=gemini-2.5-flash&b=physicians",
            wait_until="domcontentloaded",
        )
        summary = page.locator("#mq-compare-summary")
        expect(summary).to_contain_text("Gemini 2.5 Flash", timeout=30_000)
        expect(summary).to_contain_text("Physicians (leave-one-out)")
        expect(page.locator("[data-tab-id=compare].selected").first).to_be_attached()
        expect(page).to_have_url(re.compile(r"tab=compare.*a=gemini-2.5-flash.*b=physicians"))
        link = summary.locator("a[data-mq-link]")
        expect(link).to_have_text(re.compile(r"^http://127\.0\.0\.1:\d+/\?tab=compare&a="))
        # the read-only tables are plain HTML tables (issue 27's speed lever)
        overall = page.locator("#mq-compare-overall table")
        # a judge against the physicians: kappa, PA, PABAK in each physician's place, then
        # the same against the consensus (as on the leaderboard)
        expect(overall.locator("tbody tr")).to_have_count(6)
        expect(overall.locator("tbody tr").first).to_contain_text("kappa")
        expect(page.locator("#mq-compare-slots tbody tr")).to_have_count(5)
    finally:
        page.close()
    assert errors == []


def inside(box: dict[str, float] | None, size: dict[str, int]) -> bool:
    """Whether a bounding box lies wholly inside the viewport (no scrolling)."""
    return (
        box is not None
        and box["width"] > 0
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def test_first_screen_shows_top_judge_kappa_and_verdict(space: Running, browser: Any) -> None:
    """Issue 27: at 1440x900 the top judge's kappa and verdict cells are on the first screen
    (verdict beside kappa, the explanations folded); at 390x844 the first judge card is."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, DESKTOP, errors)
    try:
        page.wait_for_timeout(300)
        assert page.evaluate("window.scrollY") == 0
        board = page.locator("#mq-judges").get_by_role("table")
        headers = [h.strip() for h in board.get_by_role("columnheader").all_inner_texts()]
        kappa, ci, verdict = (headers.index(c) for c in ("kappa", "kappa 95% CI", "verdict"))
        assert verdict == ci + 1 == kappa + 2
        # the top ranked judge (the string baselines are shown but never ranked)
        top = board.get_by_role("row").filter(has_text="verified").filter(has_not_text="baseline")
        top = top.first
        expect(top).to_be_visible()
        cells = top.locator("th, td")
        assert cells.nth(0).inner_text().strip() == "1"  # the top judge: rank 1
        for k in (0, 2, kappa, ci, verdict):
            assert inside(cells.nth(k).bounding_box(), DESKTOP), headers[k]
        assert cells.nth(verdict).inner_text().strip()
        assert not page.get_by_text("simultaneous paired intervals").first.is_visible()
        page.set_viewport_size(PHONE)
        page.evaluate("window.scrollTo(0, 0)")
        card = page.locator("#mq-cards li.mq-card").first
        expect(card).to_be_visible()
        assert inside(card.bounding_box(), PHONE)
        ranked = page.locator(".mq-card-rank", has_text=re.compile(r"^\d"))
        top = page.locator("#mq-cards li.mq-card").filter(has=ranked).first
        assert top.locator(".mq-card-rank").inner_text().startswith("1")
        for part in (".mq-card-kappa", ".mq-card-verdict"):
            assert inside(top.locator(part).bounding_box(), PHONE), part
        assert top.locator(".mq-card-verdict").inner_text().strip()
    finally:
        page.close()
    assert errors == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_per_physician_button_opens_the_table_in_view(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Issue 27: a visible button opens the per-physician table and scrolls to it."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        assert not page.locator("#mq-physicians").is_visible()
        page.get_by_role("button", name="Per-physician agreement").click()
        first = page.locator("#mq-physicians").get_by_role("row").filter(has_text="P01").first
        expect(first).to_be_visible(timeout=30_000)
        expect(first).to_be_in_viewport(timeout=10_000)
        page.wait_for_timeout(500)
        assert inside(first.locator("th, td").first.bounding_box(), size)
    finally:
        page.close()
    assert errors == []


def test_semibold_text_is_drawn_with_a_complete_font(space: Running, browser: Any) -> None:
    """Gradio's semibold Source Sans is a subset without most capitals, so headings, judge
    cards and bold words drew "MedQADE" or "27B" with capitals of a fallback font. The page
    draws weight 600 with the complete bold file: text at that weight measures exactly as
    the same text in that file (loaded here under a name of its own)."""
    errors: list[str] = []
    page = open_page(browser, space.url, DESKTOP, errors)
    try:
        widths = page.evaluate(
            """async () => {
              const text = "MedQADE Gemma 3 27B PABAK";
              const file = "static/fonts/SourceSansPro/SourceSansPro-Bold.woff2";
              const probe = new FontFace("MQ probe", `url(${file})`, {weight: "600"});
              document.fonts.add(await probe.load());
              await document.fonts.load('600 20px "Source Sans Pro"', text);
              const c = document.createElement("canvas").getContext("2d");
              return ['"Source Sans Pro"', '"MQ probe"'].map((family) => {
                c.font = `600 20px ${family}`;
                return c.measureText(text).width;
              });
            }"""
        )
        assert widths[0] == pytest.approx(widths[1]) and widths[0] > 100
    finally:
        page.close()
    assert errors == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_judges_are_on_the_page_before_any_event_answers(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Issue 27 (page load under 1 s): the served page carries the default leaderboard, so
    the judges board (desktop) and judge cards (phone) show even when no event is answered."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport=size)
    asked: list[str] = []

    def refuse(route: Any) -> None:
        asked.append(route.request.url)
        route.abort()

    page.route("**/gradio_api/**", refuse)
    try:
        page.goto(space.url, wait_until="domcontentloaded")
        shown = "#mq-cards li.mq-card" if size is PHONE else "#mq-judges tbody tr"
        expect(page.locator(shown).first).to_be_visible(timeout=60_000)
        expect(page.locator("#mq-judges")).to_contain_text("ceiling")
        assert asked  # the page did ask (its load events), and was refused
    finally:
        page.close()


def test_judges_board_sorts_by_header_and_its_ceiling_row_opens_the_physicians(
    space: Running, browser: Any
) -> None:
    """The judges board (server-rendered HTML, issue 27's speed) keeps what the grid did: a
    header click sorts by that column (numbers by value, empty cells last; again: the other
    way), and a click on the physician ceiling row opens the per-physician table."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, DESKTOP, errors)
    try:
        headers = page.locator("#mq-judges thead th")
        names = [h.strip() for h in headers.all_inner_texts()]
        k = names.index("kappa")
        read = f"rs => rs.map(r => r.cells[{k}].dataset.v ?? null)"

        def kappas() -> list[float | None]:
            values = page.eval_on_selector_all("#mq-judges tbody tr", read)
            return [None if v is None else float(v) for v in values]

        shown = kappas()
        assert len([v for v in shown if v is not None]) >= 5
        for order in ("ascending", "descending"):
            headers.nth(k).get_by_role("button").click()
            expect(headers.nth(k)).to_have_attribute("aria-sort", order)
            got = kappas()
            known = [v for v in got if v is not None]
            assert known == sorted(known, reverse=order == "descending")
            assert got[len(known) :] == [None] * (len(got) - len(known))  # empty cells last
            assert sorted(known) == sorted(v for v in shown if v is not None)
        assert not page.locator("#mq-physicians").is_visible()
        page.locator("#mq-judges tr.mq-ceiling").click()
        first = page.locator("#mq-physicians").get_by_role("row").filter(has_text="P01").first
        expect(first).to_be_visible(timeout=30_000)
    finally:
        page.close()
    assert errors == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_table_links_switch_tabs_in_the_same_page(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Issue 27: the leaderboard's *vs physicians* opens Compare, and Compare's *open in
    Browse* opens the item in Browse, both in the same page (no new browser tab, no reload)."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport=size)
    errors: list[str] = []
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(space.url, wait_until="domcontentloaded")
        expect(page.locator("#mq-judges")).to_contain_text("ceiling", timeout=60_000)
        page.evaluate("window.__mq_same_page = 1")
        link = page.locator("#mq-judges a[href*='a=gemini-2.5-flash&']:visible").first
        link.scroll_into_view_if_needed()
        link.click()
        summary = page.locator("#mq-compare-summary")
        expect(summary).to_contain_text("Gemini 2.5 Flash", timeout=30_000)
        expect(summary).to_contain_text("Physicians (leave-one-out)")
        expect(page.locator("[data-tab-id=compare].selected").first).to_be_attached()
        to_browse = page.locator("#mq-compare-disagreements a[href*='tab=browse']:visible").first
        expect(to_browse).to_be_visible(timeout=10_000)
        item = to_browse.inner_text().strip()
        assert re.fullmatch(r"S-[CE]\d+", item)
        to_browse.click()
        shown = page.locator("#mq-item [data-mq-item]")
        expect(shown).to_have_attribute("data-mq-item", item, timeout=20_000)
        expect(page.locator("[data-tab-id=browse].selected").first).to_be_attached()
        expect(page).to_have_url(re.compile(f"tab=browse&item={item}$"))
        assert len(context.pages) == 1
        assert page.evaluate("window.__mq_same_page") == 1  # not reloaded
    finally:
        context.close()
    assert errors == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1440x900", "390x844"])
def test_every_tab_reachable_without_the_overflow_menu(
    space: Running, browser: Any, size: dict[str, int]
) -> None:
    """Issue 27: on a phone too every tab is a visible button of the tab row (the row wraps;
    Gradio's hidden "..." menu is gone), inside the viewport, and opens its tab."""
    from playwright.sync_api import expect

    errors: list[str] = []
    page = open_page(browser, space.url, size, errors)
    try:
        assert page.get_by_role("button", name="More tabs").count() == 0
        for name in TABS:
            tab = page.get_by_role("tab", name=name)
            expect(tab).to_be_visible()
            assert inside(tab.bounding_box(), size), name
        for name in reversed(TABS):
            page.get_by_role("tab", name=name).click()
            expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")
    finally:
        page.close()
    assert errors == []


def test_phone_cards_badge_each_row_and_come_first(space: Running, browser: Any) -> None:
    """Issue 27: on a phone the first judge cards are on the first screen, and each card says
    what its row is (the physicians' ceiling, verified, self-reported)."""
    errors: list[str] = []
    page = open_page(browser, space.url, PHONE, errors)
    try:
        cards = page.locator("#mq-cards li.mq-card")
        assert inside(cards.nth(1).bounding_box(), PHONE)
        ceiling = cards.filter(has_text="ceiling").first
        assert ceiling.locator(".mq-badge").inner_text() == "physicians"
        badges = {b.strip() for b in page.locator("#mq-cards .mq-badge").all_inner_texts()}
        assert "physicians" in badges and len(badges) >= 2
        assert all(cards.nth(k).locator(".mq-badge").count() == 1 for k in range(cards.count()))
    finally:
        page.close()
    assert errors == []


def test_phone_figure_text_at_least_11_css_px(space: Running, browser: Any) -> None:
    """Issue 27: on a 390 px phone the smallest text of every Analysis figure is at least
    11 CSS px (the figure's smallest font in points times the image's shown width over its
    width in points), and the page does not scroll sideways."""
    from playwright.sync_api import expect

    from medqade.app import analysis

    report = space.state.report.result(timeout=300)
    ratios = []  # smallest font (pt) per figure width (pt)
    for key, _, _ in analysis.FIGURES:
        fig = analysis.figure(report, key)
        fig.canvas.draw()
        sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
        ratios.append(min(sizes) / (fig.get_size_inches()[0] * 72))
    errors: list[str] = []
    page = open_page(browser, space.url, PHONE, errors)
    try:
        click_tab(page, "Analysis")
        images = page.locator("#mq-analysis .mq-plot img")
        expect(images.nth(len(analysis.FIGURES) - 1)).to_be_visible(timeout=60_000)
        widths = [images.nth(k).bounding_box()["width"] for k in range(len(analysis.FIGURES))]
        smallest = min(widths) * min(ratios)
        assert smallest >= 11, f"smallest figure text {smallest:.1f} CSS px"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
        page.screenshot(path=str(ARTIFACTS / "space-analysis-figure-390x844.png"))
    finally:
        page.close()
    assert errors == []
