"""What one ``medqade judge`` / ``medqade answer`` run tells its user: what the run asked
(:class:`Asked`, read from its log), the :class:`Summary` of the rows written, the exit status
(:func:`report`: 1 when no item succeeded, with the causes), a dry run's request
(:func:`dry_run_text`) and an interruption (:func:`interrupted`).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from medqade.runners.run_settings import RunSettings, first_line


@dataclass(frozen=True)
class Asked:
    """What a run's log holds for the commands: the rows of epoch 1 by question id (failures
    with ``error`` and ``raw``), the token counts and the judge's settled format."""

    rows: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    response_format: str | None = None
    log: tuple[str, bytes] | None = field(default=None, repr=False)
    """The Inspect log's file name and bytes, when the caller asked to keep it."""


@dataclass(frozen=True)
class Summary:
    """Counts of one run (``kept``: rows of the earlier output that were not asked again)."""

    items: int
    kept: int
    ok: int
    invalid: int
    errors: int
    input_tokens: int
    output_tokens: int
    wall_s: float
    error_kinds: tuple[tuple[str, int], ...] = ()
    response_format: str | None = None

    @property
    def failed(self) -> int:
        return self.invalid + self.errors

    def format(self) -> str:
        causes = ", ".join(f"{n} {kind}" for kind, n in self.error_kinds)
        asked = self.items - self.kept
        lines = [
            f"items {self.items}: {self.ok} ok, {self.failed} missing "
            f"({self.invalid} invalid output, {self.errors} errors"
            f"{f': {causes}' if causes else ''}), {self.kept} kept from the earlier output",
            f"asked {asked}, tokens {self.input_tokens + self.output_tokens} "
            f"({self.input_tokens} prompt + {self.output_tokens} completion)",
            f"wall time {self.wall_s:.1f} s",
        ]
        if self.response_format is not None:
            lines.append(f"response format: {self.response_format}")
        return "\n".join(lines)


def error_kind(error: str) -> str:
    """``HTTP 500``, ``timeout``, ``connection error``... of a row's error text."""
    text = error.removeprefix("error: ")
    lowered = text.lower()
    for code in ("401", "403", "404", "408", "409", "429", "400", "422", "500", "502", "503"):
        if f"error code: {code}" in lowered or f"http {code}" in lowered:
            return f"HTTP {code}"
    if "timeout" in lowered or "timed out" in lowered:
        return "timeout"
    if "connect" in lowered:
        return "connection error"
    if error.startswith("invalid"):
        return "invalid output"
    return first_line(text, 60).split(":", 1)[0] or "error"


def summarise(rows: Sequence[Mapping[str, Any]], kept: int, asked: Asked, wall_s: float) -> Summary:
    """The :class:`Summary` of the written rows and what the run asked."""
    invalid = errors = 0
    kinds: Counter[str] = Counter()
    for row in rows:
        error = row.get("error")
        if not error:
            continue
        if str(error).startswith("invalid"):
            invalid += 1
        else:
            errors += 1
            kinds[error_kind(str(error))] += 1
    return Summary(
        items=len(rows),
        kept=kept,
        ok=len(rows) - invalid - errors,
        invalid=invalid,
        errors=errors,
        input_tokens=asked.input_tokens,
        output_tokens=asked.output_tokens,
        wall_s=wall_s,
        error_kinds=tuple(kinds.most_common()),
        response_format=asked.response_format,
    )


def report(summary: Summary, out: object, settings: RunSettings) -> int:
    """Print the summary and where the output went; the exit status (1: nothing usable)."""
    print(summary.format())
    print(f"wrote {out}")
    if summary.items and not summary.ok:
        causes = ", ".join(f"{n} {kind}" for kind, n in summary.error_kinds)
        if summary.invalid:
            causes = ", ".join(filter(None, [f"{summary.invalid} invalid output", causes]))
        print(
            f"error: no item succeeded against {settings.url} ({causes}); see 'error' and "
            f"'raw' in {out}",
            file=sys.stderr,
        )
        return 1
    if summary.failed:
        print(
            f"warning: {summary.failed} of {summary.items} items are missing (see 'error' and "
            "'raw' in the output); rerunning the same command asks them again",
            file=sys.stderr,
        )
    return 0


def dry_run_text(
    item_id: str,
    messages: Sequence[tuple[str, str]],
    settings: RunSettings,
    n_items: int,
    response_format: Mapping[str, Any] | None = None,
) -> str:
    """What ``--dry-run`` prints: the first request's messages and parameters (no key)."""
    params: dict[str, Any] = {"model": settings.model}
    sampling = settings.sampling()
    extra = sampling.pop("extra_body")
    params.update({k: v for k, v in sampling.items() if v is not None})
    if response_format is not None:
        params["response_format"] = dict(response_format)
    params.update(extra)
    lines = [
        f"dry run: {n_items} item(s) would be sent to {settings.url}; nothing was sent.",
        f"first item: {item_id}",
    ]
    for role, content in messages:
        lines += [f"--- {role} ---", content]
    lines += ["--- request parameters ---", json.dumps(params, ensure_ascii=False, indent=2)]
    return "\n".join(lines)


def interrupted(out: object) -> int:
    """Say what an interrupted run (Ctrl-C) left; the exit status 130."""
    print(
        f"\ninterrupted: nothing of this run was written; {out} is unchanged. Run the same "
        "command again: rows it already holds are kept, the rest are asked",
        file=sys.stderr,
    )
    return 130


def timed(start: float) -> float:
    """Seconds since ``start`` (a ``time.perf_counter()`` reading)."""
    return time.perf_counter() - start
