"""Uploaded bytes in, a table of raw cells out: CSV, JSON Lines or Parquet, checked for the
mistakes people make when they export a file (size, encoding, delimiter, spreadsheet formats,
compressed files and archives: each is named, with what to upload instead).

Decoding and CSV/JSONL parsing reuse :mod:`medqade.files.tables`; this module adds what an upload
needs on top: a size limit, format detection by extension or content, the ``{"meta": {...}}``
header line of JSONL, normalised column names and a ``_line`` position for every row.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade.files.problems import InputError, Problem
from medqade.files.tables import read_csv_text, read_jsonl_text
from medqade.scoring.inspect_log import is_eval_log, log_table_text
from medqade.scoring.limits import Limits

if TYPE_CHECKING:
    from medqade.dataset.release import Release

LINE: Final = "_line"
BOM: Final = b"\xef\xbb\xbf"
CSV_SUFFIXES: Final = (".csv", ".tsv", ".txt")
JSONL_SUFFIXES: Final = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES: Final = (".parquet", ".pq")
_FORMULA = re.compile(r"^\s*[=+\-@]\s*[A-Za-z_.]*\s*\(|^\s*=")

NOT_TEXT: Final = object()
"""Cell marker for a JSON list or object where text was expected."""


@dataclass(frozen=True)
class RawTable:
    """A parsed upload: ``frame`` holds raw cells (object dtype) plus ``_line``."""

    name: str
    format: str  # "csv" | "jsonl" | "parquet"
    frame: pd.DataFrame
    header_meta: dict[str, Any] | None = None
    header_line: int | None = None
    notes: tuple[Problem, ...] = field(default=())

    @property
    def row_kind(self) -> str:
        return "row" if self.format == "parquet" else "line"

    @property
    def columns(self) -> list[str]:
        return [c for c in self.frame.columns if c != LINE]


def column_key(name: object) -> str:
    """Normalised column name: trimmed, case-folded, spaces and dashes as ``_``."""
    text = str(name).replace("\ufeff", "").strip().strip('"').strip()
    return re.sub(r"[\s\-]+", "_", text).casefold()


def looks_like_formula(text: str) -> bool:
    """True for cells a spreadsheet would run as a formula (``=HYPERLINK(...)``, ``@SUM(``)."""
    return bool(_FORMULA.match(text))


def cell_text(value: Any) -> Any:
    """A cell as text, ``None`` when empty or null, :data:`NOT_TEXT` for lists and objects."""
    if value is None:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return None
        return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)
    return NOT_TEXT


def _problem(name: str, message: str, fix: str, line: int | None = None) -> InputError:
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
_UPLOAD_FORMATS: Final = ".csv, .jsonl or .parquet file (or an Inspect .eval log)"


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
            raise _problem(
                name,
                f"the file is {fmt}-compressed data, not a table file",
                f"decompress it first (e.g. with {tool}) and upload the "
                f"{_UPLOAD_FORMATS}; Parquet is the compact format for a large submission",
            )
    if data.startswith(ZIP_MAGIC):
        if not lower.endswith(SPREADSHEET_SUFFIXES) and _zip_kind(data) == "archive":
            raise _problem(
                name,
                "the file is a ZIP archive, not a table file",
                f"unzip it and upload the {_UPLOAD_FORMATS} inside it (one per submission)",
            )
        raise _problem(
            name,
            "this is a spreadsheet workbook, not a table file",
            "export it as 'CSV UTF-8 (comma delimited)', or save JSON Lines or Parquet",
        )
    if data.startswith(OLE2_MAGIC):
        raise _problem(
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
            raise _problem(
                name,
                f"this is a binary file, not CSV or JSON Lines text (byte 0x{bad:02X} at "
                f"offset {exc.start:,})",
                f"upload a {_UPLOAD_FORMATS} instead (Parquet is the one binary format accepted)",
                line=line,
            ) from None
        raise _problem(
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
        raise _problem(
            name,
            "this is a spreadsheet workbook, not a table file",
            "export it as 'CSV UTF-8 (comma delimited)', or save JSON Lines or Parquet",
        )
    if data.startswith(b"PAR1"):
        return "parquet"
    head = data.lstrip(BOM).lstrip()[:1]
    return "jsonl" if head in (b"{", b"[") else "csv"


def read_upload(
    data: bytes,
    name: str,
    max_bytes: int,
    max_log_bytes: int | None = None,
    *,
    release: Release | None = None,
    limits: Limits | None = None,
) -> RawTable:
    """Parse an upload into a :class:`RawTable` or raise :class:`InputError`; an Inspect log
    may have up to ``max_log_bytes`` (default ``max_bytes``) and is read against ``release``
    (which it must match: :func:`medqade.scoring.inspect_log.log_rows`).

    With ``limits`` (or its defaults) nothing is parsed that could take more than its budget:
    a log's members are counted while they are decompressed, a text file's lines are counted
    and measured (``max_rows``, ``max_line_bytes``) and a Parquet file's rows and unpacked
    size read from its footer, each before the first value is parsed."""
    bounds = Limits() if limits is None else limits
    log_limit = max_bytes if max_log_bytes is None else max_log_bytes
    if is_eval_log(data, name) and len(data) <= log_limit:
        max_bytes = log_limit
    if len(data) > max_bytes:
        raise _problem(
            name,
            f"the file has {len(data):,} bytes, more than the limit of {max_bytes:,}",
            "remove extra columns (such as raw model output) or compress it as Parquet",
        )
    if is_eval_log(data, name):  # an Inspect log: its rows as JSON Lines (scoring.inspect_log)
        if release is None:
            raise ValueError("an Inspect log is read against the release it is scored on")
        text, log_notes = log_table_text(data, name, release, bounds)
        frame, meta, meta_line = _read_jsonl(text, name)
        return RawTable(name, "jsonl", frame, meta, meta_line, log_notes)
    check_not_packed(data, name)
    fmt = detect_format(data, name)
    if fmt == "parquet":
        _check_parquet_size(data, name, bounds)
        return _read_parquet(data, name)
    _check_lines(data, name, bounds)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _problem(
            name,
            "the file is UTF-16 encoded",
            "save it as UTF-8 (in Excel: 'CSV UTF-8 (comma delimited)')",
            line=1,
        )
    notes: list[Problem] = []
    if data.startswith(BOM):
        notes.append(
            Problem(
                name,
                1,
                "the file starts with a UTF-8 byte-order mark; it was ignored",
                fix="nothing to do (or save as UTF-8 without BOM)",
            )
        )
    text = decode_upload(data, name)
    if not text.strip():
        raise _problem(name, "the file is empty", "add a header row and one row per label")
    if fmt == "csv":
        return RawTable(name, "csv", _read_csv(text, name), notes=tuple(notes))
    frame, meta, meta_line = _read_jsonl(text, name)
    return RawTable(name, "jsonl", frame, meta, meta_line, tuple(notes))


def _check_lines(data: bytes, name: str, limits: Limits) -> None:
    """Refuse a text upload with more lines than ``max_rows`` allows, or a line longer than
    ``max_line_bytes``, before any line is parsed (one huge JSON line would otherwise be parsed
    whole: ``[{},{},...]`` takes about twenty times its bytes)."""
    lines = data.count(b"\n")
    if lines > limits.max_rows + 2:  # a header and a trailing line beyond the rows
        raise _problem(
            name,
            f"the file has {lines:,} lines, so about {lines - 1:,} rows, more than the limit "
            f"of {limits.max_rows:,}",
            "submit one judge or one model per file",
        )
    start = line = 0
    while start < len(data):
        line += 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if end - start > limits.max_line_bytes:
            raise _problem(
                name,
                f"line {line:,} has {end - start:,} bytes, more than the limit of "
                f"{limits.max_line_bytes:,} for one line",
                "write one row per line (a row of labels or an answer is a few hundred "
                "bytes); leave out long fields such as raw model output",
                line=line,
            )
        start = end + 1


def _check_parquet_size(data: bytes, name: str, limits: Limits) -> None:
    """Refuse a Parquet file whose footer declares more rows than ``max_rows`` or more
    unpacked bytes than ``max_parquet_unpacked_bytes``, before any column is read."""
    try:
        meta = pq.ParquetFile(pa.BufferReader(data)).metadata
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError) as exc:
        raise _problem(
            name, f"not a readable Parquet file ({type(exc).__name__})", "write it again"
        ) from None
    if meta.num_rows > limits.max_rows:
        raise _problem(
            name,
            f"the file has {meta.num_rows:,} rows, more than the limit of {limits.max_rows:,}",
            "submit one judge or one model per file",
        )
    unpacked = sum(meta.row_group(k).total_byte_size for k in range(meta.num_row_groups))
    if unpacked > limits.max_parquet_unpacked_bytes:
        raise _problem(
            name,
            f"the file's columns unpack to {unpacked:,} bytes, more than the limit of "
            f"{limits.max_parquet_unpacked_bytes:,}",
            "leave out long fields such as raw model output, or split the file",
        )


def _read_csv(text: str, name: str) -> pd.DataFrame:
    first = text.lstrip("\ufeff").lstrip("\r\n").split("\n", 1)[0].rstrip("\r")
    try:
        header = next(csv.reader([first]), [])
    except csv.Error:
        header = [first]
    if len(header) <= 1:
        for delim, word in ((";", "semicolons"), ("\t", "tabs"), ("|", "vertical bars")):
            if delim in first:
                raise InputError(
                    name,
                    [
                        Problem(
                            name,
                            1,
                            f"the columns are separated by {word}, not commas",
                            value=first[:80],
                            fix="use commas as the delimiter "
                            "(in Excel: save as 'CSV UTF-8 (comma delimited)')",
                        )
                    ],
                )
    if text.lstrip().startswith("{"):
        raise _problem(
            name,
            "this looks like JSON Lines, not CSV",
            "name the file *.jsonl",
            line=1,
        )
    try:
        frame = read_csv_text(text, name)
    except InputError:
        raise
    except (csv.Error, ValueError, OverflowError, MemoryError, IndexError) as exc:
        raise _problem(
            name, f"not a readable CSV file ({type(exc).__name__})", "check quoting and commas"
        ) from None
    return _normalise_columns(frame, name)


def _normalise_columns(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    keys = [c if c == LINE else column_key(c) for c in frame.columns]
    seen: dict[str, int] = {}
    for k in keys:
        seen[k] = seen.get(k, 0) + 1
    dupes = sorted(k for k, n in seen.items() if n > 1)
    if dupes:
        raise _problem(
            name,
            f"column(s) {', '.join(repr(d) for d in dupes)} appear more than once in the header",
            "keep each column once",
            line=1,
        )
    frame = frame.copy()
    frame.columns = keys
    return frame


def _read_jsonl(text: str, name: str) -> tuple[pd.DataFrame, dict[str, Any] | None, int | None]:
    if text.lstrip("\ufeff \t\r\n").startswith("["):
        raise _problem(
            name,
            "this is a JSON array, not JSON Lines",
            "write one JSON object per line (no surrounding [ ])",
            line=1,
        )
    try:
        records, lines, problems = read_jsonl_text(text, name)
    except (RecursionError, ValueError, OverflowError) as exc:
        raise _problem(
            name, f"not valid JSON Lines ({type(exc).__name__})", "write one JSON object per line"
        ) from None
    meta: dict[str, Any] | None = None
    meta_line: int | None = None
    if records and list(records[0]) == ["meta"]:
        head = records.pop(0)["meta"]
        meta_line = lines.pop(0)
        if not isinstance(head, dict):
            problems.append(
                Problem(
                    name,
                    meta_line,
                    "the meta header must be an object",
                    fix='write {"meta": {"name": ..., "family": ...}}',
                )
            )
        else:
            meta = head
    for rec, line in zip(records, lines, strict=True):
        if "meta" in rec:
            problems.append(
                Problem(
                    name,
                    line,
                    'a "meta" object is only allowed as the first line',
                    fix="move the metadata to line 1, on its own",
                )
            )
    if problems:
        raise InputError(name, problems)
    columns: dict[str, list[Any]] = {}
    keys_seen: list[str] = []
    for rec in records:
        for key in rec:
            k = column_key(key)
            if k not in columns:
                columns[k] = []
                keys_seen.append(k)
    data: dict[str, list[Any]] = {k: [None] * len(records) for k in keys_seen}
    for row, rec in enumerate(records):
        for key, value in rec.items():
            data[column_key(key)][row] = value
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in data.items()})
    frame[LINE] = lines
    return frame, meta, meta_line


def _read_parquet(data: bytes, name: str) -> RawTable:
    if not data.startswith(b"PAR1"):
        raise _problem(
            name, "not a Parquet file (no PAR1 magic bytes)", "upload a .parquet, .csv or .jsonl"
        )
    try:
        schema = pq.ParquetFile(pa.BufferReader(data)).schema_arrow
        # text columns stay dictionary-encoded: a value repeated on every row is held once
        # (decoded, one long text on 100,000 rows would take 100,000 times its length)
        texts = [
            f.name
            for f in schema
            if pa.types.is_string(f.type)
            or pa.types.is_large_string(f.type)
            or pa.types.is_binary(f.type)
        ]
        table = pq.read_table(pa.BufferReader(data), read_dictionary=texts)
        frame = table.to_pandas()
    except (pa.ArrowException, OSError, ValueError, TypeError, IndexError, MemoryError) as exc:
        raise _problem(
            name, f"not a readable Parquet file ({type(exc).__name__})", "write it again"
        ) from None
    out = pd.DataFrame({c: pd.Series(_py(frame[c]), dtype=object) for c in frame.columns})
    out = _normalise_columns(out, name)
    out[LINE] = range(1, len(out) + 1)
    return RawTable(name, "parquet", out)


def _py(column: pd.Series) -> list[Any]:
    if isinstance(column.dtype, pd.CategoricalDtype):  # a dictionary-encoded text column
        return [None if v is None or v != v else v for v in column.astype(object).tolist()]
    values = []
    for v in column.tolist():
        if isinstance(v, np.ndarray):
            v = v.tolist()
        elif v is pd.NA or v is pd.NaT:
            v = None
        values.append(v)
    return values


def csv_cell(value: Any) -> Any:
    """A value safe to write into a CSV that a spreadsheet opens: text starting with ``=``,
    ``+``, ``-``, ``@``, tab or carriage return gets a leading ``'`` (formula injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as UTF-8 CSV text with every text cell passed through :func:`csv_cell`."""
    safe = frame.copy()
    for col in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[col]):
            safe[col] = safe[col].astype(object).map(csv_cell)
    safe.columns = [csv_cell(str(c)) for c in safe.columns]
    buf = io.StringIO()
    safe.to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue()


def jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars as Python numbers, tuples as lists and NaN/inf as None."""
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    return obj


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys, no NaN) used for hashing and records."""
    return json.dumps(
        obj, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")
    )
