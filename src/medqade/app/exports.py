"""Files the Space offers for download, written once per content into one temporary folder."""

from __future__ import annotations

import re
import tempfile
import threading
from pathlib import Path
from typing import Final

SAFE_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


class Exports:
    """Files offered for download, written once per content into one temporary folder."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="medqade-space-"))
        self._lock = threading.Lock()

    def write(self, name: str, data: str, replaces: str | None = None) -> str:
        """Write ``data`` as ``name`` (once); ``replaces`` deletes older files with that prefix."""
        if not SAFE_NAME.match(name):
            raise ValueError(f"export name {name!r} is not a plain file name")
        path = self.root / name
        with self._lock:
            if not path.exists():
                tmp = path.with_name(f".{name}.tmp")
                tmp.write_text(data, encoding="utf-8")
                tmp.replace(path)
            if replaces:
                for old in self.root.glob(f"{replaces}*"):
                    if old != path:
                        old.unlink(missing_ok=True)
        return str(path)
