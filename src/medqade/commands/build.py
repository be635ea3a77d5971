"""``medqade build``: raw release folder in, Hugging Face dataset folder out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.dataset.build import build
from medqade.dataset.holdout import DEFAULT_SEED, HoldOut
from medqade.dataset.publish import REPO_ID

NAME = "build"
HELP = "Build the Hugging Face dataset folder (Parquet + card) from a raw release."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--raw", type=Path, required=True, help="raw release folder")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("medqade"),
        help="output folder (default ./medqade); replaced only if empty or an earlier build",
    )
    p.add_argument(
        "--arrow",
        type=Path,
        default=None,
        help="also save_to_disk each config here (replaced only if empty or an earlier export)",
    )
    p.add_argument(
        "--hold-out",
        type=int,
        default=None,
        metavar="N",
        help="withhold the labels of N seeded items, stratified by split and difficulty tier "
        "(docs/holdout.md); needs --private-out",
    )
    p.add_argument(
        "--private-out",
        type=Path,
        default=None,
        metavar="PRIVATE",
        help="folder for the withheld labels (never published; outside --out and --raw; "
        "replaced only if empty or an earlier private part)",
    )
    p.add_argument(
        "--hold-out-seed",
        type=int,
        default=DEFAULT_SEED,
        metavar="S",
        help=f"seed of the held-out items (default {DEFAULT_SEED})",
    )
    p.add_argument(
        "--space-id",
        default=None,
        help="the leaderboard Space (ORG/NAME) that the build's eval.yaml points at",
    )


def run(args: argparse.Namespace) -> int:
    if args.space_id is not None and not REPO_ID.match(args.space_id):
        raise ValueError(
            f"--space-id {args.space_id!r}: expected ORG/NAME, e.g. medqade/leaderboard"
        )
    if (args.hold_out is None) != (args.private_out is None):
        raise ValueError(
            "--hold-out N and --private-out PRIVATE come together: the withheld labels need a "
            "place outside the public build"
        )
    hold_out = None if args.hold_out is None else HoldOut(args.hold_out, args.hold_out_seed)
    meta = build(
        args.raw,
        args.out,
        args.arrow,
        space_id=args.space_id,
        hold_out=hold_out,
        private_out=args.private_out,
    )
    for w in (meta.warnings or ())[:20]:
        print(f"warning: {w}", file=sys.stderr)
    if (meta.n_warnings or 0) > 20:
        print(
            f"warning: ... {(meta.n_warnings or 0) - 20} more warnings (see release.json)",
            file=sys.stderr,
        )
    c = (meta.counts or {})["all"]
    tag = " (SYNTHETIC)" if meta.is_synthetic else ""
    print(
        f"built {args.out}{tag}: {c['items']} items, {c['slots']} answer slots, "
        f"{c['unresolved_slots']} unresolved"
    )
    if hold_out is not None:
        print(
            f"held out the labels of {c['held_out_items']} items ({c['held_out_slots']} answer "
            f"slots, seed {hold_out.seed}): written to {args.private_out}, never publish it"
        )
    return 0
