"""Submission metadata (:mod:`medqade.scoring.intake.meta`): one parse of the form's fields for
both front ends, and the checks a record's metadata passes."""

from __future__ import annotations

import math

import pytest

from medqade.scoring.intake.meta import (
    SubmissionForm,
    clean_meta,
    merge_meta,
)


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


def test_price_fields_become_usage_as_the_flags_do() -> None:
    """The Space's price fields (text) and ``--price-in/--price-out`` (floats or ``None``)."""
    space = SubmissionForm.from_fields({"price_in": " 0.15 ", "price_out": "2"}).meta()
    cli = SubmissionForm.from_fields({"price_in": 0.15, "price_out": 2.0}).meta()
    assert space == cli == {"usage": {"price_in": 0.15, "price_out": 2.0}}
    assert SubmissionForm.from_fields({"price_in": "", "price_out": None}).meta() == {}
    kept = SubmissionForm.from_fields({"price_out": "zwei"}).meta()
    assert kept == {"usage": {"price_out": "zwei"}}  # refused by clean_meta, not here


@pytest.mark.parametrize("price", [-0.01, math.nan, math.inf, "zwei", True, [1]])
@pytest.mark.parametrize("key", ["price_in", "price_out"])
def test_clean_meta_refuses_a_price_that_is_no_non_negative_number(key: str, price: object) -> None:
    usage = {"input_tokens": 10, key: price}
    cleaned, problems = clean_meta({"usage": usage}, "form", None, ())
    (problem,) = problems
    assert problem.column == f"meta.usage.{key}"
    assert problem.message == "expected a non-negative finite number (EUR per million tokens)"
    tokens = "input" if key == "price_in" else "output"
    assert problem.fix == f"give the price of a million {tokens} tokens in EUR, or leave it out"
    assert cleaned == {"usage": {"input_tokens": 10}}


def test_clean_meta_keeps_usage_numbers_and_names_each_bad_entry() -> None:
    usage = {"input_tokens": 1200.0, "output_tokens": 3.5, "price_in": 0, "price_out": None}
    cleaned, problems = clean_meta({"usage": usage}, "f.jsonl", 1, ())
    assert problems == []
    assert cleaned == {"usage": {"input_tokens": 1200, "output_tokens": 3.5, "price_in": 0.0}}
    assert isinstance(cleaned["usage"]["input_tokens"], int)
    bad = {"input_tokens": -5, "tokens": 3, "price_out": 1}
    cleaned, problems = clean_meta({"usage": bad}, "f.jsonl", 1, ())
    assert [(p.column, p.message) for p in problems] == [
        ("meta.usage.input_tokens", "expected a non-negative finite number of tokens"),
        ("meta.usage.tokens", "unknown usage key"),
    ]
    assert cleaned == {"usage": {"price_out": 1.0}}
    _, problems = clean_meta({"usage": [1, 2]}, "f.jsonl", 1, ())
    assert [p.column for p in problems] == ["meta.usage"]
