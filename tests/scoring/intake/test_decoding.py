"""Decoding settings (:mod:`medqade.scoring.intake.decoding`): as typed, as kept, and whether they
make a run deterministic."""

from __future__ import annotations

import math

import pytest

from medqade.scoring.intake.decoding import check_decoding, deterministic_decoding, parse_decoding


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("temperature=0", {"temperature": 0}),
        (" temperature=0.2, max_tokens=64 ", {"temperature": 0.2, "max_tokens": 64}),
        ('{"temperature": 0, "top_p": 1}', {"temperature": 0, "top_p": 1}),
        ("seed=x1", {"seed": "x1"}),
        ("greedy", "greedy"),
        ("temperature 0", "temperature 0"),
    ],
)
def test_parse_decoding(text: str, parsed: object) -> None:
    assert parse_decoding(text) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{x", "decoding: not valid JSON"),
        ('{"a": 1} x', "not valid JSON"),
        ("=1", "expected key=value"),
        ("temperature=0,greedy", "expected key=value, got 'greedy'"),
    ],
)
def test_parse_decoding_refuses(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_decoding(text)


@pytest.mark.parametrize(
    ("decoding", "deterministic"),
    [
        ({"temperature": 0}, True),
        ({"temperature": 0.0, "max_tokens": 64}, True),
        (parse_decoding("temperature=0,top_p=1"), True),
        ({"Temperature": "0"}, True),
        ({"top_k": 1}, True),
        ({"do_sample": False}, True),
        ({"strategy": "Greedy"}, True),
        ("greedy decoding", True),
        ("temp 0.0", True),
        ({"temperature": 0.7}, False),
        ({"temperature": True}, False),
        ({"top_k": 40, "temperature": 1}, False),
        ("temperature 0.05", False),
        ("", False),
        ({}, False),
        (None, False),
    ],
)
def test_deterministic_decoding(decoding: object, deterministic: bool) -> None:
    assert deterministic_decoding(decoding) is deterministic


def test_check_decoding_keeps_scalars_sorted_and_short_texts() -> None:
    assert check_decoding({"top_p": 0.9, "temperature": 0}, 300) == {
        "temperature": 0,
        "top_p": 0.9,
    }
    assert check_decoding("  greedy  ", 300) == "greedy"
    assert check_decoding("x" * 11, 10) is None
    assert check_decoding({"stop": "x" * 11}, 10) is None


@pytest.mark.parametrize(
    "value",
    [
        {"temperature": math.inf},
        {"nested": {"a": 1}},
        {"list": [1, 2]},
        {1: "int key"},
        {"k" * 61: 1},
        {f"k{i}": i for i in range(21)},
        3,
        None,
    ],
)
def test_check_decoding_refuses_what_is_not_a_setting(value: object) -> None:
    assert check_decoding(value, 300) is None
