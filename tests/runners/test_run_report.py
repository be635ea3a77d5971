"""What a run tells its user (:mod:`medqade.runners.run_report`): the error kinds, the summary
of the written rows, the exit status, a dry run's request and an interruption."""

from __future__ import annotations

import json

import pytest

from medqade.runners.run_report import (
    Asked,
    Summary,
    dry_run_text,
    error_kind,
    interrupted,
    report,
    summarise,
)
from medqade.runners.run_settings import RunSettings


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("error: Error code: 429 - rate limited", "HTTP 429"),
        ("error: HTTP 503 from upstream", "HTTP 503"),
        ("error: Request timed out.", "timeout"),
        ("error: Connection refused", "connection error"),
        ("invalid output: no JSON", "invalid output"),
        ("error: ValueError: bad thing\n\nmore", "ValueError"),
    ],
)
def test_error_kind(error: str, kind: str) -> None:
    assert error_kind(error) == kind


def test_summarise_counts_the_rows_and_the_causes() -> None:
    rows = [
        {"question_id": "a"},
        {"question_id": "b", "error": "invalid output: not JSON"},
        {"question_id": "c", "error": "error: Error code: 500"},
        {"question_id": "d", "error": "error: Error code: 500"},
        {"question_id": "e", "error": "error: timed out"},
    ]
    asked = Asked(input_tokens=120, output_tokens=30, response_format="json_object")
    summary = summarise(rows, 1, asked, 2.25)
    assert (summary.items, summary.kept, summary.ok, summary.invalid, summary.errors) == (
        5, 1, 1, 1, 3,
    )  # fmt: skip
    assert summary.failed == 4 and summary.error_kinds == (("HTTP 500", 2), ("timeout", 1))
    text = summary.format()
    assert "items 5: 1 ok, 4 missing (1 invalid output, 3 errors: 2 HTTP 500, 1 timeout)" in text
    assert "asked 4, tokens 150 (120 prompt + 30 completion)" in text
    assert "wall time 2.2 s" in text and text.endswith("response format: json_object")


def _summary(ok: int, invalid: int = 0, errors: int = 0) -> Summary:
    kinds = (("HTTP 500", errors),) if errors else ()
    return Summary(ok + invalid + errors, 0, ok, invalid, errors, 0, 0, 0.1, kinds)


def test_report_exit_status_and_messages(capsys: pytest.CaptureFixture[str]) -> None:
    settings = RunSettings("m", base_url="http://h/v1")
    assert report(_summary(0, invalid=1, errors=2), "out.jsonl", settings) == 1
    err = capsys.readouterr().err
    assert "no item succeeded against http://h/v1 (1 invalid output, 2 HTTP 500)" in err
    assert report(_summary(3, errors=1), "out.jsonl", settings) == 0
    captured = capsys.readouterr()
    assert "wrote out.jsonl" in captured.out and "1 of 4 items are missing" in captured.err
    assert report(_summary(2), "out.jsonl", settings) == 0
    assert capsys.readouterr().err == ""


def test_dry_run_text_shows_the_request_without_the_key() -> None:
    settings = RunSettings("m", base_url="http://h/v1", max_tokens=7, extra_body={"top_k": 2})
    text = dry_run_text(
        "q1", [("system", "S"), ("user", "U")], settings, 3, {"type": "json_object"}
    )
    head, params = text.split("--- request parameters ---\n")
    assert head.startswith("dry run: 3 item(s) would be sent to http://h/v1; nothing was sent.")
    assert "first item: q1\n--- system ---\nS\n--- user ---\nU\n" in head
    assert json.loads(params) == {
        "model": "m",
        "temperature": 0.0,
        "max_tokens": 7,
        "response_format": {"type": "json_object"},
        "top_k": 2,
    }


def test_interrupted_says_nothing_was_written(capsys: pytest.CaptureFixture[str]) -> None:
    assert interrupted("out.jsonl") == 130
    assert "nothing of this run was written; out.jsonl is unchanged" in capsys.readouterr().err
