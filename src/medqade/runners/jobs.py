"""The plain records of a run: a job to ask, its outcome, the run's summary.

Kept apart from :mod:`medqade.runners.engine` so that building jobs and writing rows does not
import the ``openai`` client (the CLI imports every command module at start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "invalid", "error"]
Parser = Callable[[str], Any]
"""Text of the model's reply -> a JSON-serialisable value; raises ``InvalidOutput``."""


class RunAborted(ValueError):
    """The run cannot succeed and stopped early: bad key, no access, unknown model, server
    unreachable, or a request the server rejects whatever the item."""


@dataclass(frozen=True)
class Job:
    """One item to ask: the chat messages and, for judges, the ``response_format``."""

    item_id: str
    messages: tuple[Mapping[str, str], ...]
    response_format: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Outcome:
    """What became of one job.

    ``status`` is ``"ok"`` (``value`` holds the parsed output), ``"invalid"`` (the model
    answered, but never in a usable form within the allowed re-asks) or ``"error"`` (no
    answer: transport failure after the retries, or a request the server rejected). ``raw``
    keeps the last reply text (or the server's error body) for audit.
    """

    item_id: str
    status: Status
    value: Any = None
    raw: str | None = None
    error: str | None = None
    cached: bool = False
    response_format: str | None = None
    """The structured-output format the reply was asked with (``None`` for plain text jobs)."""


@dataclass(frozen=True)
class RunSummary:
    """Counts of one run. ``requests`` are HTTP calls made by this run (cache hits are free)."""

    items: int
    cached: int
    ok: int
    invalid: int
    errors: int
    requests: int
    retries: int
    invalid_outputs: int
    prompt_tokens: int
    completion_tokens: int
    usage_reported: int
    wall_s: float
    error_kinds: tuple[tuple[str, int], ...] = ()
    """Failed requests by cause (``HTTP 500``, ``timeout``, ``connection error``...)."""
    response_format: str | None = None
    """The structured-output format the run settled on (``None``: no request needed one)."""
    format_notes: tuple[str, ...] = ()
    """Why the run stepped down from a format the server refused, one line per step."""

    @property
    def failed(self) -> int:
        """Items recorded as missing (invalid or error)."""
        return self.invalid + self.errors

    def format(self) -> str:
        """A few human-readable lines for the end of a command."""
        if self.usage_reported:
            tokens = (
                f"{self.prompt_tokens + self.completion_tokens} tokens "
                f"({self.prompt_tokens} prompt + {self.completion_tokens} completion)"
            )
        else:
            tokens = "tokens not reported by the server"
        rate = self.requests / self.wall_s if self.wall_s > 0 else 0.0
        causes = ", ".join(f"{n} {kind}" for kind, n in self.error_kinds)
        lines = [
            f"items {self.items}: {self.ok} ok, {self.failed} missing "
            f"({self.invalid} invalid output, {self.errors} errors"
            f"{f': {causes}' if causes else ''}), {self.cached} from the cache",
            f"requests {self.requests}, retries {self.retries}, "
            f"invalid outputs {self.invalid_outputs}, {tokens}",
            f"wall time {self.wall_s:.1f} s ({rate:.1f} requests/s)",
        ]
        if self.response_format is not None:
            lines.append(f"response format: {self.response_format}")
        lines += [f"  {note}" for note in self.format_notes]
        return "\n".join(lines)
