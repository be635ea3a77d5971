"""The settings of one run (:mod:`medqade.runners.run_settings`): the options checked once,
the key from the environment, the generate settings, the resume key and the one-line errors."""

from __future__ import annotations

import argparse
import hashlib

import pytest

from medqade.runners.options import DEFAULT_KEY_ENV, DUMMY_KEY
from medqade.runners.run_settings import (
    OPENAI_URL,
    RunSettings,
    first_line,
    resume_key,
    settings_of,
    text_hash,
)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"model": " "}, "--model must name a model"),
        ({"timeout": 0.0}, "--timeout must be positive"),
        ({"concurrency": 0}, "--concurrency must be at least 1"),
        ({"max_retries": -1}, "--max-retries must be 0 or more"),
        ({"max_tokens": 0}, "--max-tokens must be at least 1"),
        ({"extra_body": {"stream": True, "model": "x"}}, "must not set model, stream"),
    ],
)
def test_run_settings_refuse_bad_options(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RunSettings(**{"model": "m", **changes})  # type: ignore[arg-type]


def test_url_defaults_to_openai_and_drops_the_trailing_slash() -> None:
    assert RunSettings("m").url == OPENAI_URL
    assert RunSettings("m", base_url="http://host:8080/v1/").url == "http://host:8080/v1"


def test_api_key_from_the_named_variable_or_the_dummy_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DEFAULT_KEY_ENV, raising=False)
    assert RunSettings("m").api_key() == DUMMY_KEY
    monkeypatch.setenv(DEFAULT_KEY_ENV, "sk-default")
    assert RunSettings("m").api_key() == "sk-default"
    monkeypatch.delenv("MEDQADE_TEST_KEY", raising=False)
    with pytest.raises(ValueError, match="MEDQADE_TEST_KEY is not set"):
        RunSettings("m", api_key_env="MEDQADE_TEST_KEY").api_key()
    monkeypatch.setenv("MEDQADE_TEST_KEY", "sk-named")
    assert RunSettings("m", api_key_env="MEDQADE_TEST_KEY").api_key() == "sk-named"


def test_resume_key_changes_with_what_changes_the_replies() -> None:
    base = RunSettings("m", base_url="http://h/v1/", temperature=0.0, extra_body={"top_k": 5})
    key = resume_key(base, system=text_hash("prompt"), seed=3)
    assert key == {
        "model": "m",
        "base_url": "http://h/v1",
        "temperature": 0.0,
        "reasoning_effort": None,
        "max_tokens": None,
        "extra_body": {"top_k": 5},
        "system": text_hash("prompt"),
        "seed": 3,
    }
    how = RunSettings("m", base_url="http://h/v1", concurrency=2, extra_body={"top_k": 5})
    assert resume_key(how, system=text_hash("prompt"), seed=3) == key  # concurrency: same
    assert resume_key(RunSettings("m", temperature=0.7)) != resume_key(RunSettings("m"))
    assert text_hash("prompt") == hashlib.sha256(b"prompt").hexdigest()[:16]


def test_generate_config_carries_the_settings() -> None:
    pytest.importorskip("inspect_ai")
    settings = RunSettings(
        "m", timeout=2.5, max_tokens=9, concurrency=3, max_retries=1, extra_body={"a": 1}
    )
    config = settings.generate_config()
    assert (config.max_tokens, config.max_connections, config.max_retries) == (9, 3, 1)
    assert config.attempt_timeout == 3 and config.extra_body == {"a": 1}


def test_settings_of_the_parsed_options_checks_the_key_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = argparse.Namespace(
        model="m",
        base_url=None,
        api_key_env="MEDQADE_TEST_KEY",
        timeout=30.0,
        temperature=None,
        reasoning_effort="low",
        max_tokens=None,
        extra_body=None,
        concurrency=4,
        max_retries=2,
        skip_model_check=True,
        no_progress=True,
    )
    monkeypatch.delenv("MEDQADE_TEST_KEY", raising=False)
    with pytest.raises(ValueError, match="MEDQADE_TEST_KEY is not set"):
        settings_of(args)
    monkeypatch.setenv("MEDQADE_TEST_KEY", "k")
    settings = settings_of(args)
    assert settings.extra_body == {} and not settings.check_model and not settings.progress
    assert settings.reasoning_effort == "low" and settings.concurrency == 4


def test_first_line_joins_the_first_paragraph_and_cuts_it() -> None:
    assert first_line("  one\n two \n\nthree") == "one two"
    long = first_line("x" * 400)
    assert len(long) == 300 and long.endswith("...")
    assert first_line("abcdef", limit=5) == "ab..."
