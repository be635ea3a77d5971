"""What an upload may be: :class:`Limits`, shared by the parsers and the submission policy."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What an upload may be: bytes, rows, and characters per answer."""

    max_bytes: int = 20_000_000
    max_rows: int = 100_000
    max_answer_chars: int = 300
    max_log_bytes: int = 200_000_000
    """An Inspect log (``.eval``) holds every message of the run (about 4.5 kB per judged
    question set, compressed), so it may be larger than a label file."""
