"""Files the Space offers for download, written once per content into one temporary folder.

Gradio copies every file a handler returns (and every initial value) into its own cache, so
a file here is needed only until the handler has returned. The folder is therefore bounded:
:meth:`Exports.write` removes its files older than ``max_age_s`` (at most every
``prune_every_s``) and, on every write, the oldest files beyond ``max_files`` files or
``max_bytes`` bytes (:data:`MAX_FILES`, :data:`MAX_BYTES`; the file just written is kept),
and a new :class:`Exports` removes the ``medqade-space-*`` folders that
earlier, finished processes left behind. A folder is removed only when it proves to be ours:
it holds the marker file :data:`MARKER` naming a process that no longer runs (a folder of an
older version, without the marker, only when it holds nothing but ``medqade-*`` exports and
is older than :data:`LEGACY_AGE_S`). Folders of running Spaces, this one included, are kept.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from medqade.files import folder_output

log = logging.getLogger(__name__)

SAFE_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")
PREFIX: Final = "medqade-space-"
MARKER: Final = ".medqade-exports.json"
MAX_AGE_S: Final = 3600.0
PRUNE_EVERY_S: Final = 300.0
LEGACY_AGE_S: Final = 86_400.0
MAX_FILES: Final = 200
"""Files the download folder holds at most (the oldest beyond are removed on a write)."""
MAX_BYTES: Final = 64 * 1024 * 1024
"""Bytes the download folder holds at most (the oldest files beyond are removed on a write)."""
_OURS: Final = re.compile(r"^\.?medqade-[A-Za-z0-9._-]*$")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (unknown counts as running: nothing is removed)."""
    if pid == os.getpid():
        return True
    if os.name == "nt" or pid <= 0:  # os.kill(pid, 0) would terminate a process on Windows
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. another user's process
        return True
    return True


def _stale(folder: Path, now: float) -> bool:
    """Whether ``folder`` (a ``medqade-space-*`` folder) is ours and left by a finished run."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        marker = None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    if isinstance(marker, dict):
        pid = marker.get("pid")
        return isinstance(pid, int) and not _alive(pid)
    try:  # an older version's folder: only medqade-* files, and nothing new in it
        entries = list(folder.iterdir())
        newest = max([folder.stat().st_mtime, *(e.lstat().st_mtime for e in entries)])
    except OSError:
        return False
    plain = all(e.is_file() and not e.is_symlink() and _OURS.match(e.name) for e in entries)
    return plain and now - newest > LEGACY_AGE_S


def sweep_stale(parent: Path, keep: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the stale export folders under ``parent`` (module docstring); return them."""
    now = time.time() if now is None else now
    stale = [
        folder
        for folder in sorted(parent.glob(f"{PREFIX}*"))
        if (keep is None or folder != keep) and _stale(folder, now)
    ]
    removed = folder_output.remove_trees(stale)
    if removed:
        log.info("removed %d export folder(s) left by finished Space processes", len(removed))
    return removed


class Exports:
    """Files offered for download, written once per content into one temporary folder."""

    def __init__(
        self,
        parent: Path | None = None,
        *,
        max_age_s: float = MAX_AGE_S,
        prune_every_s: float = PRUNE_EVERY_S,
        max_files: int = MAX_FILES,
        max_bytes: int = MAX_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.parent = Path(parent) if parent is not None else Path(tempfile.gettempdir())
        self.parent.mkdir(parents=True, exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix=PREFIX, dir=self.parent))
        (self.root / MARKER).write_text(
            json.dumps({"pid": os.getpid(), "created": clock()}), encoding="utf-8"
        )
        self.max_age_s = max_age_s
        self.prune_every_s = prune_every_s
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.clock = clock
        self._lock = threading.Lock()
        self._pruned = clock()
        sweep_stale(self.parent, keep=self.root, now=clock())

    def write(self, name: str, data: str, replaces: str | None = None) -> str:
        """Write ``data`` as ``name`` (once); ``replaces`` deletes older files with that prefix."""
        if not SAFE_NAME.match(name):
            raise ValueError(f"export name {name!r} is not a plain file name")
        path = self.root / name
        with self._lock:
            self._prune(keep=path)
            if not path.exists():
                tmp = path.with_name(f".{name}.tmp")
                tmp.write_text(data, encoding="utf-8")
                tmp.replace(path)
            if replaces:
                for old in self.root.glob(f"{replaces}*"):
                    if old != path:
                        old.unlink(missing_ok=True)
            self._cap(keep=path)
        return str(path)

    def _cap(self, keep: Path) -> None:
        """Remove the oldest files until at most ``max_files`` files of at most ``max_bytes``
        bytes in all are left (``keep``, the file just written, stays)."""
        files = []
        for path in self.root.iterdir():
            if path.name == MARKER or path == keep:
                continue
            with contextlib.suppress(OSError):
                st = path.lstat()
                if path.is_file() or path.is_symlink():
                    files.append((st.st_mtime, path.name, st.st_size, path))
        with contextlib.suppress(OSError):
            total = keep.stat().st_size + sum(size for _, _, size, _ in files)
            count = 1 + len(files)
            for _, _, size, path in sorted(files):
                if count <= self.max_files and total <= self.max_bytes:
                    break
                path.unlink(missing_ok=True)
                count -= 1
                total -= size

    def _prune(self, keep: Path) -> None:
        """Remove files older than ``max_age_s`` (Gradio has its own copies of them)."""
        now = self.clock()
        if now - self._pruned < self.prune_every_s:
            return
        self._pruned = now
        for path in self.root.iterdir():
            if path.name == MARKER or path == keep:
                continue
            with contextlib.suppress(OSError):
                if path.is_file() and now - path.stat().st_mtime > self.max_age_s:
                    path.unlink()
