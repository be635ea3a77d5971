"""The members of an Inspect log (a ZIP archive), decompressed under a hard bound on output.

An ``.eval`` log is a ZIP whose members Inspect writes Zstandard-compressed (method 93); stored
(0) and deflate (8) members are read too. A member's declared size is a number the uploader
writes: a member declaring 2 bytes may decompress to gigabytes. So nothing here trusts it:

- :func:`check_archive` counts the central directory before Python's ``zipfile`` builds an
  object per entry, caps the number of members, then decompresses every member as a stream and
  counts the bytes as they come out; a member stops being read the moment its output passes its
  declared size or its cap (:class:`ArchiveCaps`), and the whole archive the moment the sum
  passes the total cap. Each member's CRC-32 must match, so what is read later is what was
  counted. Nothing is parsed before every member has passed.
- :func:`member_bytes` then returns one checked member at a time, under the same caps.

Every refusal is an :class:`~medqade.files.problems.InputError` naming the file, the member,
the size and what to do.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from medqade.files.problems import InputError, Problem

__all__ = [
    "DEFLATED",
    "STORED",
    "ZSTANDARD",
    "ArchiveCaps",
    "CheckedArchive",
    "check_archive",
    "member_bytes",
]

STORED: Final = 0
DEFLATED: Final = 8
ZSTANDARD: Final = 93
"""The compression methods read: stored, deflate and Zstandard (Inspect's)."""
CHUNK: Final = 1 << 20
"""Decompressed bytes asked for at a time (the most held per step beyond the caps)."""
ZSTD_MAX_WINDOW: Final = 1 << 23
"""The largest Zstandard window a frame may ask for (8 MiB: level 19's; Inspect writes level
3, 2 MiB): a frame may not make the decompressor allocate more."""
DIRECTORY_BYTES_PER_MEMBER: Final = 160
"""Central-directory bytes allowed per member (46 fixed plus a name such as
``samples/MQ-C0001_epoch_12.json``, with room): the directory is sized before ``zipfile``
turns each of its entries into an object."""
_FIX: Final = "submit the .eval file that `inspect eval` wrote, unchanged"


@dataclass(frozen=True)
class ArchiveCaps:
    """The most an archive may hold: members, bytes out of one header member (parsed
    whole), of one sample member (parsed one at a time), of any other member (only counted),
    and of all members together."""

    members: int
    header_bytes: int
    sample_bytes: int
    other_bytes: int
    total_bytes: int

    def member_cap(self, name: str) -> int:
        if is_sample_member(name):
            return self.sample_bytes
        if name in HEADER_MEMBERS:
            return self.header_bytes
        return self.other_bytes


HEADER_MEMBERS: Final = ("header.json", "_journal/start.json", "reductions.json")
"""The members Inspect parses whole when it reads a log's header."""


def is_sample_member(name: str) -> bool:
    """Whether ``name`` is one sample of the log (``samples/ID_epoch_N.json``)."""
    return name.startswith("samples/") and name.endswith(".json")


@dataclass(frozen=True)
class CheckedArchive:
    """An archive whose members all passed :func:`check_archive`: the members by name (the
    last entry of a repeated name, as Inspect reads it) and their decompressed total."""

    data: bytes
    members: tuple[zipfile.ZipInfo, ...]
    unpacked: int

    def named(self, name: str) -> zipfile.ZipInfo | None:
        found = None
        for info in self.members:
            if info.filename == name:
                found = info
        return found

    def sample_members(self) -> tuple[zipfile.ZipInfo, ...]:
        """The sample members, the last entry of each name."""
        last = {i.filename: i for i in self.members if is_sample_member(i.filename)}
        return tuple(last.values())


def _refuse(name: str, message: str, fix: str = _FIX) -> InputError:
    return InputError(name, [Problem(name, None, message, fix=fix)])


def _directory_size(data: bytes) -> int | None:
    """The central directory's size from the end record (ZIP64 too), or ``None`` when there
    is no end record (``zipfile`` then says why the file is not a ZIP)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_557))
    if end < 0 or end + 22 > len(data):
        return None
    size = int(struct.unpack_from("<L", data, end + 12)[0])
    z64 = end - 20 - 56
    if size == 0xFFFFFFFF and z64 >= 0 and data[z64 : z64 + 4] == b"PK\x06\x06":
        size = int(struct.unpack_from("<Q", data, z64 + 40)[0])
    return size


def _open(data: bytes, name: str, caps: ArchiveCaps) -> tuple[zipfile.ZipInfo, ...]:
    directory = _directory_size(data)
    most = caps.members * DIRECTORY_BYTES_PER_MEMBER
    if directory is not None and directory > most:
        raise _refuse(
            name,
            f"the log's table of contents has {directory:,} bytes, more than the "
            f"{most:,} of {caps.members:,} members",
            f"{_FIX}, or split the run (inspect eval --limit)",
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = tuple(archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error) as exc:
        raise _refuse(name, f"not a readable Inspect log ({type(exc).__name__})") from None
    if len(members) > caps.members:
        raise _refuse(
            name,
            f"the log has {len(members):,} members, more than the limit of {caps.members:,}",
            f"{_FIX}, or split the run (inspect eval --limit)",
        )
    return members


def _raw(data: bytes, info: zipfile.ZipInfo, name: str) -> bytes:
    """The member's compressed bytes, found through its local header as ``zipfile`` does."""
    start = info.header_offset
    head = data[start : start + 30]
    if len(head) != 30 or head[:4] != b"PK\x03\x04":
        raise _refuse(name, f"member {info.filename!r} has no local header (a damaged log)")
    name_len, extra_len = struct.unpack_from("<HH", head, 26)
    begin = start + 30 + name_len + extra_len
    if data[start + 30 : start + 30 + name_len] != info.orig_filename.encode(
        "utf-8" if info.flag_bits & 0x800 else "cp437"
    ):
        raise _refuse(name, f"member {info.filename!r}: its two recorded names differ")
    raw = data[begin : begin + info.compress_size]
    if len(raw) != info.compress_size:
        raise _refuse(name, f"member {info.filename!r} is cut short (a damaged log)")
    return raw


def _chunks(raw: bytes, method: int) -> Iterator[bytes]:
    """The decompressed bytes of ``raw``, at most :data:`CHUNK` at a time (the caller stops
    reading when it has seen enough: no more is ever decompressed)."""
    if method == STORED:
        for k in range(0, len(raw), CHUNK):
            yield raw[k : k + CHUNK]
        return
    if method == DEFLATED:
        inflate = zlib.decompressobj(-15)
        pending = raw
        while not inflate.eof:
            out = inflate.decompress(pending, CHUNK)
            pending = inflate.unconsumed_tail
            if out:
                yield out
            elif not pending:
                break  # all input taken and nothing more out: the stream ends here
        tail = inflate.flush(CHUNK)
        if tail:
            yield tail
        return
    import zstandard

    reader = zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW).stream_reader(
        io.BytesIO(raw), read_across_frames=True
    )
    with reader:
        while True:
            out = reader.read(CHUNK)
            if not out:
                return
            yield out


def _read_member(
    data: bytes,
    info: zipfile.ZipInfo,
    name: str,
    cap: int,
    room: int,
    sink: Callable[[bytes], None] | None,
) -> int:
    """Decompress one member, counting: refused past its declared size, ``cap`` or ``room``
    (what the total allows); its CRC-32 checked. Each chunk goes to ``sink`` when given."""
    member = info.filename
    if info.compress_type not in (STORED, DEFLATED, ZSTANDARD):
        raise _refuse(
            name,
            f"member {member!r} uses compression method {info.compress_type}; Inspect logs use "
            f"{ZSTANDARD} (Zstandard), {DEFLATED} (deflate) or {STORED} (stored)",
        )
    if info.flag_bits & 0x1:
        raise _refuse(name, f"member {member!r} is encrypted", _FIX)
    if info.file_size > cap:
        raise _refuse(
            name,
            f"member {member!r} unpacks to {info.file_size:,} bytes, more than the limit of "
            f"{cap:,} for one such member",
            f"{_FIX}; a log this large was not written by a MedQADE task",
        )
    if info.file_size > room:
        raise _refuse(
            name,
            f"the log unpacks to more than the limit of its total (member {member!r} declares "
            f"{info.file_size:,} bytes with {room:,} left)",
            f"{_FIX}, or split the run (inspect eval --limit)",
        )
    count = 0
    crc = 0
    try:
        for out in _chunks(_raw(data, info, name), info.compress_type):
            count += len(out)
            if count > info.file_size:
                raise _refuse(
                    name,
                    f"member {member!r} declares {info.file_size:,} bytes but unpacks to more "
                    f"(reading stopped at {count:,}): a forged or damaged log",
                )
            crc = zlib.crc32(out, crc)
            if sink is not None:
                sink(out)
    except InputError:
        raise
    except Exception as exc:  # zlib.error, zstandard.ZstdError: a damaged stream
        raise _refuse(
            name, f"member {member!r} cannot be decompressed ({type(exc).__name__})"
        ) from None
    if count != info.file_size or crc != info.CRC:
        raise _refuse(
            name,
            f"member {member!r} unpacks to {count:,} bytes (declared {info.file_size:,}) "
            "or fails its checksum: a damaged log",
        )
    return count


def check_archive(data: bytes, name: str, caps: ArchiveCaps) -> CheckedArchive:
    """Every member decompressed and counted under ``caps`` (module docstring), or
    :class:`InputError`. Holds at most :data:`CHUNK` decompressed bytes at a time."""
    members = _open(data, name, caps)
    declared = sum(i.file_size for i in members)
    if declared > caps.total_bytes:
        raise _refuse(
            name,
            f"the log unpacks to {declared:,} bytes, more than the limit of {caps.total_bytes:,}",
            f"{_FIX}, or split the run (inspect eval --limit)",
        )
    total = 0
    for info in members:
        total += _read_member(
            data, info, name, caps.member_cap(info.filename), caps.total_bytes - total, None
        )
    return CheckedArchive(data, members, total)


def member_bytes(archive: CheckedArchive, info: zipfile.ZipInfo, name: str, cap: int) -> bytes:
    """One member of a checked archive, decompressed (at most ``cap`` bytes)."""
    parts: list[bytes] = []
    _read_member(archive.data, info, name, cap, cap, parts.append)
    return b"".join(parts)
