"""The settings of one ``medqade judge`` / ``medqade answer`` run: where the model is served and
how it is asked (:class:`RunSettings`, read from the options by :func:`settings_of`), what a
rerun must share to keep an earlier output's rows (:func:`resume_key`), and
:class:`RunAborted`, the error of a run that cannot start.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from medqade.runners.options import DEFAULT_KEY_ENV, DUMMY_KEY

OPENAI_URL: Final = "https://api.openai.com/v1"
SERVICE: Final = "medqade"
"""Inspect's service name for the endpoint: the model is ``openai-api/medqade/MODEL``."""


class RunAborted(ValueError):
    """The run cannot succeed and did not start: server unreachable, key refused, unknown
    model."""


@dataclass(frozen=True)
class RunSettings:
    """Where the model is served and how it is asked (the commands' options)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float = 120.0
    temperature: float | None = 0.0
    reasoning_effort: str | None = None
    max_tokens: int | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    concurrency: int = 8
    max_retries: int = 5
    check_model: bool = True
    progress: bool = True

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise ValueError("--model must name a model")
        if not self.timeout > 0:
            raise ValueError(f"--timeout must be positive, got {self.timeout}")
        if self.concurrency < 1:
            raise ValueError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise ValueError("--max-retries must be 0 or more")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"--max-tokens must be at least 1 or 'none', got {self.max_tokens}")
        reserved = sorted(set(self.extra_body) & {"model", "messages", "stream"})
        if reserved:
            raise ValueError(
                f"--extra-body must not set {', '.join(reserved)}: the runner sets those"
            )

    @property
    def url(self) -> str:
        return (self.base_url or OPENAI_URL).rstrip("/")

    def api_key(self) -> str:
        """The key from ``--api-key-env`` (default ``OPENAI_API_KEY``; that one unset means
        the dummy key local servers accept)."""
        var = self.api_key_env or DEFAULT_KEY_ENV
        key = os.environ.get(var, "")
        if key:
            return key
        if self.api_key_env is None:
            return DUMMY_KEY
        raise ValueError(f"environment variable {var} is not set; export the API key there")

    def sampling(self) -> dict[str, Any]:
        """The generate settings that change the replies (kept for resume, shown by dry runs)."""
        return {
            "temperature": self.temperature,
            "reasoning_effort": self.reasoning_effort,
            "max_tokens": self.max_tokens,
            "extra_body": dict(self.extra_body),
        }

    def generate_config(self) -> Any:
        """Inspect's ``GenerateConfig`` of these settings."""
        from inspect_ai.model import GenerateConfig

        return GenerateConfig(
            temperature=self.temperature,
            reasoning_effort=self.reasoning_effort,  # type: ignore[arg-type]
            max_tokens=self.max_tokens,
            extra_body=dict(self.extra_body) or None,
            max_connections=self.concurrency,
            max_retries=self.max_retries,
            attempt_timeout=math.ceil(self.timeout),
        )


def resume_key(settings: RunSettings, **more: Any) -> dict[str, Any]:
    """What must be equal for a rerun to keep an earlier output's rows (sidecar marker)."""
    key = {"model": settings.model, "base_url": settings.url, **settings.sampling(), **more}
    settled: dict[str, Any] = json.loads(json.dumps(key, sort_keys=True, ensure_ascii=False))
    return settled


def text_hash(text: str) -> str:
    """A short SHA-256 of ``text`` (a prompt in the resume key)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def first_line(text: str, limit: int = 300) -> str:
    """The first paragraph of ``text`` on one line, cut to ``limit`` characters (an error
    message shown in one line)."""
    paragraph = text.strip().split("\n\n", 1)[0]
    line = " ".join(part.strip() for part in paragraph.splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def settings_of(args: Any) -> RunSettings:
    """The :class:`RunSettings` of the parsed options (``ValueError`` on bad values)."""
    settings = RunSettings(
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        timeout=args.timeout,
        temperature=args.temperature,
        reasoning_effort=args.reasoning_effort,
        max_tokens=args.max_tokens,
        extra_body=args.extra_body or {},
        concurrency=args.concurrency,
        max_retries=args.max_retries,
        check_model=not args.skip_model_check,
        progress=not args.no_progress,
    )
    settings.api_key()  # a missing key variable fails before anything is asked or written
    return settings
