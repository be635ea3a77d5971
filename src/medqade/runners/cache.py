"""An append-only response cache on disk, so an interrupted run resumes and never pays twice.

One JSON line per finished item in ``<cache_dir>/responses.jsonl``, written and flushed as
soon as the item is done. The key (:func:`cache_key`) hashes the model, the full messages
(system prompt included), the response format, the sampling parameters and the item id, so a
changed prompt or parameter is a cache miss, never a stale hit. A half-written last line
(the process was killed mid-write) is skipped on load. A lock file keeps two runs from
appending to the same cache at once. No API key or endpoint credential is ever stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final

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
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = open(self.folder / LOCK_FILE, "a", encoding="utf-8")
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
        self._fh = open(self.path, "a", encoding="utf-8")
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
