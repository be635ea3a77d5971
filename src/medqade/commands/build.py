"""``medqade build``: raw release folder in, Hugging Face dataset folder out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.dataset.build import build
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
        "--space-id",
        default=None,
        help="the leaderboard Space (ORG/NAME) that the build's eval.yaml points at",
    )


def run(args: argparse.Namespace) -> int:
    if args.space_id is not None and not REPO_ID.match(args.space_id):
        raise ValueError(
            f"--space-id {args.space_id!r}: expected ORG/NAME, e.g. medqade/leaderboard"
        )
    meta = build(args.raw, args.out, args.arrow, space_id=args.space_id)
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
    return 0
