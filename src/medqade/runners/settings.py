"""Frozen run settings: where the model is served, how it samples, how failures are retried."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

DEFAULT_KEY_ENV: Final = "OPENAI_API_KEY"
DUMMY_KEY: Final = "EMPTY"
"""Sent when the default key variable is unset: local vLLM and Ollama servers accept anything."""


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint and the model to ask there.

    ``api_key_env`` names the environment variable that holds the key; ``None`` means
    :data:`DEFAULT_KEY_ENV`, and then an unset variable falls back to :data:`DUMMY_KEY`. The key
    itself is never stored here, only read by :meth:`api_key` when the client is made.
    """

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float = 120.0

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ValueError("--model must name a model")
        if not self.timeout > 0:
            raise ValueError(f"--timeout must be positive, got {self.timeout}")

    def api_key(self) -> str:
        """Read the key from the environment (see the class docstring)."""
        var = self.api_key_env or DEFAULT_KEY_ENV
        key = os.environ.get(var, "")
        if key:
            return key
        if self.api_key_env is None:
            return DUMMY_KEY
        raise ValueError(f"environment variable {var} is not set; export the API key there")


@dataclass(frozen=True)
class Sampling:
    """Request parameters that change the model's output (and therefore the cache key).

    ``None`` leaves a parameter out of the request, so the server's default applies (needed
    for models that reject ``temperature``). ``extra_body`` is merged into the request body
    as is (e.g. ``{"chat_template_kwargs": {"enable_thinking": false}}`` for vLLM), after
    the other parameters, so it can override them. ``max_tokens`` caps the reply length (sent
    as ``max_tokens``; a server that asks for ``max_completion_tokens`` gets that instead):
    without a cap some servers generate until the context is full.
    """

    temperature: float | None = 0.0
    reasoning_effort: str | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"--max-tokens must be at least 1 or 'none', got {self.max_tokens}")
        reserved = sorted(set(self.extra_body) & {"model", "messages", "stream"})
        if reserved:
            raise ValueError(
                f"--extra-body must not set {', '.join(reserved)}: the runner sets those"
            )

    def fingerprint(self) -> dict[str, Any]:
        """The JSON form that enters the cache key."""
        return {
            "temperature": self.temperature,
            "reasoning_effort": self.reasoning_effort,
            "extra_body": dict(self.extra_body),
            "max_tokens": self.max_tokens,
        }


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: transport failures with exponential backoff, invalid outputs re-asked.

    Retry ``k`` (1-based) of a transport failure (429, 408, 409, 5xx, timeout, connection
    error) waits ``min(cap, base * 2**(k-1))`` seconds times a jitter factor drawn uniformly
    from [0.5, 1.5) by a generator seeded with ``seed``; a ``Retry-After`` header of the
    server raises the wait to that value (still capped). After ``max_retries`` retries the
    item is recorded as failed. An invalid output is re-asked at most ``max_invalid`` times.
    """

    max_retries: int = 5
    max_invalid: int = 2
    backoff_base: float = 1.0
    backoff_cap: float = 60.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("max_retries", "max_invalid"):
            if getattr(self, name) < 0:
                raise ValueError(f"--{name.replace('_', '-')} must be 0 or more")
        if self.backoff_base < 0 or self.backoff_cap < 0:
            raise ValueError("backoff times must be 0 or more")

    def delay(self, retry: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        wait = min(self.backoff_cap, self.backoff_base * 2.0 ** (retry - 1))
        wait *= 0.5 + rng.random()
        if retry_after is not None and retry_after > wait:
            wait = retry_after
        return min(wait, self.backoff_cap)


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs besides its items."""

    endpoint: Endpoint
    sampling: Sampling = field(default_factory=Sampling)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 8
    cache_dir: Path | None = None
    progress: bool = True
    label: str = "medqade"
    check_model: bool = True
    """Check ``endpoint.model`` against the server's ``GET /models`` list before asking."""

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"--concurrency must be at least 1, got {self.concurrency}")


def default_cache_dir(out: Path) -> Path:
    """``<out>.cache/`` next to the output file."""
    out = Path(out)
    return out.with_name(out.name + ".cache")
