"""``medqade import-labelstudio``: a Label Studio JSON export in, raw release tables out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade import vocab
from medqade.files.tables import find_table
from medqade.labelstudio.ratings import import_export
from medqade.labelstudio.users import load_rater_map

NAME = "import-labelstudio"
HELP = "Convert a Label Studio JSON export into the raw release's ratings (and difficulty) table."
MAX_WARNINGS_SHOWN = 20

EPILOG = """\
The export must be Label Studio's JSON export (Export > JSON, or an export snapshot), not
JSON-MIN, CSV or TSV. The Export button's JSON names each annotation's user by integer id only;
a snapshot exported with annotations__completed_by.only_id=false also carries the e-mail. The
rater map may mix both: {"5": "P01", "dr.schulz@klinik.example": "P02"}. Label Studio 1.23's
members page shows no user ids: an export snapshot with user details shows each id beside the
e-mail, and GET /api/users lists them with an access token (a personal access token exchanged
at /api/token/refresh; a legacy token gets 401). See docs/labelstudio.md, "Finding the user ids".
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("export", type=Path, help="Label Studio JSON export (Export > JSON)")
    p.add_argument(
        "--out", type=Path, required=True, help="ratings table to write (RAW/ratings.csv)"
    )
    p.add_argument(
        "--difficulty-out",
        type=Path,
        default=None,
        help="also write the difficulty table here (RAW/difficulty.csv)",
    )
    p.add_argument(
        "--rater-map",
        type=Path,
        required=True,
        help='JSON object: Label Studio user id and/or e-mail -> physician id, e.g. {"5": "P01"}',
    )
    p.add_argument(
        "--round",
        choices=vocab.ROUNDS,
        default=None,
        help="rating round of every annotation in this export (default: inferred per "
        "annotation: the adjudicator on an extension item is the adjudication round, "
        "everything else primary)",
    )
    p.add_argument(
        "--exclude-user",
        action="append",
        default=[],
        metavar="ID_OR_EMAIL",
        help="leave this Label Studio user's annotations out (e.g. an admin's test "
        "annotation); repeatable",
    )
    p.add_argument(
        "--raw",
        type=Path,
        default=None,
        help="raw release folder: check that each task's resp_1..resp_5 are the answers of "
        "the models in its order, and take the splits from its questions table (default: the "
        "folder of --out, when it holds an answers table)",
    )
    p.add_argument(
        "--roster",
        type=Path,
        default=None,
        help="roster.json of the raw release (default: the paper's roster)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--append",
        action="store_true",
        help="add the rows to the existing output tables, keeping every row and column they "
        "have (e.g. the adjudication or re-rating export after the primary one)",
    )
    mode.add_argument(
        "--replace",
        action="store_true",
        help="overwrite existing output tables (only ratings / difficulty tables); without "
        "--append or --replace an existing table is refused",
    )
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def raw_folder(raw: Path | None, out: Path) -> Path | None:
    """``--raw``, else the folder of ``--out`` when it is a raw release (has ``answers``)."""
    if raw is not None:
        return raw
    folder = Path(out).parent
    return folder if folder.is_dir() and find_table(folder, "answers") is not None else None


def _inputs(args: argparse.Namespace) -> list[tuple[Path, str]]:
    """The files the command reads besides the export and the raw release (never written)."""
    read = [(args.rater_map, "the rater map (--rater-map)")]
    if args.roster is not None:
        read.append((args.roster, "the roster (--roster)"))
    return read


def run(args: argparse.Namespace) -> int:
    roster = vocab.Roster.from_json(args.roster) if args.roster else vocab.DEFAULT_ROSTER
    result = import_export(
        args.export,
        args.out,
        load_rater_map(args.rater_map, roster),
        difficulty_out=args.difficulty_out,
        round=args.round,
        append=args.append,
        replace=args.replace,
        roster=roster,
        exclude=args.exclude_user,
        raw=raw_folder(args.raw, args.out),
        inputs=_inputs(args),
    )
    for w in result.warnings[:MAX_WARNINGS_SHOWN]:
        print(f"warning: {w}", file=sys.stderr)
    if len(result.warnings) > MAX_WARNINGS_SHOWN:
        print(f"warning: ... {len(result.warnings) - MAX_WARNINGS_SHOWN} more", file=sys.stderr)
    wrote = f"{len(result.ratings)} ratings to {args.out}"
    if args.difficulty_out is not None:
        wrote += f", {len(result.difficulty)} difficulty ratings to {args.difficulty_out}"
    print(
        f"imported {result.n_tasks} tasks ({result.n_annotations} annotations, "
        f"{result.n_cancelled} cancelled and skipped): {wrote}"
    )
    for line in result.summary():
        print(line)
    return 0
