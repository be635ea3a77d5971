"""``medqade show``: build (if needed) and load a release with ``datasets``, print it."""

from __future__ import annotations

import argparse

from medqade.commands._args import add_data_argument
from medqade.dataset.release import read_meta
from medqade.dataset.sources import resolve_data

NAME = "show"
HELP = "Load a release with datasets.load_dataset and print its configs (default: synthetic)."


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_data_argument(p)


def run(args: argparse.Namespace) -> int:
    from datasets import load_dataset
    from datasets.utils.logging import disable_progress_bar

    disable_progress_bar()
    folder = resolve_data(args.data)
    print(f"MedQADE release at {folder}")
    for config in read_meta(folder).configs:  # the optional ones (reviews) when built
        print(f"\n[{config}]")
        print(load_dataset(str(folder), config))
    return 0
