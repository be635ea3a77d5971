"""Tests of medqade.app.exports: the Space's download folder keeps only its own files, drops old
ones, stays within its file and byte caps, and removes folders of finished processes only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from medqade.app.exports import MARKER, PREFIX, Exports, sweep_stale


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_exports_remove_folders_of_finished_processes_only(tmp_path: Path) -> None:
    finished = tmp_path / f"{PREFIX}finished"
    finished.mkdir()
    (finished / MARKER).write_text(json.dumps({"pid": dead_pid()}), encoding="utf-8")
    (finished / "medqade-result-abc.json").write_text("{}", encoding="utf-8")
    running = tmp_path / f"{PREFIX}running"
    running.mkdir()
    (running / MARKER).write_text(json.dumps({"pid": os.getpid()}), encoding="utf-8")
    old_style = tmp_path / f"{PREFIX}old"
    old_style.mkdir()
    (old_style / "medqade-problems-1.csv").write_text("a\n", encoding="utf-8")
    foreign = tmp_path / f"{PREFIX}foreign"
    foreign.mkdir()
    (foreign / "thesis.txt").write_text("mine", encoding="utf-8")
    day_ago = time.time() - 2 * 86_400
    for path in (old_style, old_style / "medqade-problems-1.csv", foreign, foreign / "thesis.txt"):
        os.utime(path, (day_ago, day_ago))
    exports = Exports(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([exports.root.name, running.name, foreign.name])
    assert (foreign / "thesis.txt").read_text(encoding="utf-8") == "mine"
    assert sweep_stale(tmp_path) == []  # nothing more to remove; the live folders stay


def test_exports_drop_old_files(tmp_path: Path) -> None:
    now = [1_000_000.0]
    exports = Exports(tmp_path, max_age_s=60, prune_every_s=10, clock=lambda: now[0])
    old = Path(exports.write("medqade-result-old.json", "{}"))
    os.utime(old, (now[0] - 120, now[0] - 120))
    fresh = Path(exports.write("medqade-result-fresh.json", "{}"))
    os.utime(fresh, (now[0], now[0]))
    assert old.exists()  # pruned at most every 10 s
    now[0] += 11
    newest = Path(exports.write("medqade-result-new.json", "{}"))
    assert not old.exists() and fresh.exists() and newest.exists()
    assert (exports.root / MARKER).exists()


def test_exports_are_capped_in_files_and_bytes(tmp_path: Path) -> None:
    """Issue 38: the download folder holds at most ``max_files`` files and ``max_bytes``
    bytes; the oldest go first, the file just written always stays."""
    now = [1_000_000.0]
    exports = Exports(tmp_path, max_files=3, max_bytes=250, clock=lambda: now[0])
    written = []
    for k in range(6):
        path = Path(exports.write(f"medqade-problems-{k}.csv", "x" * 60))
        os.utime(path, (now[0] + k, now[0] + k))
        written.append(path)
    left = sorted(p.name for p in exports.root.iterdir() if p.name != MARKER)
    assert left == [p.name for p in written[-3:]]
    big = Path(exports.write("medqade-result-big.json", "y" * 200))
    assert big.exists()  # kept though it alone nearly fills the folder
    assert sum(p.stat().st_size for p in exports.root.iterdir() if p.name != MARKER) <= 250
    assert (exports.root / MARKER).exists()
