"""Turning a model's text into a student answer or a judge verdict, or refusing to.

A parser either returns a value or raises :class:`InvalidOutput` naming what was wrong; it
never guesses. Labels and difficulties are canonicalised only through
:func:`medqade.vocab.parse_label` and :func:`medqade.vocab.parse_difficulty`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from medqade.runners.prompts import response_keys
from medqade.vocab import N_SLOTS, parse_difficulty, parse_label

_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class InvalidOutput(ValueError):
    """The model answered, but not in a usable form (no JSON, unknown label, missing key...)."""


@dataclass(frozen=True)
class Verdict:
    """One judge's parsed output for one question: labels in presentation order."""

    labels: tuple[str, ...]
    difficulty: str

    def to_dict(self) -> dict[str, str]:
        out = dict(zip(response_keys(len(self.labels)), self.labels, strict=True))
        out["difficulty"] = self.difficulty
        return out


def strip_reasoning(text: str) -> str:
    """Drop a leading ``<think>...</think>`` block (reasoning models served by vLLM/Ollama)."""
    return _THINK.sub("", text, count=1).strip()


def parse_student_output(text: str) -> str:
    """The student's answer: the reply without a reasoning block, trimmed; empty is invalid."""
    answer = strip_reasoning(text)
    if not answer:
        raise InvalidOutput("empty answer")
    return answer


def parse_judge_output(text: str, n: int = N_SLOTS) -> Verdict:
    """Parse a judge reply into a :class:`Verdict` or raise :class:`InvalidOutput`.

    Accepts a JSON object, optionally inside a Markdown code fence or after a reasoning block.
    Keys beyond ``resp_1..resp_n`` and ``difficulty`` are ignored.
    """
    body = strip_reasoning(text)
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        data: Any = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InvalidOutput(f"no JSON object in the reply ({exc.msg})") from None
    if not isinstance(data, dict):
        raise InvalidOutput(f"expected a JSON object, got {type(data).__name__}")
    keys = (*response_keys(n), "difficulty")
    missing = [k for k in keys if k not in data]
    if missing:
        raise InvalidOutput(f"missing keys: {', '.join(missing)}")
    labels = []
    for key in keys[:-1]:
        try:
            labels.append(parse_label(data[key]))
        except ValueError:
            raise InvalidOutput(f"{key}: label {data[key]!r} is not one of the labels") from None
    try:
        difficulty = parse_difficulty(data["difficulty"])
    except ValueError:
        raise InvalidOutput(f"difficulty {data['difficulty']!r} is not a difficulty") from None
    return Verdict(tuple(labels), difficulty)
