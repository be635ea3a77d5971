"""``medqade panel``: every physician of the panel, with an outlier verdict each."""

from __future__ import annotations

import argparse
import json

from medqade.analyses.common import json_ready
from medqade.commands._args import add_data_argument, non_negative_int, positive_int
from medqade.measures.rater_report import panel_report
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.release import open_release

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
        help="output format (default md); with reviews in the release, md and csv add the "
        "physicians' review codes as a column and, after a blank line, the judges' review codes "
        "as a second table (judge, review_codes)",
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
    from medqade.analyses.panel_table import judges_review_table, panel_table

    tables = [panel_table(report)]
    judges = judges_review_table(report)
    if judges is not None:
        tables.append(judges)
    texts = [t.to_csv() if args.format == "csv" else t.to_markdown() for t in tables]
    print("\n".join(texts), end="")
    return 0
