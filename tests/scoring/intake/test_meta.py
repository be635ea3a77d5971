"""Submission metadata (:mod:`medqade.scoring.intake.meta`): one parse of the form's fields for
both front ends, and the checks a record's metadata passes."""

from __future__ import annotations

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
