"""``medqade rescore``: score the stored submissions of another release again on this one.

A results folder keeps every accepted upload. When a Space moves to another release (another
data hash), the records scored on the old one are left out of its board
(:func:`medqade.scoring.board.board_records`); this command scores each of their stored
uploads again on ``--data`` through the library's submission policy
(:func:`medqade.scoring.policy.rescore`) and stores the new records beside the old ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.commands._args import (
    add_data_argument,
    add_margin_argument,
    non_negative_int,
    positive_int,
)
from medqade.dataset.sources import open_release
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.scoring import board, policy
from medqade.scoring.store import RateLimit, ResultsStore

NAME = "rescore"
HELP = "Score the stored submissions of another release again on this release (--data)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)
    p.add_argument("--results", type=Path, required=True, help="results folder of a Space")
    p.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap resamples")
    p.add_argument("--seed", type=non_negative_int, default=BOOTSTRAP_SEED, help="bootstrap seed")
    add_margin_argument(p)
    p.add_argument(
        "--dry-run", action="store_true", help="list the records that would be scored again"
    )


def run(args: argparse.Namespace) -> int:
    folder: Path = args.results
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such results folder")
    release = open_release(args.data)
    store = ResultsStore(folder, RateLimit(0, 1.0))  # the maintainer's run: no rate limit
    chosen = board.board_records(release, [], store.records())
    here = {str(r.get("id")) for r in chosen.stored}
    others = [r for r in store.records() if str(r.get("id")) not in here]
    if not others:
        print("every stored record was scored on this release; nothing to do")
        return 0
    settings = policy.Settings(args.resamples, args.seed, args.margin)
    failed = 0
    for record in others:
        rid = str(record.get("id", ""))[:16]
        if args.dry_run:
            print(f"{rid}: would be scored again")
            continue
        outcome = policy.rescore(release, store, record, settings)
        if outcome.ok and outcome.record is not None:
            print(f"{rid}: scored again as record {str(outcome.record['id'])[:16]}")
        else:
            failed += 1
            print(f"{rid}: not scored again: {outcome.message}", file=sys.stderr)
    return 2 if failed else 0
