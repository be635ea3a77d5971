"""What no command writes into: a build (a folder with ``release.json``), a build's private part
(a folder with ``medqade-private.json``), a raw release (a folder with a ``questions`` table,
or an ``answers`` table beside another raw table), and special files (pipes, sockets,
devices); and the path checks the output policies share."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

SPECIAL_FILES: Final = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
"""The kinds of special file a command never writes to (a write would block, vanish or go
to a device instead of a file), each with its name in messages."""


def special_file(path: Path) -> str | None:
    """What ``path`` is when it is a special file (:data:`SPECIAL_FILES`), else ``None``."""
    try:
        mode = os.stat(path, follow_symlinks=False).st_mode
    except (OSError, ValueError):
        return None
    return next((what for test, what in SPECIAL_FILES if test(mode)), None)


def file_above(path: Path) -> Path | None:
    """The nearest existing path above ``path`` when it is not a folder (``a.json/new``)."""
    for folder in path.parents:
        if folder.exists():
            return None if folder.is_dir() else folder
    return None


BUILD_MANIFEST = "release.json"
"""The file that makes a folder a build."""


PRIVATE_MANIFEST = "medqade-private.json"
"""The file that makes a folder the private part of a build with held-out labels
(:mod:`medqade.dataset.private_part`)."""


RAW_MARKS = ("questions", "answers")
"""Tables that make a folder a raw release (in any of the table formats below): ``questions``
alone, ``answers`` together with another raw table (:data:`RAW_COMPANIONS`). A lone
``answers.csv`` is how people name a model's answers (a submission), not a raw release."""


RAW_COMPANIONS = ("questions", "ratings", "difficulty", "judgments")


RAW_FORMATS = (".csv", ".jsonl", ".parquet")


def _has_table(folder: Path, name: str) -> bool:
    return any((folder / f"{name}{ext}").is_file() for ext in RAW_FORMATS)


def guarded(folder: Path) -> str | None:
    """``"a MedQADE build"``, ``"a MedQADE private part"`` or ``"a raw release"`` when
    ``folder`` is one, else ``None``."""
    if (folder / BUILD_MANIFEST).is_file():
        return "a MedQADE build"
    if (folder / PRIVATE_MANIFEST).is_file():
        return "a MedQADE private part"
    if _has_table(folder, "questions") or (
        _has_table(folder, "answers") and any(_has_table(folder, n) for n in RAW_COMPANIONS)
    ):
        return "a raw release"
    return None


def guarded_within(path: Path) -> tuple[Path, str] | None:
    """The build or raw release that ``path`` (links resolved) is or lies inside, with its
    kind (:func:`guarded`); ``None`` when there is none."""
    real = Path(os.path.abspath(path)).resolve()
    for folder in (real, *real.parents):
        what = guarded(folder)
        if what is not None:
            return folder, what
    return None


def guarded_above(path: Path) -> tuple[Path, str] | None:
    """The nearest folder above ``path`` that is a build or a raw release, with its kind."""
    for folder in path.parents:
        what = guarded(folder)
        if what is not None:
            return folder, what
    return None
