"""One writer at a time in a folder: an advisory lock across processes (and machines sharing
a POSIX file system with working ``flock``).

:func:`hold` takes an exclusive ``fcntl.flock`` on :data:`LOCK_NAME` inside the folder for the
duration of one write, and records the holder (process id, host, since when) in that file, so
a writer that waits too long is told who holds it. The lock is held per write, not per
process: two writers on one folder take turns, each re-reading what the other wrote before it
decides (the results store, :mod:`medqade.scoring.policy.store`). The kernel releases a ``flock``
when its holder dies, so a crashed writer never blocks the next one; the holder line it left
is only overwritten. The lock file is a dotfile, which the Hub mirror of a results folder
ignores. A lock file that is a link, or not a regular file, is refused (never followed).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

__all__ = ["LOCK_NAME", "WAIT_S", "FolderBusy", "Holder", "hold", "holder"]

LOCK_NAME: Final = ".lock"
"""The lock file inside the locked folder (a dotfile: the Hub mirror leaves it out)."""
WAIT_S: Final = 30.0
"""How long :func:`hold` waits for another writer's write to finish (one write takes well under
a second; a holder stuck longer is named in the refusal)."""
_POLL_S: Final = 0.02


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) a folder's lock: process id, host and since when (ISO 8601)."""

    pid: int
    host: str
    since: str

    def describe(self) -> str:
        """``process PID on host HOST since TIME`` (``another process`` when unknown)."""
        if self.pid <= 0:
            return "another process"
        return f"process {self.pid} on host {self.host} since {self.since}"


class FolderBusy(OSError):
    """The folder's lock cannot be taken: another writer held it longer than the wait (the
    message names it; :attr:`holder`), or the lock file is a link or not a plain file
    (:attr:`holder` ``None``). One line, as ``str(exc)``."""

    def __init__(self, message: str, holder: Holder | None = None) -> None:
        super().__init__(message)
        self.holder = holder


def holder(folder: Path) -> Holder | None:
    """The holder line of ``folder``'s lock file (the last holder, when none holds it now),
    or ``None`` when there is none or it cannot be read."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        data = json.loads(raw.decode("utf-8"))
        return Holder(int(data["pid"]), str(data["host"])[:200], str(data["since"])[:40])
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, OverflowError):
        return None


def _open(folder: Path) -> int:
    path = folder / LOCK_NAME
    try:
        fd = os.open(
            path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FolderBusy(
                f"the lock file {LOCK_NAME} of the folder {folder} is a link; remove it (the "
                "lock is never followed out of the folder)",
            ) from None
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    if not os.path.samestat(os.fstat(fd), os.lstat(path)) or not _regular(fd):
        os.close(fd)
        raise FolderBusy(
            f"the lock file {LOCK_NAME} of the folder {folder} is not a plain file; remove it",
        )
    return fd


def _regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


@contextlib.contextmanager
def hold(
    folder: Path, wait_s: float = WAIT_S, *, clock: Callable[[], float] = time.monotonic
) -> Iterator[Holder]:
    """Hold ``folder``'s lock for the body (waiting up to ``wait_s`` seconds for another
    writer); raise :class:`FolderBusy` naming the holder when it does not come free.
    ``folder`` is created when missing."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fd = _open(folder)
    try:
        deadline = clock() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if clock() >= deadline:
                    other = holder(folder) or Holder(0, "", "")
                    raise FolderBusy(
                        f"the folder {folder} is being written by {other.describe()}, for more "
                        f"than {wait_s:g} s; try again when it has finished (a writer that died "
                        "releases it at once)",
                        other,
                    ) from None
                time.sleep(_POLL_S)
        me = Holder(
            os.getpid(),
            socket.gethostname(),
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        line = json.dumps({"pid": me.pid, "host": me.host, "since": me.since}) + "\n"
        os.ftruncate(fd, 0)
        os.pwrite(fd, line.encode("utf-8"), 0)
        yield me
    finally:
        os.close(fd)  # closing the descriptor releases the flock
