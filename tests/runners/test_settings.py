"""Run settings: API key lookup, bounded seeded backoff, argument checks."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from medqade.runners.settings import (
    DUMMY_KEY,
    Endpoint,
    RetryPolicy,
    RunConfig,
    Sampling,
    default_cache_dir,
)


def test_api_key_default_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc")
    assert Endpoint("m").api_key() == "sk-abc"


def test_api_key_default_variable_unset_is_dummy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert Endpoint("m").api_key() == DUMMY_KEY


def test_api_key_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-xyz")
    assert Endpoint("m", api_key_env="MY_KEY").api_key() == "sk-xyz"


def test_api_key_named_variable_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(ValueError, match="environment variable MY_KEY is not set"):
        Endpoint("m", api_key_env="MY_KEY").api_key()


def test_endpoint_empty_model() -> None:
    with pytest.raises(ValueError, match="--model must name a model"):
        Endpoint(" ")


def test_endpoint_timeout_not_positive() -> None:
    with pytest.raises(ValueError, match="--timeout must be positive"):
        Endpoint("m", timeout=0)


def test_retry_policy_negative_retries() -> None:
    with pytest.raises(ValueError, match="--max-retries must be 0 or more"):
        RetryPolicy(max_retries=-1)


def test_retry_policy_negative_invalid() -> None:
    with pytest.raises(ValueError, match="--max-invalid must be 0 or more"):
        RetryPolicy(max_invalid=-1)


def test_run_config_concurrency() -> None:
    with pytest.raises(ValueError, match="--concurrency must be at least 1"):
        RunConfig(Endpoint("m"), concurrency=0)


def test_delay_grows_exponentially_within_jitter_and_cap() -> None:
    policy = RetryPolicy(backoff_base=1.0, backoff_cap=10.0)
    rng = random.Random(0)
    for retry in range(1, 12):
        nominal = min(10.0, 2.0 ** (retry - 1))
        wait = policy.delay(retry, rng)
        # jitter factor in [0.5, 1.5), then the cap
        assert 0.5 * nominal <= wait <= min(10.0, 1.5 * nominal)


def test_delay_is_reproducible_from_the_seed() -> None:
    policy = RetryPolicy()
    a = [policy.delay(k, random.Random(7)) for k in range(1, 6)]
    b = [policy.delay(k, random.Random(7)) for k in range(1, 6)]
    assert a == b


def test_delay_honours_retry_after_up_to_the_cap() -> None:
    policy = RetryPolicy(backoff_base=0.001, backoff_cap=5.0)
    assert policy.delay(1, random.Random(0), retry_after=3.0) == 3.0
    assert policy.delay(1, random.Random(0), retry_after=100.0) == 5.0


def test_default_cache_dir_is_next_to_out(tmp_path: Path) -> None:
    assert default_cache_dir(tmp_path / "j.jsonl") == tmp_path / "j.jsonl.cache"


def test_sampling_extra_body_reserved_keys() -> None:
    with pytest.raises(ValueError, match="--extra-body must not set messages, model"):
        Sampling(extra_body={"model": "x", "messages": []})
