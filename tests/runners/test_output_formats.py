"""The judge task's structured-output ladder (:mod:`medqade.runners.output_formats`): the
shapes tried, the run's rung with its extra request keys, and which errors are a refused
format (also wrapped in a cause, a context or a retry wrapper)."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai")

from medqade.runners.output_formats import Ladder, format_ladder, refused_format


def test_format_ladder_starts_where_asked() -> None:
    assert [r.name for r in format_ladder("json_schema", 5)] == [
        "json_schema",
        "json_object with schema",
        "json_object",
        "none",
    ]
    assert [r.name for r in format_ladder("json_object", 5)] == ["json_object", "none"]
    with pytest.raises(ValueError, match="response_format"):
        format_ladder("xml", 5)


def test_format_ladder_rungs_carry_the_schema() -> None:
    schema_rung, with_schema, plain, none = format_ladder("json_schema", 3)
    assert schema_rung.config["response_schema"].strict is True
    body = with_schema.config["extra_body"]["response_format"]
    assert body["type"] == "json_object" and body["schema"]["type"] == "object"
    assert plain.config == {"extra_body": {"response_format": {"type": "json_object"}}}
    assert none.config == {}


def test_ladder_merges_the_runs_extra_body_and_steps_down_once_per_level() -> None:
    ladder = Ladder(format_ladder("json_object", 5), {"top_k": 4})
    assert ladder.rungs[0].config["extra_body"] == {
        "top_k": 4,
        "response_format": {"type": "json_object"},
    }
    assert ladder.rungs[1].config == {}  # the last rung adds nothing
    assert ladder.step_down(0) and ladder.level == 1
    assert ladder.step_down(0) and ladder.level == 1  # a late refusal of rung 0 moves nothing
    assert not ladder.step_down(1) and ladder.level == 1  # no rung below "none"
    assert not ladder.confirmed


class _Attempt:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def exception(self) -> BaseException:
        return self.error


class _RetryError(Exception):
    def __init__(self, last: BaseException) -> None:
        super().__init__("RetryError[<Future state=finished raised APIError>]")
        self.last_attempt = _Attempt(last)


def test_refused_format_reads_the_error_and_what_it_wraps() -> None:
    assert refused_format(ValueError("response_format json_schema is not supported"))
    assert not refused_format(ValueError("HTTP 500 upstream failed"))
    try:
        try:
            raise RuntimeError("Unsupported param: 'schema'")
        except RuntimeError as inner:
            raise ValueError("request failed") from inner
    except ValueError as outer:
        assert refused_format(outer)
    assert refused_format(_RetryError(ValueError("json_object not allowed")))
    assert not refused_format(_RetryError(TimeoutError("timed out")))
