"""``medqade rescore``: score the stored submissions of another release again on this one.

A results folder keeps every accepted upload. When a Space moves to another release (another
data hash), the records scored on the old one are left out of its board
(:func:`medqade.scoring.board.sources.board_records`); this command scores each of their stored
uploads again on ``--data`` through the library's submission policy
(:func:`medqade.scoring.policy.rescoring.rescore`) and stores the new records beside the old ones.

It writes under the same rules as ``medqade score --results`` and the Space: never into a
build or a raw release (also not through a link), never following a link out of the folder,
each stored upload read only when it is what was stored, and one write at a time beside any
other writer of the folder (:mod:`medqade.scoring.policy.store`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.commands._args import (
    add_data_argument,
    add_margin_argument,
    add_private_argument,
    non_negative_int,
    positive_int,
)
from medqade.dataset.sources import open_release
from medqade.measures import BOOTSTRAP_SEED
from medqade.scoring.board import open_board
from medqade.scoring.policy import RateLimit, ResultsStore, Settings, check_results_folder, rescore

NAME = "rescore"
HELP = "Score the stored submissions of another release again on this release (--data)."
EPILOG = """\
Writes only into the results folder (never a build or a raw release, never through a link
out of it), and reads a stored upload only if it is unchanged since it was stored. A Space
may run on the same folder meanwhile: each store write takes the folder's lock (.lock, with
the holder's pid and host) in turn and re-checks duplicates against what the other stored;
the Space shows the new records at its next board refresh.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)
    add_private_argument(p)
    p.add_argument(
        "--results",
        type=Path,
        required=True,
        help="results folder of a Space (not a build nor a raw release; shared with a running "
        "Space one write at a time)",
    )
    p.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap resamples")
    p.add_argument("--seed", type=non_negative_int, default=BOOTSTRAP_SEED, help="bootstrap seed")
    add_margin_argument(p)
    p.add_argument(
        "--dry-run", action="store_true", help="list the records that would be scored again"
    )
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def run(args: argparse.Namespace) -> int:
    folder: Path = args.results
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such results folder")
    check_results_folder(folder, "medqade rescore")
    release = open_release(args.data, args.private_labels)
    store = ResultsStore(folder, RateLimit(0, 1.0))  # the maintainer's run: no rate limit
    chosen = open_board(release, [], store)
    here = {str(r.id) for r in chosen.stored}
    others = [r for r in store.records() if str(r.id) not in here]
    if not others:
        print("every stored record was scored on this release; nothing to do")
        return 0
    settings = Settings(args.resamples, args.seed, args.margin)
    failed = 0
    for record in others:
        rid = str(record.id or "")[:16]
        if args.dry_run:
            print(f"{rid}: would be scored again")
            continue
        outcome = rescore(release, store, record, settings)
        if outcome.ok and outcome.record is not None:
            print(f"{rid}: scored again as record {str(outcome.record.id)[:16]}")
        else:
            failed += 1
            why = outcome.message.removeprefix(f"record {rid}: ")  # the id leads the line
            print(f"{rid}: not scored again: {why}", file=sys.stderr)
            for problem in outcome.problems:  # what is wrong inside the stored file
                print(f"  {problem}", file=sys.stderr)
    return 2 if failed else 0
