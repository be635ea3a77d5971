"""Reading user tables (CSV, JSON Lines, Parquet) into string-typed pandas frames.

The format is chosen by the file extension. Every frame gets a line column (:data:`LINE` from
:func:`read_table`) with the position an editor shows (CSV: header is line 1, so the first
record is line 2; JSONL: the line; Parquet: the 1-based row), so validators can name the row at
fault. Bytes must be UTF-8 (a leading byte-order mark is accepted and dropped); anything else is
a :class:`Problem`. Column names are stripped and must be unique, non-empty and free of NUL
characters; a repeated name is a problem, never renamed.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade.files.problems import InputError, Problem

TABLE_EXTENSIONS = (".csv", ".jsonl", ".parquet")
LINE = "\x00line"
"""The line column of :func:`read_table` frames. A user's column can never have this name (NUL
is refused in column names), so a column called ``_line`` is ordinary data."""
STORED_TYPES = "stored_types"
"""``frame.attrs`` key of a Parquet frame: the columns not stored as text, with their Arrow type
(their values were turned into text on reading, so a check can still name the type)."""
CSV_LINE = "_line"
"""The line column of :func:`read_csv_text` frames unless the caller names another one."""

# The csv module refuses fields over 128 KiB by default; a long question is legitimate. Only
# ever raise the process-wide limit (2**31 - 1 fits a C long on every platform).
csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))


def check_column_names(
    names: Iterable[object], name: str, reserved: str, *, line: int | None = None
) -> tuple[list[str], list[Problem]]:
    """Stripped column names, and a problem for each empty, repeated or forbidden one."""
    out = [str(n).strip() for n in names]
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, n in enumerate(out, start=1):
        seen[n] = seen.get(n, 0) + 1
        if n == "":
            problems.append(
                Problem(
                    name,
                    line,
                    f"column {i} of the header has no name",
                    fix="name every column, or delete the empty column",
                )
            )
        elif "\x00" in n or n == reserved:
            problems.append(
                Problem(
                    name,
                    line,
                    "column name not allowed",
                    n,
                    fix="rename the column (NUL characters are not allowed in names)",
                )
            )
    for n, k in seen.items():
        if k > 1 and n:
            problems.append(
                Problem(
                    name,
                    line,
                    f"the column name appears {k} times",
                    n,
                    fix="give every column its own name (or delete the repeated one)",
                )
            )
    return out, problems


def find_table(folder: Path, name: str) -> Path | None:
    """Return ``folder/name.{csv,jsonl,parquet}``; ``InputError`` if more than one exists."""
    found = [
        folder / f"{name}{ext}" for ext in TABLE_EXTENSIONS if (folder / f"{name}{ext}").exists()
    ]
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise InputError(
            str(folder),
            [Problem(name, None, f"found {names}", fix="keep exactly one file per table")],
        )
    return found[0] if found else None


def row_kind(path: Path) -> str:
    return "row" if path.suffix == ".parquet" else "line"


def decode_utf8(data: bytes, name: str) -> str:
    """Decode UTF-8 (optional BOM) or raise ``InputError`` naming the line of the first bad byte."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        bad = data[exc.start : exc.start + 4]
        raise InputError(
            name,
            [
                Problem(
                    name,
                    line,
                    f"not UTF-8: byte {bad[:1]!r} at offset {exc.start}",
                    fix="save the file as UTF-8 (German umlauts and ß must be UTF-8 encoded)",
                )
            ],
        ) from None


def read_csv_text(text: str, name: str, line_column: str = CSV_LINE) -> pd.DataFrame:
    """Parse CSV text into an all-string frame with a ``line_column`` column.

    A record with more or fewer fields than the header is a problem naming its line (pandas
    would otherwise shift a row with an extra field into the index, or pad a short one); so is
    an empty, repeated or reserved column name.
    """
    header, records = _csv_records(text, name)
    if not header:
        raise InputError(
            name, [Problem(name, None, "the file is empty", fix="add a header row and data")]
        )
    names, problems = check_column_names(header, name, line_column, line=1)
    problems += [
        Problem(
            name,
            line,
            f"{len(row)} fields, but the header has {len(header)}",
            fix="quote fields that contain commas or line breaks",
        )
        for line, row in records
        if len(row) != len(header)
    ]
    if problems:
        raise InputError(name, problems)
    frame = pd.DataFrame(
        {n: pd.Series([row[i] for _, row in records], dtype=object) for i, n in enumerate(names)}
    )
    frame[line_column] = [line for line, _ in records]
    return frame


def _csv_records(text: str, name: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header, and the editor line and fields of every record (quoted fields may span
    lines; blank and whitespace-only lines are skipped, as pandas skips them)."""
    reader = csv.reader(io.StringIO(text))
    records = []
    try:
        header = next(reader, [])
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            if row and not (len(row) == 1 and not row[0].strip()):
                records.append((start, row))
    except csv.Error as exc:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    reader.line_num,
                    f"not a readable CSV file ({exc})",
                    fix="check quoting and the comma delimiter",
                )
            ],
        ) from None
    return header, records


def read_jsonl_text(
    text: str, name: str
) -> tuple[list[dict[str, object]], list[int], list[Problem]]:
    """Parse JSON Lines: objects, their line numbers, and one problem per malformed line."""
    records: list[dict[str, object]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_unique_keys)
        except _RepeatedKey as exc:
            problems.append(
                Problem(
                    name,
                    lineno,
                    "the key appears more than once in this object",
                    str(exc),
                    fix="give every field of a line its own key (or delete the repeated one)",
                )
            )
            continue
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(
                    name,
                    lineno,
                    f"malformed JSON ({exc.msg} at column {exc.colno})",
                    value=line[:80],
                    fix="write one complete JSON object per line",
                )
            )
            continue
        if not isinstance(obj, dict):
            problems.append(
                Problem(
                    name,
                    lineno,
                    "expected a JSON object",
                    value=line[:80],
                    fix="write one JSON object per line",
                )
            )
            continue
        records.append(obj)
        lines.append(lineno)
    return records, lines, problems


class _RepeatedKey(ValueError):
    """A JSON object with the same key twice (``json`` would silently keep the last one)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def read_table(path: Path) -> pd.DataFrame:
    """Read a CSV, JSONL or Parquet table into a frame of cells and a :data:`LINE` column.

    CSV cells are strings. JSONL and Parquet cells are strings (numbers and booleans written as
    text, null as ``""``), except lists and objects, which are kept as Python lists and dicts
    (and bytes as bytes) for the validator to accept (``order``) or report.
    """
    name = path.name
    if path.suffix == ".parquet":
        return _read_parquet(path)
    text = decode_utf8(path.read_bytes(), name)
    if path.suffix == ".csv":
        return read_csv_text(text, name, LINE)
    records, lines, problems = read_jsonl_text(text, name)
    columns: dict[str, list[object]] = {}
    for i, rec in enumerate(records):
        keys, bad = check_column_names(rec, name, LINE, line=lines[i])
        if bad:
            problems += bad
            continue
        for key, value in zip(keys, rec.values(), strict=True):
            if key not in columns:  # (a default argument would build the list every time)
                columns[key] = [""] * i
            columns[key].append(_jsonl_cell(value))
        for col in columns.values():
            if len(col) < i + 1:
                col.append("")
    if problems:
        raise InputError(name, problems)
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})
    frame[LINE] = lines
    return frame


def _read_parquet(path: Path) -> pd.DataFrame:
    name = path.name
    try:
        schema_names = pq.read_schema(path).names
        table = pq.ParquetFile(path).read()  # (pq.read_table fails on repeated names)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"not a readable Parquet file ({str(exc).splitlines()[0][:200]})",
                    fix="write it again with pandas.DataFrame.to_parquet or pyarrow",
                )
            ],
        ) from None
    names, problems = check_column_names(schema_names, name, LINE)
    columns: dict[str, list[object]] = {}
    if not problems:
        for col_name, column in zip(names, table.columns, strict=True):
            try:
                values = column.to_pylist()
            except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
                problems.append(
                    Problem(
                        name,
                        None,
                        f"the column cannot be read ({str(exc).splitlines()[0][:160]})",
                        col_name,
                        fix="store it as text (string) in the Parquet file",
                    )
                )
                continue
            columns[col_name] = [_parquet_cell(v) for v in values]
    if problems:
        raise InputError(name, problems)
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})
    frame[LINE] = range(1, table.num_rows + 1)
    frame.attrs[STORED_TYPES] = {
        n: str(c.type) for n, c in zip(names, table.columns, strict=True) if not _is_text(c.type)
    }
    return frame


def _is_text(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)
    )


def _parquet_cell(value: object) -> object:
    if value is None or (isinstance(value, float) and value != value):  # null or NaN
        return ""
    if isinstance(value, (str, list, dict, bytes)):
        return value
    return str(value)


def _jsonl_cell(value: object) -> object:
    if value is None or (isinstance(value, float) and value != value):  # None or NaN
        return ""
    if isinstance(value, (list, dict)):
        return value
    return (
        value
        if isinstance(value, str)
        else json.dumps(value)
        if isinstance(value, bool)
        else str(value)
    )
