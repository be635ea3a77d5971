"""``medqade review-queue``: disputed answers as CSV and Label Studio tasks for review."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.commands._args import add_data_argument
from medqade.dataset.sources import open_release
from medqade.labelstudio.review_queue import (
    JUDGE_VS_PANEL,
    KINDS,
    MIN_VOTES,
    check_queue_target,
    queue_paths,
    select_queue,
    write_queue,
)
from medqade.raw.codebook import load_codebook

NAME = "review-queue"
HELP = (
    "Answers where a judge contradicts a unanimous physician panel (or a physician unanimous "
    "judges), as CSV plus Label Studio tasks and a labeling config built from a codebook."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)
    p.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="EVALUATOR",
        help="judge(s) to compare (repeatable; default: every evaluator of the release)",
    )
    p.add_argument("--kind", choices=KINDS, default=JUDGE_VS_PANEL, help="what to queue")
    p.add_argument(
        "--min-votes",
        type=int,
        default=MIN_VOTES,
        help=f"substantive votes a unanimous group needs (default {MIN_VOTES})",
    )
    p.add_argument(
        "--codebook",
        type=Path,
        default=None,
        help="codebook JSON of discrepancy codes (default: the German codebook of the package)",
    )
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        help="queue CSV to write (NAME.csv); NAME.tasks.json and NAME.config.xml go beside it",
    )


def run(args: argparse.Namespace) -> int:
    from medqade.dataset.sources import resolve_data

    inputs = [(resolve_data(args.data), "the release it reads (--data)")]
    if args.data is not None and Path(args.data).exists():
        inputs.append((Path(args.data), "the release it reads (--data)"))
    if args.codebook is not None:
        inputs.append((args.codebook, "the codebook (--codebook)"))
    check_queue_target(queue_paths(args.out), inputs)  # before the release is loaded
    codebook = load_codebook(args.codebook)
    release = open_release(args.data)
    rows = select_queue(release, args.kind, args.judge, args.min_votes)
    paths = write_queue(args.out, release, rows, codebook, inputs)
    print(
        f"{len(rows)} answers ({args.kind}) -> {paths['csv']}, {paths['tasks']}, {paths['config']}",
        file=sys.stderr,
    )
    return 0
