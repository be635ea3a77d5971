"""Tests of medqade.files.atomic: files and folders appear whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from medqade.files import atomic, folder_output


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


def _old_output(target: Path) -> None:
    with folder_output.directory(target) as tmp:
        (tmp / "old.txt").write_text("old", encoding="utf-8")
