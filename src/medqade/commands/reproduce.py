"""``medqade reproduce``: every table and figure of the paper, recomputed from a release."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from medqade.analyses.report import reproduce
from medqade.commands._args import add_data_argument, non_negative_int, positive_int
from medqade.dataset.sources import open_release
from medqade.files import atomic, folder_output
from medqade.measures import BOOTSTRAP_SEED

NAME = "reproduce"
HELP = "Recompute Tables 1-4 and the figures of the paper from a release (default: synthetic)."
FORMATS = ("md", "json", "csv")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)
    p.add_argument(
        "--out",
        type=Path,
        default=Path("reproduce"),
        help="output folder (default ./reproduce): new, empty, or an earlier reproduce output "
        "(replaced as a whole); anything else is refused",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="md: report.md; json: report.json; csv: one CSV per table (default md)",
    )
    p.add_argument(
        "--resamples",
        type=positive_int,
        default=1000,
        help="question bootstrap resamples for the CIs (default 1000)",
    )
    p.add_argument(
        "--contrast-resamples",
        type=positive_int,
        default=5000,
        help="resamples for the between-stratum differences of RQ2 (default 5000)",
    )
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=BOOTSTRAP_SEED,
        help=f"bootstrap seed (default {BOOTSTRAP_SEED})",
    )


REPRODUCE_KIND = "MedQADE reproduce output"


def output(data: str | None) -> folder_output.Output:
    """The output folder's policy (:func:`medqade.files.folder_output.check_target`): an
    empty or new folder, or an earlier ``reproduce --out`` (its marker lists every file); never
    the release it reads, a build or a raw release."""
    from medqade.dataset.sources import resolve_data

    inputs = [(resolve_data(data), "the release it reads (--data)")]
    if data is not None and Path(data).exists():
        inputs.append((Path(data), "the release it reads (--data)"))
    return folder_output.Output(REPRODUCE_KIND, "--out", None, tuple(inputs))


def run(args: argparse.Namespace) -> int:
    policy = output(args.data)
    folder_output.recover(args.out, policy)
    folder_output.check_target(args.out, policy)  # refuse before the minutes of resampling
    release = open_release(args.data)
    if release.withholds:  # a public build with held-out labels: the labelled items only
        n = int(release.unlabelled.sum())
        print(
            f"note: this build holds out the labels of {n} of {release.n_items} items; the "
            f"analyses use the {release.n_items - n} labelled items (docs/holdout.md)",
            file=sys.stderr,
        )
        release = release.labelled()
    report = reproduce(
        release,
        resamples=args.resamples,
        seed=args.seed,
        contrast_resamples=args.contrast_resamples,
    )
    if release.meta.has_pool_judgments:  # S5 and S9: the pool, when published
        import dataclasses

        from medqade.analyses.pool_fidelity_table import pool_fidelity_report
        from medqade.analyses.pool_table import pool_report
        from medqade.dataset.sources import resolve_data

        folder = resolve_data(args.data)
        report = dataclasses.replace(
            report,
            pool=pool_report(folder, release.roster),
            pool_fidelity=pool_fidelity_report(folder, release.roster, args.resamples, args.seed),
        )
    markdown = report.to_markdown()
    print(markdown, end="")
    from medqade.analyses.figures import write_figures

    out: Path = args.out
    with folder_output.directory(out, policy) as tmp:  # every file, or none
        written = write_figures(report, tmp)
        from medqade.analyses.cost_frontier import write_figure as write_cost_figure

        costed, why_not = write_cost_figure(release, tmp, args.resamples, args.seed)
        written.extend(costed)
        if why_not:
            print(f"note: no cost figure: {why_not}", file=sys.stderr)
        if args.format == "md":
            atomic.write_text(tmp / "report.md", markdown)
            written.append(tmp / "report.md")
        elif args.format == "json":
            atomic.write_text(tmp / "report.json", report.to_json())
            written.append(tmp / "report.json")
        else:
            for table in report.tables():
                path = tmp / f"{table.name}.csv"
                atomic.write_text(path, table.to_csv())
                written.append(path)
    print(f"wrote {len(written)} files to {out}", file=sys.stderr)
    return 0
