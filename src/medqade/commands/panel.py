"""``medqade panel``: every physician of the panel, with an outlier verdict each."""

from __future__ import annotations

import argparse
import json

from medqade.analyses.common import json_ready
from medqade.commands._args import add_data_argument, non_negative_int, positive_int
from medqade.dataset.sources import open_release
from medqade.measures import BOOTSTRAP_SEED, panel_report

NAME = "panel"
HELP = (
    "Per-physician quality: leave-one-out agreement, partner and adjudicator agreement, "
    "abstention, Fleiss without each physician, intra-rater reliability, outlier verdict."
)
FORMATS = ("md", "csv", "json")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="output format (default md). csv is one table whose first column, kind, is "
        "'physician' for each physician's row; with reviews in the release a judge column "
        "follows physician, each judge adds a row of kind 'judge' with only judge and "
        "review_codes set, and the physicians' rows have their review_codes. md shows the "
        "judges' review codes as a second table",
    )
    p.add_argument(
        "--resamples",
        type=positive_int,
        default=1000,
        help="question bootstrap resamples for the CIs (default 1000)",
    )
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=BOOTSTRAP_SEED,
        help=f"bootstrap seed (default {BOOTSTRAP_SEED})",
    )


def run(args: argparse.Namespace) -> int:
    report = panel_report(open_release(args.data), args.resamples, args.seed)
    if args.format == "json":
        text = json.dumps(json_ready(report.to_dict()), ensure_ascii=False, indent=2)
        print(text)
        return 0
    from medqade.analyses.panel_table import judges_review_table, panel_csv, panel_table

    if args.format == "csv":
        print(panel_csv(report), end="")
        return 0
    tables = [panel_table(report)]
    judges = judges_review_table(report)
    if judges is not None:
        tables.append(judges)
    print("\n".join(t.to_markdown() for t in tables), end="")
    return 0
