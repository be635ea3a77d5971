"""Import rules of the package's layers, read from the source (imports inside functions too).

The layers contract itself (who may import whom) is import-linter's, in pyproject.toml, run by
``make test`` (``lint-imports``) and by :func:`test_import_linter_contracts_hold`. The rules
here are the ones import-linter cannot state:

- ``medqade.stats`` imports only the standard library, numpy and scipy;
- ``medqade.measures`` never imports the layers above it (``scoring``, ``analyses``, ``app``,
  ``commands``, ``runners``) nor gradio;
- ``medqade.analyses`` and ``medqade.scoring`` never import each other;
- only ``medqade.app`` imports gradio;
- no module imports or reads a private name (``_x``) of another module, nor a private module
  (``pkg._x``) from outside ``pkg``.

The exceptions are the violations still in the code (issue 25): delete one with each fix, never
add one; a listed exception that no longer occurs fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import subprocess
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


def test_only_the_space_imports_gradio() -> None:
    bad = [
        f"{file} imports {name}"
        for file, names in _imports("").items()
        for name in sorted(names)
        if not file.startswith("app/") and (name == "gradio" or name.startswith("gradio."))
    ]
    assert bad == []


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dotted(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private_uses(path: Path, package: Path = PACKAGE) -> set[str]:
    """``"<this module> uses <other module>.<_name>"`` for every private name it takes from
    another module: ``from m import _x``, ``m._x`` on an imported module, ``import pkg._m``."""
    here = _dotted(path, package)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: dict[str, str] = {}  # local name -> the medqade module or object it names
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("medqade"):
                continue
            parts = node.module.split(".")
            for i, part in enumerate(parts):
                owner = ".".join(parts[:i])
                if _is_private(part) and not here.startswith(owner + "."):
                    found.add(f"{here} uses {node.module}")
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if _is_private(alias.name):
                    found.add(f"{here} uses {node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("medqade"):
                    bound[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and _is_private(node.attr)
        ):
            found.add(f"{here} uses {bound[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    found = set().union(*(_private_uses(path) for path in sorted(PACKAGE.rglob("*.py"))))
    assert sorted(found) == []


def test_the_private_name_rule_catches_each_form(tmp_path: Path) -> None:
    package = tmp_path / "medqade"
    source = package / "analyses" / "fake.py"
    source.parent.mkdir(parents=True)
    source.write_text(
        "from medqade.raw.reader import _strip, RawRelease\n"
        "from medqade import vocab\n"
        "from medqade.commands._args import add_data_argument\n"
        "from medqade.analyses._local import ok\n"
        "vocab._hidden\n"
        "vocab.__name__\n",
        encoding="utf-8",
    )
    assert _private_uses(source, package) == {
        "medqade.analyses.fake uses medqade.raw.reader._strip",
        "medqade.analyses.fake uses medqade.commands._args",
        "medqade.analyses.fake uses medqade.vocab._hidden",
    }


def test_import_linter_contracts_hold() -> None:
    """The contracts in pyproject.toml (layers, no cycles) with their listed exceptions."""
    root = PACKAGE.parents[1]
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    done = subprocess.run(
        [str(lint), "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(PACKAGE.parent), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
