"""Reading one Gradio upload for the submission policy: its shown name, its size checked
before it is read, and the uploads already stored (Gradio gives identical uploads one path).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Final

from medqade import scoring
from medqade.scoring.policy import Outcome, ResultsStore, Upload, size_refusal, upload_suffix

SHOWN_NAME: Final = re.compile(r"[^\w .,()+=@-]+")
REMEMBERED: Final = 1024
"""How many stored uploads' paths :class:`Uploads` remembers."""


def display_name(path: str | os.PathLike[str], role: str = "submission") -> str:
    """The uploaded file's own base name, as problems name it (plain text, at most 100
    characters); Gradio keeps the original name as the last part of the upload's path."""
    name = SHOWN_NAME.sub("_", Path(os.fspath(path)).name).strip(" .")
    if len(name) > 100:
        name = name[:60] + "..." + name[-37:]
    return name or f"{role}{upload_suffix(os.fspath(path))}"


class Uploads:
    """The uploads of one running Space: read within ``limits``; the record each stored one
    became is remembered, so a second request for a file already stored is told so."""

    def __init__(self, limits: scoring.Limits, store: ResultsStore) -> None:
        self.limits = limits
        self.store = store
        self._stored: dict[str, str] = {}
        self._lock = threading.Lock()

    def remember(self, path: str | os.PathLike[str], record_id: str) -> None:
        """Keep which record an upload path was stored as (the last :data:`REMEMBERED`):
        Gradio gives identical uploads the same path, so a concurrent request for the same
        file may find it deleted by the first, and is then told it is a duplicate."""
        with self._lock:
            self._stored[os.fspath(path)] = record_id
            while len(self._stored) > REMEMBERED:
                self._stored.pop(next(iter(self._stored)))

    def stored_as(self, path: str | os.PathLike[str]) -> str | None:
        """The record id the upload at ``path`` was stored as (when remembered)."""
        with self._lock:
            return self._stored.get(os.fspath(path))

    def read(self, path: str | os.PathLike[str], role: str) -> Upload | Outcome:
        """The bytes of one Gradio upload (its size checked before it is read), or why not."""
        shown = display_name(path, role)
        try:
            refusal = size_refusal(
                shown, os.path.getsize(path), self.limits, upload_suffix(os.fspath(path))
            )
            if refusal is not None:
                return Outcome(False, refusal)
            content = Path(path).read_bytes()
        except FileNotFoundError:
            stored = self.stored_as(path)
            if stored is not None:  # the same file, read and stored by a request just now
                return Outcome(False, f"{shown}: {self.store.duplicate_message(stored)}")
            return Outcome(
                False,
                f"{shown}: the uploaded file is no longer on the server (uploads are removed "
                "once they have been checked); upload it again.",
            )
        except OSError as exc:
            return Outcome(
                False,
                f"{shown}: the upload cannot be read ({type(exc).__name__}); upload it again.",
            )
        return Upload(content, shown, upload_suffix(os.fspath(path)))
