"""Submission metadata (:mod:`medqade.scoring.meta`): one parse of the form's fields for
both front ends, and the checks a record's metadata passes."""

from __future__ import annotations

import pytest

from medqade.scoring.meta import (
    SubmissionForm,
    clean_meta,
    deterministic_decoding,
    merge_meta,
    parse_decoding,
)


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


def test_the_form_as_the_space_sends_it_is_the_flags_metadata() -> None:
    """The Space's form sends every field as text ("" when empty, ``None`` for an unset
    dropdown); the CLI gives ``None`` for an unset flag: both give the same metadata."""
    space = {
        "name": " Mein Modell ",
        "model_id": "m-7b",
        "revision": "",
        "family": None,
        "organisation": "",
        "link": "https://example.org",
        "prompt": "",
        "prompt_sha256": "",
        "decoding": "temperature=0",
        "notes": "",
    }
    cli = {"name": "Mein Modell", "model_id": "m-7b", "link": "https://example.org"}
    cli |= {"decoding": "temperature=0", "family": None, "notes": None}
    want = {
        "name": "Mein Modell",
        "model_id": "m-7b",
        "link": "https://example.org",
        "decoding": {"temperature": 0},
    }
    assert SubmissionForm.from_fields(space).meta() == want
    assert SubmissionForm.from_fields(cli).meta() == want
    assert SubmissionForm.from_fields({}).meta() == {}


def test_a_prompt_file_gives_its_hash_and_the_kind_own() -> None:
    meta = SubmissionForm.with_prompt_file({}, b"Ist die Antwort richtig?").meta()
    assert meta["prompt"] == "own" and len(meta["prompt_sha256"]) == 64
    official = SubmissionForm.with_prompt_file({"prompt": "official"}, b"x").meta()
    assert official["prompt"] == "official"


def test_clean_meta_refuses_a_link_that_is_no_web_address() -> None:
    cleaned, problems = clean_meta({"link": "javascript:alert(1)"}, "f.csv", None, ())
    assert cleaned == {}
    (problem,) = problems
    assert problem.message == "not an http(s) link" and problem.column == "meta.link"


def test_merge_meta_prefers_the_form() -> None:
    header = {"name": "Kopf", "usage": {"input_tokens": 5}}
    merged = merge_meta(header, {"name": "Formular", "usage": {"price_in": 1.0}})
    assert merged == {"name": "Formular", "usage": {"input_tokens": 5, "price_in": 1.0}}


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
