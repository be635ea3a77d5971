"""Argument types and options shared by several commands."""

from __future__ import annotations

import argparse

from medqade.dataset.sources import DATA_HELP as DATA_HELP
from medqade.dataset.sources import add_data_argument as add_data_argument
from medqade.dataset.sources import add_private_argument as add_private_argument


def _integer(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected a {what} integer, got {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (counts such as resamples)."""
    return _integer(text, 1, "positive")


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0 (seeds)."""
    return _integer(text, 0, "non-negative")


def margin(text: str) -> float:
    """argparse type: a non-inferiority margin, a number in [0, 1]."""
    from medqade.measures import check_margin

    try:
        return check_margin(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a margin between 0 and 1 (e.g. 0.05), got {text!r}"
        ) from None


def add_margin_argument(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--margin``: the non-inferiority margin of the verdict against physicians."""
    from medqade.measures import DEFAULT_MARGIN

    p.add_argument(
        "--margin",
        type=margin,
        default=DEFAULT_MARGIN,
        help=f"non-inferiority margin of the verdict against physicians (default {DEFAULT_MARGIN})",
    )
