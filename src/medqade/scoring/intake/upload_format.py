"""What an uploaded file is before it is read: compressed files, archives and spreadsheet
workbooks are named with what to upload instead; text must be UTF-8; the format (CSV, JSON Lines
or Parquet) is told by the extension or, failing that, by the content."""

from __future__ import annotations

import io
import re
from typing import Final

from medqade.files.problems import InputError, Problem

BOM: Final = b"\xef\xbb\xbf"


CSV_SUFFIXES: Final = (".csv", ".tsv", ".txt")


JSONL_SUFFIXES: Final = (".jsonl", ".ndjson", ".json")


PARQUET_SUFFIXES: Final = (".parquet", ".pq")


def upload_problem(name: str, message: str, fix: str, line: int | None = None) -> InputError:
    """The one-problem error about the upload ``name`` (at ``line``, when known), with its fix."""
    return InputError(name, [Problem(name, line, message, fix=fix)])


COMPRESSED: Final = (
    (re.compile(rb"\x1f\x8b"), "gzip", "gunzip or 7-Zip"),
    (re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)"), "bzip2", "bunzip2 or 7-Zip"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz", "unxz or 7-Zip"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "Zstandard", "unzstd or 7-Zip"),
    (re.compile(rb"7z\xbc\xaf\x27\x1c"), "7-Zip", "7-Zip"),
    (re.compile(rb"Rar!\x1a\x07"), "RAR", "unrar or 7-Zip"),
    (re.compile(rb"\x04\x22\x4d\x18"), "LZ4", "unlz4"),
)
"""Magic bytes of compressed files and archives: (start pattern, format, how to unpack)."""


ZIP_MAGIC: Final = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")


OLE2_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


SPREADSHEET_SUFFIXES: Final = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


UPLOAD_FORMATS: Final = ".csv, .jsonl or .parquet file (or an Inspect .eval log)"


def _zip_kind(data: bytes) -> str:
    """``spreadsheet`` for an Office/OpenDocument workbook, else ``archive``."""
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        return "spreadsheet"  # a truncated zip: the old message, a workbook, is the likely case
    workbook = {"[Content_Types].xml", "mimetype", "xl/workbook.xml", "content.xml"}
    return "spreadsheet" if workbook & set(names) else "archive"


def check_not_packed(data: bytes, name: str) -> None:
    """Raise :class:`InputError` for a compressed file, an archive or a spreadsheet workbook,
    saying which format it is and what to upload instead."""
    lower = name.lower()
    for magic, fmt, tool in COMPRESSED:
        if magic.match(data):
            raise upload_problem(
                name,
                f"the file is {fmt}-compressed data, not a table file",
                f"decompress it first (e.g. with {tool}) and upload the "
                f"{UPLOAD_FORMATS}; Parquet is the compact format for a large submission",
            )
    if data.startswith(ZIP_MAGIC):
        if not lower.endswith(SPREADSHEET_SUFFIXES) and _zip_kind(data) == "archive":
            raise upload_problem(
                name,
                "the file is a ZIP archive, not a table file",
                f"unzip it and upload the {UPLOAD_FORMATS} inside it (one per submission)",
            )
        raise upload_problem(
            name,
            "this is a spreadsheet workbook, not a table file",
            "export it as 'CSV UTF-8 (comma delimited)', or save JSON Lines or Parquet",
        )
    if data.startswith(OLE2_MAGIC):
        raise upload_problem(
            name,
            "this is a legacy Excel workbook (.xls), not a table file",
            "export it as 'CSV UTF-8 (comma delimited)', or save JSON Lines or Parquet",
        )


def decode_upload(data: bytes, name: str) -> str:
    """UTF-8 text (an optional BOM dropped), or :class:`InputError` naming the line and offset
    of the first bad byte in hex (never a Python bytes repr)."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        bad = data[exc.start]
        head = data[:4096]
        if b"\x00" in head or sum(b < 9 or 13 < b < 32 for b in head) > len(head) // 20:
            raise upload_problem(
                name,
                f"this is a binary file, not CSV or JSON Lines text (byte 0x{bad:02X} at "
                f"offset {exc.start:,})",
                f"upload a {UPLOAD_FORMATS} instead (Parquet is the one binary format accepted)",
                line=line,
            ) from None
        raise upload_problem(
            name,
            f"not UTF-8: byte 0x{bad:02X} at offset {exc.start:,}",
            "save the file as UTF-8 (German umlauts and ß must be UTF-8 encoded; in Excel: "
            "'CSV UTF-8 (comma delimited)')",
            line=line,
        ) from None


def detect_format(data: bytes, name: str) -> str:
    """``csv``, ``jsonl`` or ``parquet`` from the extension, else from the content."""
    lower = name.lower()
    if lower.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if lower.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if lower.endswith(CSV_SUFFIXES):
        return "csv"
    if data.startswith(ZIP_MAGIC) or lower.endswith(SPREADSHEET_SUFFIXES):
        raise upload_problem(
            name,
            "this is a spreadsheet workbook, not a table file",
            "export it as 'CSV UTF-8 (comma delimited)', or save JSON Lines or Parquet",
        )
    if data.startswith(b"PAR1"):
        return "parquet"
    head = data.lstrip(BOM).lstrip()[:1]
    return "jsonl" if head in (b"{", b"[") else "csv"
