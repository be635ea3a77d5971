"""The ``medqade`` command line: one sub-command per module in :mod:`medqade.commands`.

Each command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; the module is named for the command (``pool-estimate`` lives in
``pool_estimate.py``), so ``medqade pool-estimate ...`` imports that module only and does not pay
for the others' imports (``datasets``, ``openai``, ``gradio``); ``--help`` and an unknown
command import them all. User errors (:class:`~medqade.files.problems.InputError`, ``ValueError``,
``FileNotFoundError``, and any other ``OSError`` such as a folder without write permission)
print one clear message to stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from medqade import __version__, commands
from medqade.files.problems import InputError


def command_module_names() -> list[str]:
    """The modules of :mod:`medqade.commands` that may hold a command (not ``_``-prefixed)."""
    return sorted(
        info.name
        for info in pkgutil.iter_modules(commands.__path__)
        if not info.name.startswith("_")
    )


def _command_modules(argv: Sequence[str]) -> list[ModuleType]:
    """The module of the command ``argv`` starts with, or every command module (``--help``,
    ``--version``, a misspelt command: argparse then lists them all)."""
    names = command_module_names()
    first = argv[0] if argv else "-"
    wanted = first.replace("-", "_")
    if not first.startswith("-") and "_" not in first and wanted in names:
        names = [wanted]
    mods = [importlib.import_module(f"{commands.__name__}.{name}") for name in names]
    return sorted((m for m in mods if hasattr(m, "NAME")), key=lambda m: str(m.NAME))


def make_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the sub-command it names (all when it names none)."""
    parser = argparse.ArgumentParser(
        prog="medqade",
        description="MedQADE: physician-anchored evaluation of medical LLMs in German.",
    )
    parser.add_argument("--version", action="version", version=f"medqade {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for mod in _command_modules(argv):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = make_parser(argv).parse_args(argv)
    try:
        return int(args._run(args))
    except InputError as exc:
        print(f"medqade {args.command}: {exc}", file=sys.stderr)
        return 2
    except (ValueError, FileNotFoundError, NotADirectoryError) as exc:
        print(f"medqade {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # permissions, a full disk, ...: the system's reason and the path
        where = f"{exc.filename}: " if exc.filename else ""
        print(
            f"medqade {args.command}: error: {where}{exc.strerror or exc}; check that the "
            "path exists and that you may write there",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
