"""Tests of medqade.files.folder_output: an output folder appears whole or not at all, replaces
only a folder it wrote itself, and a swap a crash interrupted is finished by the next run."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.files import folder_output


def _old_output(target: Path) -> None:
    with folder_output.directory(target) as tmp:
        (tmp / "old.txt").write_text("old", encoding="utf-8")


def test_directory_creates_target(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with folder_output.directory(target) as tmp:
        assert tmp != target and tmp.parent == target.parent
        (tmp / "x.txt").write_text("x", encoding="utf-8")
        assert not target.exists()
    assert (target / "x.txt").read_text(encoding="utf-8") == "x"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_directory_replaces_existing_target(tmp_path: Path) -> None:
    target = tmp_path / "out"
    _old_output(target)
    with folder_output.directory(target) as tmp:
        (tmp / "new.txt").write_text("new", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == [folder_output.MARKER, "new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no .old folder left


def test_directory_replaces_an_empty_folder(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    with folder_output.directory(target) as tmp:
        (tmp / "new.txt").write_text("new", encoding="utf-8")
    assert (target / "new.txt").read_text(encoding="utf-8") == "new"


def test_directory_failure_keeps_target_and_removes_temp(tmp_path: Path) -> None:
    target = tmp_path / "out"
    _old_output(target)
    with pytest.raises(RuntimeError, match="boom"), folder_output.directory(target) as tmp:
        (tmp / "half.txt").write_text("half", encoding="utf-8")
        raise RuntimeError("boom")
    assert sorted(p.name for p in target.iterdir()) == [folder_output.MARKER, "old.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_directory_failure_without_target_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(KeyError), folder_output.directory(tmp_path / "out"):
        raise KeyError("x")
    assert list(tmp_path.iterdir()) == []


def test_remove_trees_removes_each_folder_whole_and_says_which(tmp_path: Path) -> None:
    a, b, other = tmp_path / "a", tmp_path / "b", tmp_path / "other"
    for folder in (a, b, other):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f.txt").write_text("x", encoding="utf-8")
    assert folder_output.remove_trees([a, b]) == [a, b]
    assert not a.exists() and not b.exists()
    assert (other / "sub" / "f.txt").read_text(encoding="utf-8") == "x"
    assert folder_output.remove_trees([]) == []


def test_directory_leaves_no_new_parent_folder_when_the_command_fails(tmp_path: Path) -> None:
    """build / reproduce / synthesize --out new/a/out that fail while writing left new/a/."""
    with (
        pytest.raises(RuntimeError),
        folder_output.directory(tmp_path / "new" / "a" / "out") as tmp,
    ):
        (tmp / "report.md").write_text("half\n", encoding="utf-8")
        raise RuntimeError("the command failed")
    assert list(tmp_path.iterdir()) == []
