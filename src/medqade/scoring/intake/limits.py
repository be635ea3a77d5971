"""What an upload may be: :class:`Limits`, shared by the parsers and the submission policy.

One home for every bound on what an upload can make us allocate; ``medqade score`` and the Space
read the same numbers. The sizes of a real log, measured on ``inspect eval medqade/judge`` with
a mock model over the sample release (six question sets, one epoch): each sample member unpacks
to about 19 kB, ``header.json`` to 13 kB (it lists the sample ids, so it grows with the run),
``summaries.json`` to 1.8 kB per sample, ``reductions.json`` to 0.5 kB per sample. A full run
is 3,800 samples per epoch, so about 72 MB unpacked per epoch with a mock model's short
replies (its log is 18.4 MB packed: ``bench/upload_memory.py --synthetic``); a reasoning
model's replies make a sample ten times larger.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """What an upload may be: bytes, rows, and characters per answer; for an Inspect log also
    what it may unpack to (each bound is counted while decompressing, never read from the
    archive's own declarations)."""

    max_bytes: int = 20_000_000
    max_rows: int = 100_000
    max_answer_chars: int = 300
    max_log_bytes: int = 200_000_000
    """An Inspect log (``.eval``) holds every message of the run (about 4.5 kB per judged
    question set, compressed), so it may be larger than a label file."""
    max_log_members: int = 40_000
    """Members of one log: a sample per question and epoch (3,800 sets x 10 epochs = 38,000)
    plus a header, summaries and a journal; the central directory is sized before it is read
    (``scoring.log_archive``), so a log of a million empty members costs nothing."""
    max_log_header_bytes: int = 16_000_000
    """The most ``header.json``, ``_journal/start.json`` or ``reductions.json`` may unpack to:
    these are parsed whole (by Inspect's header reader). A header holds the run's sample ids
    (tens of kB for a full run) and the reductions 0.5 kB per sample (10 MB at 19,000)."""
    max_log_sample_bytes: int = 8_000_000
    """The most one sample member may unpack to: each is parsed alone, then dropped. About
    19 kB with short replies; 400 times that leaves room for long reasoning transcripts."""
    max_log_other_bytes: int = 100_000_000
    """Any other member (``summaries.json``, the journal's summaries): counted while it is
    decompressed, never parsed; 1.8 kB per sample, 35 MB at 19,000 samples."""
    max_log_unpacked_bytes: int = 1_000_000_000
    """The whole log unpacked: ten epochs of a full run with long replies. Members are
    decompressed one at a time as streams, so this bounds the work, not what is held."""
    max_line_bytes: int = 1_000_000
    """One line of a JSON Lines upload (or of CSV), checked before any line is parsed: a data
    row is under 3 kB (a per-question row with a raw reply cut at 2,000 characters) and the
    ``{"meta": ...}`` header under 10 kB. ``json.loads`` of a line can take about twenty times
    its bytes (``[{},{},...]``), so a 1 MB line costs at most about 20 MB."""
    max_parquet_unpacked_bytes: int = 200_000_000
    """A Parquet upload's pages uncompressed (its row groups' sizes, read from the footer
    before any column is; a full 19,000-row judge file is about 2 MB): compression makes a
    small file of large pages. Text columns are read dictionary-encoded, so a text repeated
    on every row is held once."""
