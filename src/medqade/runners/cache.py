"""An append-only response cache on disk, so an interrupted run resumes and never pays twice.

One JSON line per finished item in ``<cache_dir>/responses.jsonl``, written and flushed as
soon as the item is done. The key (:func:`cache_key`) hashes the model, the full messages
(system prompt included), the response format, the sampling parameters and the item id, so a
changed prompt or parameter is a cache miss, never a stale hit. A half-written last line
(the process was killed mid-write) is skipped on load. A lock file keeps two runs from
appending to the same cache at once. No API key or endpoint credential is ever stored.

The cache folder follows the output policy (:mod:`medqade.atomic`, :func:`check_cache_dir`):
it is new, empty or an earlier cache (only ``responses.jsonl`` and ``.lock``, each a plain file
with no other link, the first line a cache record); never a link, an input of the run, nor a
folder in or of a build or a raw release. The files are opened without following links.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final

from medqade import atomic

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

CACHE_FILE: Final = "responses.jsonl"
LOCK_FILE: Final = ".lock"
KEY_VERSION: Final = 1


def cache_key(
    model: str,
    messages: Sequence[Mapping[str, str]],
    response_format: Mapping[str, Any] | None,
    sampling: Mapping[str, Any],
    item_id: str,
) -> str:
    """SHA-256 over everything that determines what the model is asked (see module doc)."""
    payload = {
        "v": KEY_VERSION,
        "model": model,
        "messages": [dict(m) for m in messages],
        "response_format": response_format,
        "sampling": sampling,
        "item": item_id,
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _refuse(where: str, why: str) -> atomic.OutputRefused:
    return atomic.OutputRefused(f"{where} {why}; pass --cache-dir with a new or empty folder")


def _is_cache_file(path: Path) -> bool:
    """An earlier cache: empty, a first line still being written, or a first record."""
    try:
        with path.open("rb") as fh:
            head = fh.read(1 << 20)
    except OSError:
        return False
    if b"\n" not in head:
        return True  # empty, or killed while writing the first record
    return atomic.first_json_line_has(path, ["key"])


def check_cache_dir(
    folder: Path, inputs: Sequence[tuple[Path, str]] = (), option: str = "--cache-dir"
) -> Path:
    """Return the absolute ``folder`` if the response cache may be written there, else raise
    :class:`~medqade.atomic.OutputRefused` (one line naming the user's path): a link, a file,
    an input of the run (or a folder inside one), a build or raw release or a folder inside
    one, a folder with other files, and cache files that are links, have other hard links or
    are not a cache."""
    where = f"{option} {folder}"
    folder = Path(os.path.abspath(folder))
    if folder.is_symlink():
        raise _refuse(where, "is a symbolic link")
    if folder.exists() and not folder.is_dir():
        raise _refuse(where, "is a file, not a folder")
    real = folder.resolve()
    for path, description in inputs:
        src = Path(os.path.abspath(path)).resolve()
        if real == src or src in real.parents:
            raise _refuse(where, f"is or lies inside {description}; a run never writes there")
    for above in (real, *real.parents):
        kind = atomic.guarded(above)
        if kind is not None:
            raise _refuse(where, f"is or lies inside {kind} ({above}); a run never writes there")
    if not folder.is_dir():
        return folder
    names = sorted(os.listdir(folder))
    foreign = [n for n in names if n not in (CACHE_FILE, LOCK_FILE)]
    if foreign:
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise _refuse(where, f"holds files that are not a response cache ({shown})")
    for name in names:
        path = folder / name
        if path.is_symlink() or not path.is_file():
            raise _refuse(where, f"holds {name}, which is not a plain file")
        if path.stat().st_nlink > 1:
            raise _refuse(where, f"holds {name}, a hard link to another file")
    if CACHE_FILE in names and not _is_cache_file(folder / CACHE_FILE):
        raise _refuse(where, f"holds a {CACHE_FILE} that is not a response cache")
    return folder


def _open_append(path: Path) -> IO[str]:
    """``path`` opened to append, refusing a link (``O_NOFOLLOW``)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o666), "a", encoding="utf-8")


class ResponseCache:
    """Finished items by cache key; use as a context manager (takes and frees the lock)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / CACHE_FILE
        self.records: dict[str, dict[str, Any]] = {}
        self.skipped_lines = 0
        self._needs_newline = False
        self._fh: IO[str] | None = None
        self._lock: IO[str] | None = None

    def __enter__(self) -> ResponseCache:
        check_cache_dir(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = _open_append(self.folder / LOCK_FILE)
        if fcntl is not None:
            try:
                fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                self._lock.close()
                self._lock = None
                raise ValueError(
                    f"cache {self.folder} is in use by another run; wait for it or pass "
                    "another --cache-dir"
                ) from None
        self._load()
        self._fh = _open_append(self.path)
        if self._needs_newline:
            self._fh.write("\n")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self._lock.close()
            self._lock = None

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        self._needs_newline = bool(data) and not data.endswith(b"\n")
        for line in data.decode("utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                self.skipped_lines += 1
                continue
            if isinstance(record, dict) and isinstance(record.get("key"), str):
                self.records[record["key"]] = record
            else:
                self.skipped_lines += 1

    def get(self, key: str) -> dict[str, Any] | None:
        return self.records.get(key)

    def put(self, record: dict[str, Any]) -> None:
        """Append ``record`` (which carries its ``key``) and flush it to the OS."""
        if self._fh is None:
            raise RuntimeError("ResponseCache.put outside its context manager")
        self.records[record["key"]] = record
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()
