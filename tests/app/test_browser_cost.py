"""Issue 37: the Analysis tab's cost frontier in headless Chromium at 1440x900 and 390x844.

With two judges whose submissions reported token counts and prices the frontier figure shows
inside its box; with none, one line says what to submit and no figure box is drawn.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from medqade.dataset.release import Release

from .helpers import Running, judge_variant
from .test_browser_layout import ARGS, ARTIFACTS, CHROMIUM, DESKTOP, PHONE, click_tab, open_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` executable on PATH"),
]
FIELDS = {
    "kind": "judge",
    "model_id": "",
    "revision": "",
    "family": "GPT",
    "organisation": "Example Lab",
    "link": "",
    "prompt": "official",
    "prompt_sha256": "",
    "decoding": "temperature 0",
    "notes": "",
}


def costed_judge(release: Release, folder: Path, k: int, tokens: int, price: float) -> Path:
    """A judge of its own (row ``k`` relabelled) as JSON Lines whose meta line reports its
    token counts and prices."""
    usage = {
        "input_tokens": tokens,
        "output_tokens": tokens // 20,
        "price_in": price,
        "price_out": 4 * price,
    }
    rows = judge_variant(release, k).to_dict(orient="records")
    lines = [json.dumps({"meta": {"usage": usage}})] + [json.dumps(r) for r in rows]
    path = folder / f"costed{k}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _analysis(page: Any) -> None:
    from playwright.sync_api import expect

    click_tab(page, "Analysis")
    expect(page.locator("#mq-analysis")).to_be_visible(timeout=20_000)


def _browser() -> Any:
    from playwright.sync_api import sync_playwright

    return sync_playwright()


def test_two_costed_judges_draw_the_frontier_at_both_sizes(
    launch: Callable[..., Running], sample_release: Release, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    app = launch()
    for k, (tokens, price) in enumerate(((400_000, 0.1), (9_000_000, 2.5))):
        path = costed_judge(sample_release, tmp_path, k + 1, tokens, price)
        outcome = app.state.submit(path, "judge", FIELDS | {"name": f"Costed {k}"}, None)
        assert outcome.ok, outcome.message
    errors: list[str] = []
    with _browser() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for size in (DESKTOP, PHONE):
                page = open_page(browser, app.url, size, errors)
                _analysis(page)
                image = page.locator("#mq-cost-figure img")
                expect(image).to_be_visible(timeout=60_000)
                image.scroll_into_view_if_needed()
                page.wait_for_timeout(300)
                left, box_left, width = image.evaluate(
                    """img => {
                      const box = img.closest(".mq-plot").getBoundingClientRect();
                      const r = img.getBoundingClientRect();
                      return [r.left, box.left, r.width];
                    }"""
                )
                assert width > 0 and left >= box_left - 0.5  # starts inside its box
                assert not page.locator("#mq-cost-empty").is_visible()
                ARTIFACTS.mkdir(exist_ok=True)
                shot = f"space-cost-frontier-{size['width']}x{size['height']}.png"
                page.locator("#mq-cost-figure").screenshot(path=str(ARTIFACTS / shot))
                page.close()
        finally:
            browser.close()
    assert errors == []


def test_without_cost_one_line_says_what_to_submit_and_no_box(
    launch: Callable[..., Running],
) -> None:
    from playwright.sync_api import expect

    app = launch()
    errors: list[str] = []
    with _browser() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for size in (DESKTOP, PHONE):
                page = open_page(browser, app.url, size, errors)
                _analysis(page)
                line = page.locator("#mq-cost-empty")
                expect(line).to_be_visible(timeout=60_000)
                said = line.inner_text()
                assert "--price-in" in said and "Inspect log" in said and "usage" in said
                box = page.locator("#mq-cost-figure")
                assert box.count() == 0 or not box.is_visible()
                assert page.locator("#mq-cost-figure img").count() == 0
                page.close()
        finally:
            browser.close()
    assert errors == []


def test_submit_form_prices_at_both_sizes_reach_the_record(
    launch: Callable[..., Running], sample_release: Release, tmp_path: Path
) -> None:
    """The Submit tab's two price fields: on the page beside each other at 1440x900 and
    390x844 without sideways scrolling; a negative price typed in is refused with the
    library's message, valid ones are stored in the record's usage (a CSV has no token
    counts: the warnings say there is no cost)."""
    import re

    from playwright.sync_api import expect

    app = launch()
    path = tmp_path / "judge.csv"
    judge_variant(sample_release, 2).to_csv(path, index=False)
    errors: list[str] = []
    with _browser() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            for size in (PHONE, DESKTOP):
                page = open_page(browser, app.url, size, errors)
                click_tab(page, "Submit")
                price_in = page.get_by_label("Price per million input tokens (EUR)")
                price_out = page.get_by_label("Price per million output tokens (EUR)")
                expect(price_in).to_be_visible(timeout=60_000)
                a, b = price_in.bounding_box(), price_out.bounding_box()
                assert a is not None and b is not None
                assert a["y"] == b["y"] and a["x"] + a["width"] <= b["x"]  # one row
                assert b["x"] + b["width"] <= size["width"]
                wide = page.evaluate("document.documentElement.scrollWidth")
                assert wide <= size["width"] + 1, f"the Submit tab scrolls sideways ({wide} px)"
                ARTIFACTS.mkdir(exist_ok=True)
                shot = ARTIFACTS / f"space-submit-prices-{size['width']}x{size['height']}.png"
                page.locator("#mq-price-in").scroll_into_view_if_needed()
                page.screenshot(path=str(shot))
                if size is PHONE:
                    page.close()
                    continue
                page.locator("#mq-upload input[type=file]").set_input_files(str(path))
                price_in.fill("-1")
                page.get_by_role("button", name="Check and score").click()
                status = page.locator("#mq-status textarea")
                expect(status).to_have_value(re.compile(r"^Not accepted"), timeout=60_000)
                expect(page.locator("#mq-problems")).to_contain_text(
                    "expected a non-negative finite number (EUR per million tokens)"
                )
                page.close()  # a fresh page: the refused upload was deleted on the server
                page = open_page(browser, app.url, size, errors)
                click_tab(page, "Submit")
                page.locator("#mq-upload input[type=file]").set_input_files(str(path))
                page.get_by_label("Price per million input tokens (EUR)").fill("0.25")
                page.get_by_label("Price per million output tokens (EUR)").fill("1.5")
                page.get_by_role("button", name="Check and score").click()
                status = page.locator("#mq-status textarea")
                expect(status).to_have_value(re.compile(r"^Accepted"), timeout=60_000)
                warnings = page.get_by_label("Warnings")  # no token counts in a CSV
                expect(warnings).to_have_value(re.compile("no cost computed"), timeout=30_000)
                page.close()
        finally:
            browser.close()
    (stored,) = app.state.store.records()
    usage = stored.to_json()["meta"]["usage"]
    assert usage == {"price_in": 0.25, "price_out": 1.5}
    assert errors == []
