"""``Limits``: the defaults an upload is held to, and that they cannot be changed in place."""

from __future__ import annotations

import dataclasses

import pytest

from medqade.scoring.limits import Limits


def test_defaults() -> None:
    limits = Limits()
    assert (limits.max_bytes, limits.max_rows, limits.max_answer_chars) == (
        20_000_000,
        100_000,
        300,
    )
    assert limits.max_log_bytes > limits.max_bytes  # an Inspect log may be larger


def test_frozen_and_overridable() -> None:
    limits = Limits(max_rows=10)
    assert limits.max_rows == 10 and limits.max_bytes == Limits().max_bytes
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_rows = 5  # type: ignore[misc]
