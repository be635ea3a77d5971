"""Tests mirror modules: ``src/medqade/<pkg>/<mod>.py`` has ``tests/<pkg>/test_<mod>.py``, or one
line here says which test files exercise it and why it has no file of its own (issue 25).

``TESTED_ELSEWHERE`` names test files that each reference the module itself: its dotted name, a
``from medqade.<pkg> import <mod>``, or for a command its name in a CLI call (``main(["score",
...])``). ``ONLY_REACHED_THROUGH`` holds the modules no test references at all: they run only
inside the modules that import them, which the line names (``via medqade.x.y: tests/...``) with
the tests of those. Both lists only shrink: an entry for a module that now has its mirrored test
file, that a test now references (``ONLY_REACHED_THROUGH``), or that is gone, fails.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "medqade"
TESTS = ROOT / "tests"

TESTED_ELSEWHERE: dict[str, str] = {
    "app/config.py": "tests/app/test_cli.py, tests/app/test_security.py: the Space's settings "
    "from flags and the environment, read by every app test",
    "app/phone.py": "tests/app/test_views.py: the phone view, with the other formatted views",
    "app/result_views.py": "tests/app/test_views.py: the tables of a scored record, with the "
    "other formatted views",
    "app/serve.py": "tests/app/test_cli.py, tests/app/test_deploy.py: starting the Space, "
    "through `medqade space` and its deploy",
    "app/tab_analysis.py": "tests/app/test_analysis.py, tests/app/test_figure_cache.py: the typed "
    "judge list the tab draws, and its encoded figures (Plots) read from and written to the "
    "disk cache",
}

ONLY_REACHED_THROUGH: dict[str, str] = {
    "app/tab_about.py": "via medqade.app.ui: tests/app/conftest.py, tests/app/test_browser.py",
    "app/tab_browse.py": "via medqade.app.ui: tests/app/conftest.py, tests/app/test_browse.py",
    "measures/judge_behaviour.py": "via medqade.scoring.metrics.judge, "
    "medqade.scoring.metrics.records: "
    "tests/scoring/metrics/test_judge.py, tests/scoring/metrics/test_records.py, "
    "tests/scoring/test_behaviour.py",
    "scoring/intake/judge_rows.py": "via medqade.scoring.intake.submission: "
    "tests/scoring/intake/test_submission.py, tests/scoring/test_fuzz.py",
}

TEST_FILE = re.compile(r"tests/[\w/]+\.py")
VIA = re.compile(r"^via ((?:medqade(?:\.\w+)+)(?:, medqade(?:\.\w+)+)*): ")


def _modules() -> list[str]:
    return sorted(
        p.relative_to(SRC).as_posix()
        for p in SRC.rglob("*.py")
        if p.stem not in ("__init__", "__main__")
    )


def _mirror(module: str) -> Path:
    rel = Path(module)
    return TESTS / rel.parent / f"test_{rel.stem}.py"


def _dotted(module: str) -> str:
    return "medqade." + ".".join(Path(module).with_suffix("").parts)


def _module_of(dotted: str) -> str:
    return "/".join(dotted.split(".")[1:]) + ".py"


@cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@cache
def _from_imports(path: Path) -> frozenset[str]:
    """``package.name`` for each ``from package import name`` (relative ones resolved)."""
    tree = ast.parse(_text(path))
    package = (
        "medqade." + ".".join(path.relative_to(SRC).parent.parts) if SRC in path.parents else ""
    )
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            elif node.level == 1 and package:
                base = package.rstrip(".") + (f".{node.module}" if node.module else "")
            else:
                continue
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(out)


def _command_name(module: str) -> str | None:
    match = re.search(r'^NAME = "([^"]+)"', _text(SRC / module), re.MULTILINE)
    return match.group(1) if match else None


def _references(path: Path, module: str) -> bool:
    """Whether the file at ``path`` imports or names ``module``: its dotted name, a ``from
    package import module``, or for a command its name as an argument of a CLI call."""
    dotted = _dotted(module)
    text = _text(path)
    if re.search(re.escape(dotted) + r"(?![\w])", text) or dotted in _from_imports(path):
        return True
    name = _command_name(module) if module.startswith("commands/") else None
    if name is None or "medqade.cli" not in text:
        return False
    return re.search(r"[\[(,]\s*[\"']" + re.escape(name) + r"[\"']\s*[,\])]", text) is not None


def _test_files() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def test_every_module_has_its_test_file_or_a_reason() -> None:
    missing = [
        m
        for m in _modules()
        if not _mirror(m).exists() and m not in TESTED_ELSEWHERE and m not in ONLY_REACHED_THROUGH
    ]
    assert not missing, (
        "write tests/<pkg>/test_<module>.py for these modules, or say in TESTED_ELSEWHERE which "
        f"test files exercise them and why they have none: {missing}"
    )


def test_entries_are_for_existing_modules_without_their_own_test_file() -> None:
    assert not set(TESTED_ELSEWHERE) & set(ONLY_REACHED_THROUGH)
    modules = set(_modules())
    for module in [*TESTED_ELSEWHERE, *ONLY_REACHED_THROUGH]:
        assert module in modules, f"{module} no longer exists: delete its entry"
        assert not _mirror(module).exists(), (
            f"{module} has {_mirror(module).relative_to(ROOT)} now: delete its entry"
        )


def test_tested_elsewhere_names_tests_that_reference_the_module() -> None:
    for module, line in TESTED_ELSEWHERE.items():
        named = [ROOT / t for t in TEST_FILE.findall(line)]
        assert named, f"{module}: the line names no test file"
        for path in named:
            assert path.is_file(), f"{module}: {path.relative_to(ROOT)} does not exist"
            assert _references(path, module), (
                f"{module}: {path.relative_to(ROOT)} does not import {_dotted(module)} "
                "(or run its command)"
            )


def test_only_reached_through_is_true() -> None:
    """Each module is imported by the modules its line names, one of the named test files
    exercises one of those (references it, or is its mirrored test file), and no test file
    references the module itself (else it belongs in ``TESTED_ELSEWHERE``)."""
    tests = _test_files()
    for module, line in ONLY_REACHED_THROUGH.items():
        referenced = [str(p.relative_to(ROOT)) for p in tests if _references(p, module)]
        assert not referenced, f"{module} is referenced by {referenced}: move it"
        via = VIA.match(line)
        assert via, f"{module}: the line must start 'via medqade.x.y: '"
        importers = [_module_of(d) for d in via.group(1).split(", ")]
        for importer in importers:
            assert (SRC / importer).is_file(), f"{module}: {importer} does not exist"
            assert _references(SRC / importer, module), f"{importer} does not import {module}"
        named = [ROOT / t for t in TEST_FILE.findall(line)]
        assert named, f"{module}: the line names no test file"
        for path in named:
            assert path.is_file(), f"{module}: {path.relative_to(ROOT)} does not exist"
        assert any(
            path == _mirror(importer) or _references(path, importer)
            for path in named
            for importer in importers
        ), f"{module}: no named test file exercises {importers}"


def test_references_reads_imports_and_commands() -> None:
    """The check itself: an import, a dotted name and a CLI call count; a bare word does not."""
    assert _references(TESTS / "scoring" / "intake" / "test_kinds.py", "scoring/intake/kinds.py")
    assert _references(TESTS / "commands" / "test_build.py", "commands/build.py")
    assert not _references(
        TESTS / "scoring" / "intake" / "test_kinds.py", "scoring/intake/coverage.py"
    )
    assert not _references(TESTS / "commands" / "test_build.py", "commands/score.py")
