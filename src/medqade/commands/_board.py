"""What ``medqade leaderboard`` and ``medqade compare`` read: the rows the Space shows.

The reference rows come from the same cache file as the Space's (:mod:`medqade.scoring.board`)
and the submissions from the same results folder (default: the local Space's), so the CLI and
the Space show the same rows and numbers.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medqade.commands._args import (
    add_data_argument,
    add_margin_argument,
    non_negative_int,
    positive_int,
)
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.release import Release, open_release
from medqade.scoring.board import cached_reference_records


def add_board_arguments(p: argparse.ArgumentParser) -> None:
    """``--data``, ``--results``, ``--view``, ``--margin``, ``--resamples``, ``--seed``."""
    add_data_argument(p)
    p.add_argument(
        "--results",
        type=Path,
        default=None,
        help="results folder of a Space (default: the local Space's, in the user cache)",
    )
    p.add_argument("--view", choices=("core", "full"), default="core", help="default: core")
    add_margin_argument(p)
    p.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap resamples")
    p.add_argument("--seed", type=non_negative_int, default=BOOTSTRAP_SEED, help="bootstrap seed")


@dataclass(frozen=True)
class Board:
    """The release, every record (reference rows first) and each stored upload by id."""

    release: Release
    records: list[dict[str, Any]]
    uploads: dict[str, Path]


def open_board(args: argparse.Namespace) -> Board:
    from medqade.app.config import default_results_dir
    from medqade.app.store import RateLimit, ResultsStore

    release = open_release(args.data)
    folder: Path = args.results if args.results is not None else default_results_dir()
    if args.results is not None and not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such results folder")
    refs = cached_reference_records(release, folder, args.resamples, args.seed, args.margin)
    stored: list[dict[str, Any]] = []
    uploads: dict[str, Path] = {}
    if folder.is_dir():
        store = ResultsStore(folder, RateLimit(0, 1.0))
        for record in store.records():
            if (record.get("dataset") or {}).get("hash") != release.data_hash:
                continue  # scored on another release: not comparable
            stored.append(record)
            paths = store.upload_paths(record)
            if paths:
                uploads[str(record["id"])] = paths[0]
    return Board(release, [*refs, *stored], uploads)
