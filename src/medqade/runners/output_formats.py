"""The structured-output ladder of the judge task: the request shapes to try, best first
(:func:`format_ladder`: ``json_schema`` -> ``json_object`` with the schema -> ``json_object``
-> none), the run's current rung (:class:`Ladder`), and whether an error is a server refusing
a shape (:func:`refused_format`). The judge solver
(:func:`~medqade.runners.inspect_tasks.judge_solver`) walks it once for the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema

from medqade.runners.judge import RESPONSE_FORMATS
from medqade.runners.prompts import judge_schema

_FORMAT_WORDS: Final = ("response_format", "json_schema", "json_object", "schema")


@dataclass(frozen=True)
class Rung:
    """One structured-output request shape: its name and the generate settings it adds."""

    name: str
    config: Mapping[str, Any]


def format_ladder(kind: str, n: int) -> tuple[Rung, ...]:
    """The structured-output shapes to try, best first, starting at ``kind``:
    ``json_schema`` (Inspect's ``response_schema``, strict) -> ``json_object`` with the schema
    (llama.cpp's form) -> ``json_object`` -> none (the user message states the format and the
    parser checks it)."""
    if kind not in RESPONSE_FORMATS:
        raise ValueError(
            f"-T response_format must be one of {', '.join(RESPONSE_FORMATS)}, got {kind!r}"
        )
    schema = judge_schema(n)["json_schema"]
    rungs = (
        Rung(
            "json_schema",
            {
                "response_schema": ResponseSchema(
                    name=schema["name"],
                    json_schema=JSONSchema.model_validate(schema["schema"]),
                    strict=True,
                )
            },
        ),
        Rung(
            "json_object with schema",
            {
                "extra_body": {
                    "response_format": {"type": "json_object", "schema": schema["schema"]}
                }
            },
        ),
        Rung("json_object", {"extra_body": {"response_format": {"type": "json_object"}}}),
        Rung("none", {}),
    )
    start = {"json_schema": 0, "json_object": 2, "none": 3}[kind]
    return rungs[start:]


class Ladder:
    """The run's current rung: a server that refuses a shape makes every later request of
    the run start one rung lower (shared by the samples of one task)."""

    def __init__(self, rungs: Sequence[Rung], extra_body: Mapping[str, Any] | None = None) -> None:
        extra = dict(extra_body or {})
        self.rungs = tuple(
            Rung(r.name, {**r.config, "extra_body": {**extra, **r.config["extra_body"]}})
            if "extra_body" in r.config
            else r
            for r in rungs
        )
        self.level = 0
        self.confirmed = False
        self.lock = asyncio.Lock()

    def step_down(self, level: int) -> bool:
        """Start later requests one rung below ``level`` (never above the current level);
        False when ``level`` is the last rung."""
        if level + 1 >= len(self.rungs):
            return False
        self.level = max(self.level, level + 1)
        return True


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps: its cause and context, and a retry wrapper's last error."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo and len(seen) < 10:
        one = todo.pop()
        if one is None or any(one is s for s in seen):
            continue
        seen.append(one)
        attempt = getattr(one, "last_attempt", None)  # tenacity's RetryError
        if attempt is not None and hasattr(attempt, "exception"):
            todo.append(attempt.exception())
        todo += [one.__cause__, one.__context__]
    return seen


def refused_format(exc: BaseException) -> bool:
    """Whether an error is a server refusing the requested ``response_format``."""
    text = " ".join(str(e) for e in _causes(exc)).lower()
    return any(word in text for word in _FORMAT_WORDS)
