"""``medqade import-reviews``: a reviewed Label Studio export in, the ``reviews`` table out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.files.problems import Problem
from medqade.labelstudio.reviews import import_reviews
from medqade.labelstudio.users import check_user_map, read_user_map
from medqade.raw.codebook import load_codebook

NAME = "import-reviews"
HELP = "Convert a Label Studio export of review-queue tasks into the raw release's reviews table."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("export", type=Path, help="Label Studio JSON export (Export > JSON)")
    p.add_argument(
        "--out", type=Path, required=True, help="reviews table to write (RAW/reviews.csv)"
    )
    p.add_argument(
        "--codebook",
        type=Path,
        default=None,
        help="codebook JSON the tasks were reviewed with (default: the package's German one); "
        "copy it to RAW/codebook.json so the build checks the reviews against it",
    )
    p.add_argument(
        "--reviewer-map",
        type=Path,
        default=None,
        help='JSON object: Label Studio user id and/or e-mail -> reviewer name, e.g. {"5": "R1"} '
        "(default: the e-mail when the export has it, else 'user ID')",
    )
    p.add_argument(
        "--exclude-user",
        action="append",
        default=[],
        metavar="ID_OR_EMAIL",
        help="leave this Label Studio user's annotations out (e.g. an admin's test review); "
        "repeatable",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--append",
        action="store_true",
        help="add the reviews to the existing reviews table, keeping every row and column it "
        "has (e.g. a second review project's export)",
    )
    mode.add_argument(
        "--replace",
        action="store_true",
        help="overwrite an existing reviews table; without --append or --replace an existing "
        "table is refused",
    )


def _reviewer_map(path: Path | None) -> dict[str, str] | None:
    """The reviewer map, checked like the rater map
    (:func:`medqade.labelstudio.ratings.check_user_map`):
    keys that name the same user but map to different reviewers are refused, naming both."""
    if path is None:
        return None
    data = read_user_map(path, 'map user ids and/or e-mails to reviewer names: {"5": "R1"}')

    def name(value: object) -> Problem | None:
        if isinstance(value, str) and value.strip():
            return None
        return Problem(
            path.name,
            None,
            "maps to no reviewer name",
            value=str(value),
            fix="give a non-empty string",
        )

    return check_user_map(data, path.name, name)


def _inputs(args: argparse.Namespace) -> list[tuple[Path, str]]:
    """Files the command reads besides the export: never written."""
    read = []
    if args.codebook is not None:
        read.append((args.codebook, "the codebook (--codebook)"))
    if args.reviewer_map is not None:
        read.append((args.reviewer_map, "the reviewer map (--reviewer-map)"))
    return read


def run(args: argparse.Namespace) -> int:
    result = import_reviews(
        args.export,
        args.out,
        load_codebook(args.codebook),
        reviewer_map=_reviewer_map(args.reviewer_map),
        append=args.append,
        replace=args.replace,
        exclude=args.exclude_user,
        inputs=_inputs(args),
    )
    left = [
        *([f"{result.n_cancelled} cancelled"] if result.n_cancelled else []),
        *([f"{result.n_excluded} of excluded users"] if result.n_excluded else []),
    ]
    print(
        f"{len(result.reviews)} reviews from {result.n_tasks} tasks "
        f"{'added ' if args.append else ''}to {args.out}"
        + (f" ({', '.join(left)} left out)" if left else ""),
        file=sys.stderr,
    )
    return 0
