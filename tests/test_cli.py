"""The ``medqade`` entry point: one module per command, imported only when asked for."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from medqade import cli


@pytest.mark.parametrize("name", cli.command_module_names())
def test_each_command_lives_in_the_module_named_for_it(name: str) -> None:
    mod = importlib.import_module(f"medqade.commands.{name}")
    assert mod.NAME.replace("-", "_") == name


def test_a_named_command_builds_only_its_own_parser() -> None:
    parser = cli.make_parser(["pool-estimate", "gemini-3-flash-preview"])
    args = parser.parse_args(["pool-estimate", "gemini-3-flash-preview"])
    assert args.command == "pool-estimate"
    sub = next(a for a in parser._actions if a.dest == "command")
    assert list(sub.choices) == ["pool-estimate"]  # type: ignore[arg-type]


@pytest.mark.parametrize("argv", [[], ["--help"], ["pool_estimate"], ["scor"], ["--version"]])
def test_help_version_and_unknown_commands_list_every_command(argv: list[str]) -> None:
    sub = next(a for a in cli.make_parser(argv)._actions if a.dest == "command")
    assert set(sub.choices) == {  # type: ignore[arg-type]
        name.replace("_", "-") for name in cli.command_module_names()
    }


def test_pool_estimate_does_not_import_datasets_openai_or_gradio() -> None:
    code = (
        "import sys\n"
        "from medqade import cli\n"
        "cli.make_parser(['pool-estimate', 'x'])\n"
        "print(sorted(m for m in ('datasets', 'openai', 'gradio') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
