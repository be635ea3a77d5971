"""Decoding settings of a submission: as a submitter types them (:func:`parse_decoding`, the
same for ``medqade score --decoding`` and the Space's form), as a record keeps them
(:func:`check_decoding`), and whether they make a run deterministic
(:func:`deterministic_decoding`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final


def check_decoding(value: Any, limit: int) -> dict[str, Any] | str | None:
    """Decoding settings as a record keeps them: a text of at most ``limit`` characters
    (stripped), or an object of at most 20 scalars (keys of at most 60 characters, texts of at
    most ``limit``, finite numbers) sorted by key; ``None`` when it is neither."""
    if isinstance(value, str):
        text = value.strip()
        return text if len(text) <= limit else None
    if not isinstance(value, Mapping) or len(value) > 20:
        return None
    out: dict[str, Any] = {}
    for k, v in value.items():
        if not isinstance(k, str) or len(k) > 60:
            return None
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if (
            v is None
            or isinstance(v, (bool, int, float))
            or (isinstance(v, str) and len(v) <= limit)
        ):
            out[k] = v
        else:
            return None
    return dict(sorted(out.items()))


_GREEDY_TEXT: Final = re.compile(
    r"\bgreedy\b|\btemp(?:erature)?\s*[=:]?\s*0(?:\.0*)?(?![\d.])", re.IGNORECASE
)


def _zero(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return False
    return isinstance(value, (int, float)) and value == 0


def deterministic_decoding(decoding: Any) -> bool:
    """Whether the decoding settings a submission recorded (``meta.decoding``, as
    :func:`parse_decoding` or an Inspect log gives them) make a run deterministic: temperature
    0, ``top_k`` 1, ``do_sample`` false, a ``greedy`` setting or strategy, or a text that says
    greedy or temperature 0. Repeated runs of such a judge agree with themselves by
    construction wherever the prompt is the same (:mod:`medqade.measures.consistency`)."""
    if isinstance(decoding, str):
        return bool(_GREEDY_TEXT.search(decoding))
    if not isinstance(decoding, Mapping):
        return False
    keys = {str(k).casefold(): v for k, v in decoding.items()}
    top_k = keys.get("top_k")
    strategy = keys.get("strategy", keys.get("decoding"))
    return (
        _zero(keys.get("temperature"))
        or (not isinstance(top_k, bool) and isinstance(top_k, (int, float)) and top_k == 1)
        or keys.get("do_sample") is False
        or keys.get("greedy") is True
        or (isinstance(strategy, str) and strategy.strip().casefold() == "greedy")
    )


def parse_decoding(text: str) -> dict[str, Any] | str:
    """Decoding settings as a submitter types them, the same for ``medqade score --decoding``
    and the Space's form: a JSON object (``{"temperature": 0}``), ``key=value`` pairs separated
    by commas (``temperature=0,max_tokens=64``: each value read as JSON when it is, else as
    text) or, without ``=``, a short text kept as given. ``ValueError`` for a malformed one."""
    text = text.strip()
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"decoding: not valid JSON ({exc.msg})") from None
        if not isinstance(value, dict):
            raise ValueError("decoding: expected a JSON object")
        return value
    if "=" not in text:
        return text
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, raw = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"decoding: expected key=value, got {part!r}")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw.strip()
    return out


__all__ = ["check_decoding", "deterministic_decoding", "parse_decoding"]
