"""Import rules of the package's layers, read from the source (imports inside functions too).

The rules that hold today and must keep holding (issue 25 tightens the rest):

- ``medqade.stats`` imports only the standard library, numpy and scipy;
- ``medqade.measures`` never imports the layers above it (``scoring``, ``analyses``, ``app``,
  ``commands``, ``runners``) nor gradio;
- ``medqade.analyses`` and ``medqade.scoring`` never import each other;
- ``medqade.scoring`` never imports gradio or ``medqade.app``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "medqade"


def _imports(folder: str) -> dict[str, set[str]]:
    """Every module a file under ``medqade/<folder>`` imports, by file (relative path)."""
    out: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
        out[path.relative_to(PACKAGE).as_posix()] = found
    return out


def _offending(folder: str, forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{file} imports {name}"
        for file, names in _imports(folder).items()
        for name in sorted(names)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    ]


def test_stats_imports_only_numpy_scipy_and_the_standard_library() -> None:
    allowed = {"numpy", "scipy", "medqade", "__future__", *sys.stdlib_module_names}
    bad = [
        f"{file} imports {name}"
        for file, names in _imports("stats").items()
        for name in sorted(names)
        if name.split(".")[0] not in allowed
        or (name.startswith("medqade.") and not name.startswith("medqade.stats"))
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        (
            "measures",
            (
                "medqade.scoring",
                "medqade.analyses",
                "medqade.app",
                "medqade.commands",
                "medqade.runners",
                "gradio",
            ),
        ),
        ("analyses", ("medqade.scoring", "medqade.app", "medqade.commands")),
        ("scoring", ("medqade.analyses", "medqade.app", "medqade.commands", "gradio")),
    ],
)
def test_layer_never_imports_upward_or_its_sibling(folder: str, forbidden: tuple[str, ...]) -> None:
    assert _offending(folder, forbidden) == []
