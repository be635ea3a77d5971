"""The response cache: keys, resume after a torn write, one run at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.runners.cache import CACHE_FILE, ResponseCache, cache_key

MESSAGES = ({"role": "system", "content": "S"}, {"role": "user", "content": "U"})


def test_cache_key_changes_with_every_input() -> None:
    base = cache_key("m", MESSAGES, None, {"temperature": 0.0}, "q1")
    assert base == cache_key("m", list(MESSAGES), None, {"temperature": 0.0}, "q1")
    others = [
        cache_key("m2", MESSAGES, None, {"temperature": 0.0}, "q1"),
        cache_key("m", MESSAGES[:1], None, {"temperature": 0.0}, "q1"),
        cache_key("m", MESSAGES, {"type": "json_object"}, {"temperature": 0.0}, "q1"),
        cache_key("m", MESSAGES, None, {"temperature": 0.2}, "q1"),
        cache_key("m", MESSAGES, None, {"temperature": 0.0}, "q2"),
    ]
    assert base not in others and len(set(others)) == len(others)


def test_cache_round_trip_and_torn_last_line(tmp_path: Path) -> None:
    with ResponseCache(tmp_path) as cache:
        cache.put({"key": "a", "status": "ok", "value": 1})
    with open(tmp_path / CACHE_FILE, "a", encoding="utf-8") as fh:
        fh.write('{"key": "b", "sta')  # killed mid-write
    with ResponseCache(tmp_path) as cache:
        assert cache.get("a") == {"key": "a", "status": "ok", "value": 1}
        assert cache.get("b") is None
        assert cache.skipped_lines == 1
        cache.put({"key": "c", "status": "ok", "value": 3})
    lines = (tmp_path / CACHE_FILE).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["key"] == "c"
    with ResponseCache(tmp_path) as cache:
        assert cache.get("c") is not None and cache.skipped_lines == 1


def test_cache_in_use_by_another_run(tmp_path: Path) -> None:
    with ResponseCache(tmp_path), pytest.raises(ValueError, match="is in use by another run"):
        ResponseCache(tmp_path).__enter__()


def test_cache_put_outside_context(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="outside its context manager"):
        ResponseCache(tmp_path).put({"key": "a"})
