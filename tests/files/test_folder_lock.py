"""One writer at a time in a folder (:mod:`medqade.files.folder_lock`, issue 38): an advisory
lock across processes, naming its holder, released when the holder dies, never followed
through a link."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from medqade.files import folder_lock
from medqade.files.folder_lock import LOCK_NAME, FolderBusy, hold, holder

SRC = Path(__file__).resolve().parents[2] / "src"
HOLDER = """
import sys, time
from pathlib import Path
from medqade.files.folder_lock import hold
with hold(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(600)
"""


def _holding(folder: Path) -> subprocess.Popen[str]:
    """A process that holds ``folder``'s lock until it is killed."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_hold_records_the_holder_in_a_dotfile(tmp_path: Path) -> None:
    with hold(tmp_path / "results") as me:
        assert me.pid == os.getpid() and me.host == socket.gethostname()
        assert holder(tmp_path / "results") == me
    assert [p.name for p in (tmp_path / "results").iterdir()] == [LOCK_NAME]
    assert LOCK_NAME.startswith(".")  # the Hub mirror leaves dotfiles out


def test_a_second_process_waits_then_is_refused_naming_the_holder(tmp_path: Path) -> None:
    proc = _holding(tmp_path)
    try:
        with pytest.raises(FolderBusy) as caught, hold(tmp_path, wait_s=0.2):
            pass
        message = str(caught.value)
        assert f"being written by process {proc.pid} on host {socket.gethostname()} since" in (
            message
        )
        assert "try again when it has finished" in message and str(tmp_path) in message
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with hold(tmp_path, wait_s=0) as me:  # a dead holder blocks nobody
        assert me.pid == os.getpid()


def test_a_lock_file_that_is_a_link_is_refused_and_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep\n", encoding="utf-8")
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / LOCK_NAME).symlink_to(target)
    with pytest.raises(FolderBusy, match="is a link; remove it"), hold(folder):
        pass
    assert target.read_text(encoding="utf-8") == "keep\n"


def test_an_unreadable_holder_line_is_no_holder(tmp_path: Path) -> None:
    assert holder(tmp_path) is None
    for line in ("not json", "[1]", '{"pid": 1e400, "host": "h", "since": "s"}'):
        (tmp_path / LOCK_NAME).write_text(line, encoding="utf-8")
        assert holder(tmp_path) is None
    assert folder_lock.WAIT_S > 1


def test_a_lock_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / LOCK_NAME)
    with pytest.raises(FolderBusy, match="is not a plain file; remove it"), hold(tmp_path):
        pass
    assert holder(tmp_path) is None
