"""Reading user tables (CSV, JSON Lines, Parquet) into string-typed pandas frames.

The format is chosen by the file extension. Every frame gets a ``_line`` column with the
position an editor shows (CSV: header is line 1, so the first record is line 2; JSONL: the
line; Parquet: the 1-based row), so validators can name the row at fault. Bytes must be UTF-8
(a leading byte-order mark is accepted and dropped); anything else is a :class:`Problem`.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from medqade.problems import InputError, Problem

TABLE_EXTENSIONS = (".csv", ".jsonl", ".parquet")
LINE = "_line"


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


def read_csv_text(text: str, name: str) -> pd.DataFrame:
    """Parse CSV text into an all-string frame with a ``_line`` column.

    A record with more or fewer fields than the header is a problem naming its line (pandas
    would otherwise shift a row with an extra field into the index, or pad a short one).
    """
    n_header, records = _csv_records(text, name)
    wrong = [
        Problem(
            name,
            line,
            f"{n_fields} fields, but the header has {n_header}",
            fix="quote fields that contain commas or line breaks",
        )
        for line, n_fields in records
        if n_fields != n_header
    ]
    if wrong:
        raise InputError(name, wrong)
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)
    except pd.errors.EmptyDataError:
        raise InputError(
            name, [Problem(name, None, "the file is empty", fix="add a header row and data")]
        ) from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"not a readable CSV file ({exc})",
                    fix="check quoting and the comma delimiter",
                )
            ],
        ) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    lines = [line for line, _ in records]
    # pandas and csv could disagree on odd blank lines: fall back to positions
    frame[LINE] = lines if len(lines) == len(frame) else list(range(2, len(frame) + 2))
    return frame


def _csv_records(text: str, name: str) -> tuple[int, list[tuple[int, int]]]:
    """Header width, and the editor line and width of every record (quoted fields may span
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
                records.append((start, len(row)))
    except csv.Error as exc:
        raise InputError(
            name,
            [Problem(name, reader.line_num, f"not a readable CSV file ({exc})")],
        ) from None
    return len(header), records


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
            obj = json.loads(line)
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


def read_table(path: Path) -> pd.DataFrame:
    """Read a CSV, JSONL or Parquet table into a frame of strings (lists kept as lists)."""
    name = path.name
    if path.suffix == ".parquet":
        try:
            table = pq.read_table(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(
                name, [Problem(name, None, f"not a readable Parquet file ({exc})")]
            ) from None
        frame = table.to_pandas()
        for col in frame.columns:
            if frame[col].dtype != object:
                frame[col] = frame[col].map(lambda v: "" if pd.isna(v) else str(v))
        frame[LINE] = range(1, len(frame) + 1)
        return pd.DataFrame(frame)
    text = decode_utf8(path.read_bytes(), name)
    if path.suffix == ".csv":
        return read_csv_text(text, name)
    records, lines, problems = read_jsonl_text(text, name)
    if problems:
        raise InputError(name, problems)
    frame = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    for col in frame.columns:
        frame[col] = frame[col].map(_jsonl_cell)
    frame[LINE] = lines
    return frame


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
