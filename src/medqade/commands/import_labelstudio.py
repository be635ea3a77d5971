"""``medqade import-labelstudio``: a Label Studio JSON export in, raw release tables out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade import vocab
from medqade.labelstudio import import_export, load_rater_map

NAME = "import-labelstudio"
HELP = "Convert a Label Studio JSON export into the raw release's ratings (and difficulty) table."
MAX_WARNINGS_SHOWN = 20


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
        help='JSON object: Label Studio user id or e-mail -> physician id, e.g. {"3": "P01"}',
    )
    p.add_argument(
        "--round",
        choices=vocab.ROUNDS,
        default=vocab.PRIMARY,
        help="rating round of every annotation in this export (default primary)",
    )
    p.add_argument(
        "--roster",
        type=Path,
        default=None,
        help="roster.json of the raw release (default: the paper's roster)",
    )
    p.add_argument(
        "--append",
        action="store_true",
        help="add the rows to existing output tables instead of replacing them",
    )


def run(args: argparse.Namespace) -> int:
    roster = vocab.Roster.from_json(args.roster) if args.roster else vocab.DEFAULT_ROSTER
    result = import_export(
        args.export,
        args.out,
        load_rater_map(args.rater_map, roster),
        difficulty_out=args.difficulty_out,
        round=args.round,
        append=args.append,
        roster=roster,
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
    return 0
