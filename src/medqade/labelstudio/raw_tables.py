"""The raw tables an importer writes: the ratings and difficulty columns, their row order,
appending to an existing table (a row held twice is refused, saying why), CSV text, and the
output policy for the table's path."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from medqade import vocab
from medqade.files import atomic, file_output
from medqade.files.problems import InputError, Problem
from medqade.files.tables import LINE

RATING_COLUMNS = ("question_id", "rater", "model", "label", "round")


DIFFICULTY_COLUMNS = ("question_id", "rater", "difficulty")


OPTIONAL_COLUMNS = ("rated_at",)
"""Columns an imported table may have that an existing table may lack (kept empty there)."""


def rating_columns(rows: list[dict[str, str]]) -> list[str]:
    """The ratings columns, with ``rated_at`` when any row is a re-rating."""
    return [*RATING_COLUMNS, *(["rated_at"] if any("rated_at" in r for r in rows) else [])]


def sorted_rows(frame: pd.DataFrame, roster: vocab.Roster) -> pd.DataFrame:
    """Rows by question id, round, student model (roster order), then rater (roster order)."""
    keys = {
        "_model": ("model", {m: i for i, m in enumerate(roster.student_ids)}),
        "_round": ("round", {r: i for i, r in enumerate(vocab.ROUNDS)}),
        "_rater": ("rater", {p: i for i, p in enumerate(roster.physicians)}),
    }
    ranks = {k: frame[c].map(m) for k, (c, m) in keys.items() if c in frame.columns}
    order = ["question_id", *(k for k in ("_round", "_model", "_rater") if k in ranks)]
    ranked = frame.assign(**ranks).sort_values(order, kind="stable")
    return ranked.drop(columns=list(ranks)).reset_index(drop=True)


def merge(
    existing: pd.DataFrame, new: pd.DataFrame, keys: list[str], name: str, roster: vocab.Roster
) -> pd.DataFrame:
    """Append ``new`` rows to an ``existing`` table; a key present in both is an error.

    Every column and row of ``existing`` is kept (its columns first, in its order); a column
    only one side has is empty in the other side's rows. ``existing`` must have every column of
    ``new`` except the optional ones (``rated_at``): else it is not a table of this kind.
    """
    old = existing.drop(columns=[LINE], errors="ignore").astype(object)
    missing = [c for c in new.columns if c not in old.columns and c not in OPTIONAL_COLUMNS]
    if missing:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"has no column {missing[0]!r}, so it is not the table the export adds to",
                    fix="--append to the raw release's table of this kind, or choose a new file",
                )
            ],
        )
    columns = [*old.columns, *(c for c in new.columns if c not in old.columns)]
    old = old.reindex(columns=columns, fill_value="")
    added = new.astype(object).reindex(columns=columns, fill_value="")
    problems = _clashes(existing, added, keys, name)
    if problems:
        raise InputError(name, problems)
    return sorted_rows(pd.concat([old, added], ignore_index=True), roster)


def _clashes(
    existing: pd.DataFrame, added: pd.DataFrame, keys: list[str], name: str
) -> list[Problem]:
    """One problem per row of the export whose ``keys`` the table already holds, naming the
    table's line(s) and, for ratings, the round of the table's row(s) and of the export's
    (``round`` itself, when a key, is said in words and left out of the value)."""
    lines = existing[LINE] if LINE in existing.columns else pd.Series(range(2, len(existing) + 2))
    rounds = "round" in existing.columns and "round" in added.columns
    shown = [k for k in keys if not (rounds and k == "round")]
    held: dict[tuple[str, ...], list[tuple[int, str]]] = {}
    for i, row in enumerate(existing[keys].astype(str).itertuples(index=False)):
        r = str(existing["round"].iloc[i]).strip() if rounds else ""
        held.setdefault(tuple(row), []).append((int(lines.iloc[i]), r))
    problems = []
    for i, row in enumerate(added[keys].astype(str).itertuples(index=False)):
        there = held.get(tuple(row))
        if not there:
            continue
        value = "/".join(v for k, v in zip(keys, row, strict=True) if k in shown)
        if rounds:
            mine = str(added["round"].iloc[i])
            held_as = " and ".join(f"as round {r or '(empty)'} (line {n})" for n, r in there)
            message = f"already holds this rating {held_as}, while the export's row is round {mine}"
            fix = _clash_fix(mine, [r for _, r in there])
        else:
            message = f"already holds this row (line {there[0][0]}); the export would add it again"
            fix = "import each export once"
        problems.append(Problem(name, there[0][0], message, "/".join(shown), value, fix))
    return problems


def _clash_fix(mine: str, held: list[str]) -> str:
    """What to do when the table holds a rating of rounds ``held`` that the export adds again
    as round ``mine``."""
    if mine in held:
        again = "" if mine == vocab.RERATING else "; a re-rating project needs --round rerating"
        return (
            "this export (or one with the same ratings) is already in the table: import each "
            f"export once{again}"
        )
    if all(r == vocab.RERATING for r in held):
        return (
            "a re-rating comes after the first rating: import the first-round export into a new "
            "table (or with --replace), then append the re-rating export with --round rerating "
            "--append; if this export is the re-rating project, give --round rerating"
        )
    return (
        "a physician has one vote per answer (primary, or adjudication on an extension item): "
        "check --round, or leave this rating out of one of the exports"
    )


def to_csv(frame: pd.DataFrame) -> str:
    """The frame as UTF-8 CSV text with ``\\n`` line endings (header first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(frame.columns)
    writer.writerows(frame.itertuples(index=False))
    return buffer.getvalue()


TABLE_FIX = "pass --append to add the rows to it, or --replace to overwrite it"
"""What to do when an importer's output table exists already."""


def table_output(
    path: Path,
    table: str,
    *,
    option: str = "--out",
    inputs: Iterable[tuple[Path, str]] = (),
    append: bool = False,
    replace: bool = False,
    columns: Iterable[str] = (),
) -> Path:
    """Check that an importer may write the raw table ``table`` at ``path``; return it.

    The output policy of :func:`medqade.files.file_output.check_file`: never a link, a folder,
    an input, a build file or another table of a raw release. An existing file needs ``append`` (its
    rows are kept) or ``replace``; both change only a table of this kind (one whose header has
    every column in ``columns``), never any other file.
    """
    if append and replace:
        raise ValueError("--append and --replace exclude each other: choose one")
    path = Path(path)
    if path.suffix != ".csv":
        raise ValueError(f"{path}: the importer writes CSV; name the output file *.csv")
    output = file_output.FileOutput(
        kind=f"{table} table",
        option=option,
        inputs=tuple(inputs),
        table=table,
        change=append or replace,
        fix=TABLE_FIX,
    )
    checked = file_output.check_file(path, output)
    if (append or replace) and checked.exists():
        first = checked.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
        header = {c.strip().lstrip("\ufeff") for c in first.split(",")}
        lacking = [c for c in columns if c not in header]
        if lacking:
            raise atomic.OutputRefused(
                f"{option} {path} is not a {table} table (no column {lacking[0]!r}); "
                "--append and --replace change only such a table: choose another path"
            )
    return path


__all__ = ["merge", "rating_columns", "sorted_rows", "table_output"]
