"""What ``medqade leaderboard`` and ``medqade compare`` read: the rows the Space shows.

The reference rows come from the same cache file as the Space's
(:mod:`medqade.scoring.board.sources`) and the submissions from the same results folder (default:
the local Space's), so the CLI and the Space show the same rows and numbers; which stored records
belong on the board is decided by the same library rule
(:func:`medqade.scoring.board.sources.board_records`).
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass
from pathlib import Path

from medqade.commands._args import (
    add_data_argument,
    add_margin_argument,
    add_private_argument,
    non_negative_int,
    positive_int,
)
from medqade.dataset.release import Release
from medqade.dataset.sources import open_release
from medqade.measures import BOOTSTRAP_SEED
from medqade.scoring.board import VIEWS, cached_reference_records
from medqade.scoring.board import open_board as open_board_records
from medqade.scoring.policy import RateLimit, ResultsStore, default_results_dir
from medqade.scoring.record import ScoreRecord

log = logging.getLogger(__name__)


def add_board_arguments(p: argparse.ArgumentParser) -> None:
    """``--data``, ``--private-labels``, ``--results``, ``--view``, ``--margin``,
    ``--resamples``, ``--seed``."""
    add_data_argument(p)
    add_private_argument(p)
    p.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results folder of a Space (default: the local Space's, in the user cache)",
    )
    p.add_argument("--view", choices=VIEWS, default=VIEWS[0], help=f"default: {VIEWS[0]}")
    add_margin_argument(p)
    p.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap resamples")
    p.add_argument("--seed", type=non_negative_int, default=BOOTSTRAP_SEED, help="bootstrap seed")


@dataclass(frozen=True)
class OpenBoard:
    """The release, every record on its board (reference rows first), each stored upload by
    id, and how many stored records were left out as scored on another release."""

    release: Release
    records: list[ScoreRecord]
    uploads: dict[str, Path]
    other_release: int = 0


def open_board(args: argparse.Namespace) -> OpenBoard:
    release = open_release(args.data, args.private_labels)
    folder: Path = args.results if args.results is not None else default_results_dir()
    if args.results is not None and not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such results folder")
    refs = cached_reference_records(release, folder, args.resamples, args.seed, args.margin)
    store = ResultsStore(folder, RateLimit(0, 1.0)) if folder.is_dir() else None
    chosen = open_board_records(release, refs, store, uploads=True)
    if chosen.note:
        log.warning("%s", chosen.note)
    return OpenBoard(release, chosen.records, dict(chosen.uploads), chosen.other_release)
