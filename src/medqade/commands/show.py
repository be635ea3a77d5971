"""``medqade show``: build (if needed) and load a release with ``datasets``, print it."""

from __future__ import annotations

import argparse
import json

from medqade.build import RELEASE_JSON
from medqade.commands._args import add_data_argument
from medqade.schema import CONFIGS
from medqade.sources import resolve_data

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
    meta = json.loads((folder / RELEASE_JSON).read_text(encoding="utf-8"))
    for config in meta.get("configs", CONFIGS):  # the optional ones (reviews) when built
        print(f"\n[{config}]")
        print(load_dataset(str(folder), config))
    return 0
