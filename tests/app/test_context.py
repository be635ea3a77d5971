"""What every tab is given: the read-only table update, the event settings, the context."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from medqade.app.context import HIDDEN, READS, TabContext, empty, frame


def test_a_table_update_types_numbers_as_numbers_and_only_our_links_as_markdown() -> None:
    table = pd.DataFrame({"name": ["<b>x</b>"], "kappa": [0.5], "n": [3], "compare": ["[a](?b)"]})
    update = frame(table)
    assert update["value"] is table
    assert update["datatype"] == ["str", "number", "number", "markdown"]  # name stays text
    assert empty().empty


def test_page_only_handlers_are_private_and_unqueued_reads_are_bounded() -> None:
    assert HIDDEN == {"api_visibility": "private", "queue": False}
    assert READS["concurrency_limit"] >= 1


def test_the_context_is_frozen() -> None:
    fields = [f.name for f in dataclasses.fields(TabContext)]
    assert fields == ["release", "config", "state", "exports"]
    ctx = TabContext(None, None, None, None)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.release = None  # type: ignore[misc]
