"""Uploaded bytes in, a table of raw cells out: CSV, JSON Lines or Parquet, checked for the
mistakes people make when they export a file (size, encoding, delimiter, spreadsheet formats,
compressed files and archives: each is named, with what to upload instead).

Decoding and CSV/JSONL parsing reuse :mod:`medqade.files.tables`; this module adds what an upload
needs on top: a size limit, format detection by extension or content, the ``{"meta": {...}}``
header line of JSONL, normalised column names and a ``_line`` position for every row. What the
file is before it is read (packed, encoding, format) is
:mod:`~medqade.scoring.intake.upload_format`'s; the cells of the table it makes are
:mod:`~medqade.scoring.intake.upload_cells`'.
"""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade.files.problems import InputError, Problem
from medqade.files.tables import read_csv_text, read_jsonl_text
from medqade.scoring.intake.inspect_log import log_table_text
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.log_reader import is_eval_log
from medqade.scoring.intake.upload_cells import LINE, RawTable, column_key
from medqade.scoring.intake.upload_format import (
    BOM,
    check_not_packed,
    decode_upload,
    detect_format,
    upload_problem,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release


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
    (which it must match: :func:`medqade.scoring.intake.inspect_log.log_rows`).

    With ``limits`` (or its defaults) nothing is parsed that could take more than its budget:
    a log's members are counted while they are decompressed, a text file's lines are counted
    and measured (``max_rows``, ``max_line_bytes``) and a Parquet file's rows and unpacked
    size read from its footer, each before the first value is parsed."""
    bounds = Limits() if limits is None else limits
    log_limit = max_bytes if max_log_bytes is None else max_log_bytes
    if is_eval_log(data, name) and len(data) <= log_limit:
        max_bytes = log_limit
    if len(data) > max_bytes:
        raise upload_problem(
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
        raise upload_problem(
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
        raise upload_problem(name, "the file is empty", "add a header row and one row per label")
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
        raise upload_problem(
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
            raise upload_problem(
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
        raise upload_problem(
            name, f"not a readable Parquet file ({type(exc).__name__})", "write it again"
        ) from None
    if meta.num_rows > limits.max_rows:
        raise upload_problem(
            name,
            f"the file has {meta.num_rows:,} rows, more than the limit of {limits.max_rows:,}",
            "submit one judge or one model per file",
        )
    unpacked = sum(meta.row_group(k).total_byte_size for k in range(meta.num_row_groups))
    if unpacked > limits.max_parquet_unpacked_bytes:
        raise upload_problem(
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
        raise upload_problem(
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
        raise upload_problem(
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
        raise upload_problem(
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
        raise upload_problem(
            name,
            "this is a JSON array, not JSON Lines",
            "write one JSON object per line (no surrounding [ ])",
            line=1,
        )
    try:
        records, lines, problems = read_jsonl_text(text, name)
    except (RecursionError, ValueError, OverflowError) as exc:
        raise upload_problem(
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
        raise upload_problem(
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
        raise upload_problem(
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
