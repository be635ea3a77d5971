"""End to end in a real headless Chromium (the system executable, driven by Playwright)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from .helpers import IMG, SCRIPT

CHROMIUM = shutil.which("chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` executable on PATH"),
]


def test_browser_submit_score_browse_filter(launch, judge_csv: Path, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    app = launch()
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
            page.goto(app.url, wait_until="domcontentloaded")
            expect(page.locator("#mq-judges")).to_contain_text("GPT-5.4 Mini", timeout=20_000)

            # submit a judge file with markup in its metadata; see the score
            page.get_by_role("tab", name="Submit").click()
            page.locator("#mq-upload input[type=file]").set_input_files(str(judge_csv))
            page.get_by_label("Display name").fill(SCRIPT)
            page.get_by_label("Organisation").fill(IMG)
            page.get_by_role("button", name="Check and score").click()
            status = page.locator("#mq-status textarea")
            expect(status).to_have_value(re.compile(r"^Accepted: .*core kappa"), timeout=30_000)
            expect(page.locator("#mq-summary")).to_contain_text("kappa", timeout=10_000)
            page.get_by_role("tab", name="Leaderboard").click()
            expect(page.locator("#mq-judges")).to_contain_text("__mq_xss", timeout=10_000)
            assert page.evaluate("window.__mq_xss") is None
            assert page.locator("img[src='x']").count() == 0
            assert page.locator("script:has-text('__mq_xss')").count() == 0

            # browse: filter, open an item
            page.get_by_role("tab", name="Browse").click()
            expect(page.locator("#mq-count")).to_contain_text("of 6 question sets")
            page.get_by_label("physicians split").check()
            expect(page.locator("#mq-count")).not_to_contain_text("6 of 6", timeout=10_000)
            page.get_by_label("Item id").fill("S-E01")
            page.get_by_role("button", name="Open").click()
            expect(page.locator("#mq-item")).to_contain_text("Karpaltunnelsyndrom")
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "space-browse.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"screenshot: {shot}")

            # deep link
            page.goto(f"{app.url}?item=S-C02", wait_until="domcontentloaded")
            expect(page.locator("#mq-item")).to_contain_text("Paracetamol", timeout=20_000)
        finally:
            browser.close()
    assert errors == []
    assert shot.stat().st_size > 10_000


@pytest.mark.parametrize(
    "size",
    [{"width": 1440, "height": 900}, {"width": 390, "height": 844}],
    ids=["desktop", "phone"],
)
def test_new_submission_reaches_browse_judge_filter_of_another_visitor(
    launch, judge_csv: Path, size: dict[str, int]
) -> None:
    """Issue 27: a judge submitted in one browser appears in the Browse judge filter of a
    visitor who opened the page before, on reopening Browse (no restart, no reload)."""
    from playwright.sync_api import expect, sync_playwright

    app = launch()
    name = "Zweiter Richter"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            visitor = browser.new_context(viewport=size).new_page()
            visitor.goto(app.url, wait_until="domcontentloaded")
            expect(visitor.locator("#mq-judges")).to_contain_text("ceiling", timeout=30_000)
            visitor.get_by_role("tab", name="Browse").click()
            judge = visitor.get_by_label("Judge (for its filter)")

            def options() -> list[str]:
                judge.click()
                listed = visitor.get_by_role("option")
                expect(listed.first).to_be_visible(timeout=10_000)
                texts = [t.strip() for t in listed.all_inner_texts()]
                visitor.keyboard.press("Escape")
                return texts

            before = options()
            assert "GPT-5.4 Mini" in before and not any(name in o for o in before)

            submitter = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            submitter.goto(app.url, wait_until="domcontentloaded")
            submitter.get_by_role("tab", name="Submit").click()
            submitter.locator("#mq-upload input[type=file]").set_input_files(str(judge_csv))
            submitter.get_by_label("Display name").fill(name)
            submitter.get_by_role("button", name="Check and score").click()
            expect(submitter.locator("#mq-status textarea")).to_have_value(
                re.compile(r"^Accepted: "), timeout=30_000
            )

            visitor.get_by_role("tab", name="Leaderboard").click()
            visitor.get_by_role("tab", name="Browse").click()
            listed: list[str] = []
            for _ in range(20):  # the list is renewed when Browse opens (a round trip)
                visitor.wait_for_timeout(500)
                listed = options()
                if f"submitted: {name}" in listed:
                    break
            assert f"submitted: {name}" in listed, listed
            judge.fill(f"submitted: {name}")
            visitor.keyboard.press("Enter")
            expect(visitor.locator("#mq-count")).to_contain_text("question sets", timeout=10_000)
        finally:
            browser.close()
