"""The first page a new visitor is served: the default leaderboard inside the page config."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from medqade.app.leaderboard_page import FIRST_PAGE_KEYS, MAX_FIRST_KEYS, first_page_keys

from .helpers import submit_args


def served(url: str) -> dict[str, Any]:
    """The served page config's values by element id."""
    config = httpx.get(f"{url}config", timeout=30).json()
    return {
        c["props"]["elem_id"]: c["props"].get("value")
        for c in config["components"]
        if c.get("props", {}).get("elem_id")
    }


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[1, 2]",
        '"judges"',
        json.dumps({"judges": 1}),
        json.dumps({"judges": "x" * MAX_FIRST_KEYS}),
    ],
)
def test_first_page_keys_take_nothing_unexpected(text: str) -> None:
    assert first_page_keys(text) == {}


def test_first_page_keys_keep_only_the_known_parts() -> None:
    sent = {"note": "", "judges": "a", "models": "b", "downloads": "c", "other": "d"}
    assert first_page_keys(json.dumps(sent)) == {"note": "", "judges": "a", "models": "b"}


def test_served_page_carries_the_default_leaderboard_and_its_keys(launch: Any) -> None:
    app = launch()
    values = served(app.url)
    assert 'class="mq-board"' in values["mq-judges"] and 'data-view="core"' in values["mq-judges"]
    assert "ceiling" in values["mq-judges"] and "ceiling" in values["mq-cards"]
    assert 'class="mq-board"' in values["mq-models"]
    keys = json.loads(values["mq-first-keys"])
    assert set(keys) == set(FIRST_PAGE_KEYS)
    assert first_page_keys(values["mq-first-keys"]) == keys


def test_a_stored_submission_renews_the_served_page(launch: Any, judge_csv: Path) -> None:
    app = launch()
    before = served(app.url)
    assert "Neuer Richter" not in before["mq-judges"]
    result = app.client().predict(*submit_args(judge_csv, name="Neuer Richter"), api_name="/submit")
    assert str(result[0]).startswith("Accepted"), result[0]
    after = served(app.url)
    assert "Neuer Richter" in after["mq-judges"] and "Neuer Richter" in after["mq-cards"]
    assert json.loads(after["mq-first-keys"]) != json.loads(before["mq-first-keys"])
