"""Tests of medqade.files.atomic: files and folders appear whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from medqade.files import atomic


def test_write_bytes_creates_parents_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "file.bin"
    atomic.write_bytes(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert [p.name for p in target.parent.iterdir()] == ["file.bin"]


def test_write_text_is_utf8_with_newlines(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    atomic.write_text(target, "Größe\nMaß\n")
    assert target.read_bytes() == "Größe\nMaß\n".encode()


def test_write_bytes_replaces_existing(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old", encoding="utf-8")
    atomic.write_bytes(target, b"new")
    assert target.read_bytes() == b"new"


def test_write_bytes_failure_keeps_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "file.txt"
    target.write_text("old", encoding="utf-8")

    def fail(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        atomic.write_bytes(target, b"new")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_directory_creates_target(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with atomic.directory(target) as tmp:
        assert tmp != target and tmp.parent == target.parent
        (tmp / "x.txt").write_text("x", encoding="utf-8")
        assert not target.exists()
    assert (target / "x.txt").read_text(encoding="utf-8") == "x"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def _old_output(target: Path) -> None:
    with atomic.directory(target) as tmp:
        (tmp / "old.txt").write_text("old", encoding="utf-8")


def test_directory_replaces_existing_target(tmp_path: Path) -> None:
    target = tmp_path / "out"
    _old_output(target)
    with atomic.directory(target) as tmp:
        (tmp / "new.txt").write_text("new", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == [atomic.MARKER, "new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no .old folder left


def test_directory_replaces_an_empty_folder(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    with atomic.directory(target) as tmp:
        (tmp / "new.txt").write_text("new", encoding="utf-8")
    assert (target / "new.txt").read_text(encoding="utf-8") == "new"


def test_directory_failure_keeps_target_and_removes_temp(tmp_path: Path) -> None:
    target = tmp_path / "out"
    _old_output(target)
    with pytest.raises(RuntimeError, match="boom"), atomic.directory(target) as tmp:
        (tmp / "half.txt").write_text("half", encoding="utf-8")
        raise RuntimeError("boom")
    assert sorted(p.name for p in target.iterdir()) == [atomic.MARKER, "old.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_directory_failure_without_target_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(KeyError), atomic.directory(tmp_path / "out"):
        raise KeyError("x")
    assert list(tmp_path.iterdir()) == []


def test_remove_trees_removes_each_folder_whole_and_says_which(tmp_path: Path) -> None:
    a, b, other = tmp_path / "a", tmp_path / "b", tmp_path / "other"
    for folder in (a, b, other):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f.txt").write_text("x", encoding="utf-8")
    assert atomic.remove_trees([a, b]) == [a, b]
    assert not a.exists() and not b.exists()
    assert (other / "sub" / "f.txt").read_text(encoding="utf-8") == "x"
    assert atomic.remove_trees([]) == []
