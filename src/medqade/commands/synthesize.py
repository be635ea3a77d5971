"""``medqade synthesize``: write the synthetic raw release (the embedded default's source)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from medqade.dataset.sources import SYNTHETIC_SEED

NAME = "synthesize"
HELP = "Write a synthetic raw release with the paper's design (not physician data)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        help="raw release folder to write (replaced only if empty or an earlier synthetic one)",
    )
    p.add_argument(
        "--seed", type=int, default=SYNTHETIC_SEED, help=f"seed (default {SYNTHETIC_SEED})"
    )
    p.add_argument("--facts", type=Path, default=None, help="facts JSONL (default: bundled)")
    p.add_argument(
        "--check",
        action="store_true",
        help="also build it and print how close it lands to the paper's figures",
    )


def run(args: argparse.Namespace) -> int:
    from medqade.synthetic import synthesize

    synthesize(args.out, seed=args.seed, facts_path=args.facts)
    print(f"wrote synthetic raw release to {args.out} (seed {args.seed})")
    if args.check:
        from medqade.analyses.calibration import calibration_table, format_table
        from medqade.dataset.build import build
        from medqade.dataset.release import load_release

        with tempfile.TemporaryDirectory() as tmp:
            build(args.out, Path(tmp) / "build")
            rows = calibration_table(load_release(Path(tmp) / "build"))
        print(format_table(rows))
        return 0 if all(r.ok for r in rows) else 1
    return 0
