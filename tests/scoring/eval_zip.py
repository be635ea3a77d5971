"""Writing Inspect logs member by member, for hostile tests and the memory bench.

A real ``.eval`` log's members are read (:func:`members_of`), edited (:func:`edit_json`) and
written back by a minimal ZIP writer (:func:`write_zip`) that compresses as Inspect does
(Zstandard, method 93) and can declare any size and stream any amount of output
(:func:`bomb_member`: the payload is compressed chunk by chunk, never held whole).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import zstandard

ZSTD = 93
_CHUNK = 16 * 2**20


@dataclass(frozen=True)
class Member:
    """One member: its name and uncompressed bytes, or (``raw``) bytes already compressed
    with ``method`` together with the size and CRC-32 to declare."""

    name: str
    data: bytes = b""
    method: int = ZSTD
    raw: bytes | None = None
    size: int | None = None
    crc: int | None = None


def members_of(log: bytes) -> list[Member]:
    """The members of a log, uncompressed (Inspect's reader registers Zstandard)."""
    import inspect_ai.log  # noqa: F401  (patches zipfile for method 93)

    with zipfile.ZipFile(io.BytesIO(log)) as archive:
        return [Member(i.filename, archive.read(i)) for i in archive.infolist()]


def edit_json(
    members: list[Member], names: Iterable[str], edit: Callable[[Any], None]
) -> list[Member]:
    """``members`` with the JSON of each member in ``names`` changed in place by ``edit``."""
    wanted = set(names)
    out = []
    for m in members:
        if m.name in wanted:
            obj = json.loads(m.data)
            edit(obj)
            m = Member(m.name, json.dumps(obj).encode("utf-8"), m.method)
        out.append(m)
    return out


def bomb_member(
    name: str,
    size: int,
    method: int,
    *,
    declared: int | None = None,
    fill: bytes = b"\x00",
    tail: bytes = b"",
) -> Member:
    """A member unpacking to ``size`` bytes of ``fill`` then ``tail``, compressed in chunks;
    it declares ``declared`` bytes (default: the truth) with the matching CRC of the truth."""
    chunk = fill * (_CHUNK // len(fill))
    crc = 0
    out = io.BytesIO()
    zstd = zstandard.ZstdCompressor(level=1).compressobj()
    deflate = zlib.compressobj(1, zlib.DEFLATED, -15)
    pack = zstd.compress if method == ZSTD else deflate.compress
    left = size
    while left > 0:
        part = chunk[: min(left, len(chunk))]
        crc = zlib.crc32(part, crc)
        out.write(pack(part))
        left -= len(part)
    crc = zlib.crc32(tail, crc)
    out.write(pack(tail))
    out.write(zstd.flush() if method == ZSTD else deflate.flush())
    total = size + len(tail)
    return Member(
        name,
        method=method,
        raw=out.getvalue(),
        size=total if declared is None else declared,
        crc=crc,
    )


def _compressed(m: Member) -> tuple[bytes, int, int]:
    if m.raw is not None:
        return m.raw, int(m.size or 0), int(m.crc or 0)
    if m.method == zipfile.ZIP_STORED:
        raw = m.data
    elif m.method == zipfile.ZIP_DEFLATED:
        d = zlib.compressobj(6, zlib.DEFLATED, -15)
        raw = d.compress(m.data) + d.flush()
    else:
        raw = zstandard.ZstdCompressor(level=3).compress(m.data)
    return raw, len(m.data), zlib.crc32(m.data)


def write_zip(members: Iterable[Member]) -> bytes:
    """A ZIP archive of ``members`` (local headers, central directory, end record)."""
    out = io.BytesIO()
    central = io.BytesIO()
    n = 0
    for m in members:
        raw, size, crc = _compressed(m)
        name = m.name.encode("utf-8")
        version = 63 if m.method == ZSTD else 20
        offset = out.tell()
        out.write(
            struct.pack(
                "<4s5H3L2H",
                b"PK\x03\x04",
                version,
                0x800,
                m.method,
                0,
                0x21,
                crc,
                len(raw),
                size,
                len(name),
                0,
            )
        )
        out.write(name)
        out.write(raw)
        central.write(
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                version,
                version,
                0x800,
                m.method,
                0,
                0x21,
                crc,
                len(raw),
                size,
                len(name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
        )
        central.write(name)
        n += 1
    start = out.tell()
    directory = central.getvalue()
    out.write(directory)
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, len(directory), start, 0))
    return out.getvalue()
