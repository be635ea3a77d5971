"""Atomic writes: a file, or several files as one unit, appear whole or not at all.

Every command writes through here; where it may write is the output policy of
:mod:`medqade.files.folder_output` (a whole output folder, :func:`directory
<medqade.files.folder_output.directory>`) and :mod:`medqade.files.file_output` (one file,
:func:`check_file <medqade.files.file_output.check_file>`), and what no command writes into is
:mod:`medqade.files.guards`.

- :func:`write_bytes` and :func:`write_text` write one file through a temporary file beside
  it, fsynced and renamed in place;
- :func:`write_files` writes every file to a temporary file beside its target first (so an
  unwritable target is refused before any file changes), then renames them in place one by one;
  if a rename fails, the targets already renamed are restored from hard-link backups (or
  removed, where they did not exist), so the files change all together or not at all, as far as
  POSIX allows: a crash of the machine between two renames can leave some files new;
- temporary files and backups are named ``.NAME.medqade-tmp-PID-XXXX.tmp`` and
  ``.NAME.medqade-bak-PID`` after their target and the writing process; a crash can leave them
  behind, and the next write of the same target removes those whose process is no longer
  running (:func:`clean_leftovers`; a backup only ever holds content the new file replaced);
- errors are one line naming the user's path (never the temporary file) and what to do
  (:class:`OutputRefused`).

Two commands writing the same target at the same moment are not supported.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class OutputRefused(ValueError):
    """An output path a command will not write; the message is one line: why, and what to do."""


def umask() -> int:
    """The process's file-creation mask (read without changing it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, fsync and rename."""
    path = Path(path)
    clean_leftovers(path)
    try:
        tmp = _temp_file(path, data)
    except OSError as exc:
        raise _named(exc, path) from None
    try:
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise _named(exc, path) from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _named(exc: OSError, path: Path) -> OSError:
    """``exc`` naming ``path`` (the user's path) instead of the temporary file."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(path))


def _temp_file(path: Path, data: bytes) -> Path:
    """``data`` in a new temporary file beside ``path`` (created with its parents), fsynced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{path.name}.medqade-tmp-{os.getpid()}-"
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp makes 0600; give the usual file mode
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def _leftover_pid(name: str, target: str) -> int | None:
    """The PID in ``name`` when it is a temporary file or backup of ``target`` (see above)."""
    head = f".{target}.medqade-"
    if not name.startswith(head):
        return None
    kind, _, rest = name[len(head) :].partition("-")
    if kind == "bak":
        digits = rest
    elif kind == "tmp" and rest.endswith(".tmp"):
        digits = rest.partition("-")[0]
    else:
        return None
    return int(digits) if digits.isdigit() and digits.isascii() else None


def clean_leftovers(path: Path) -> list[Path]:
    """Remove the temporary files and backups an earlier write of ``path`` left beside it
    when its process died (a crash): plain files named ``.NAME.medqade-tmp-PID-XXXX.tmp`` or
    ``.NAME.medqade-bak-PID`` whose process is not running (never this process's: another
    thread may be writing). Return what was removed."""
    path = Path(os.path.abspath(path))
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return []
    removed = []
    for entry in entries:
        pid = _leftover_pid(entry.name, path.name)
        if pid is None or not entry.is_file(follow_symlinks=False):
            continue
        if pid == os.getpid() or alive(pid, entry.stat(follow_symlinks=False).st_mtime):
            continue  # ours now (another thread) or a running process's
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 text atomically (``\\n`` line endings on every platform)."""
    write_bytes(path, text.encode("utf-8"))


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in the marker at ``path``; ``None`` for anything else, a FIFO or
    device never opened (reading one would block, or never end)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def alive(pid: object, since: float) -> bool:
    """Whether the process that made a temporary folder may still be writing it."""
    if not isinstance(pid, int) or pid <= 0 or pid == os.getpid():
        return False
    if os.name != "posix":  # no harmless probe: trust a day-old folder to be abandoned
        return time.time() - since < 86_400
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def remove_empty(folders: Sequence[Path]) -> None:
    """Remove ``folders`` (made by :func:`make_parents`, outermost first) while empty."""
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            folder.rmdir()


@dataclass(frozen=True)
class Planned:
    """A file to write: its path, its bytes, and the option that named it (for messages)."""

    path: Path
    data: bytes
    option: str = "--out"


def write_files(files: Sequence[Planned]) -> None:
    """Write every file, all or none (see the module docstring).

    Every file goes to a temporary file beside its target first; a target that cannot be
    written there is refused (:class:`OutputRefused`, naming the user's path) before any
    target changes. Then the temporary files are renamed into place; when a rename fails, the
    targets renamed before it are restored.
    """
    paths = [Path(os.path.abspath(f.path)) for f in files]
    real = [p.parent.resolve() / p.name for p in paths]  # one file, spelled through a link
    for i, path in enumerate(real):
        if path in real[:i]:
            raise OutputRefused(
                f"{files[i].option} {files[i].path} names the same file as "
                f"{files[real.index(path)].option}; give each its own file"
            )
    for path in paths:
        clean_leftovers(path)
    temps: list[Path] = []
    made: list[Path] = []  # folders this call created, removed again when it fails
    try:
        for f, path in zip(files, paths, strict=True):
            try:
                made += make_parents(path)
                temps.append(_temp_file(path, f.data))
            except OSError as exc:
                raise OutputRefused(
                    f"{f.option} {f.path}: cannot write there ({exc.strerror or exc}); "
                    "choose a folder you can write to"
                ) from None
        _rename_all(files, paths, temps)
    except BaseException:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        temps = []
        remove_empty(made)
        raise
    finally:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def make_parents(path: Path) -> list[Path]:
    """Create the missing folders above ``path``; return them, outermost first."""
    missing = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    made = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        made.append(folder)
    return made


def _backup(path: Path) -> Path | None:
    if not path.exists():
        return None
    backup = path.with_name(f".{path.name}.medqade-bak-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(backup)
    try:
        os.link(path, backup)
    except OSError:
        shutil.copy2(path, backup)
    return backup


def _rename_all(files: Sequence[Planned], paths: Sequence[Path], temps: Sequence[Path]) -> None:
    done: list[tuple[Path, Path | None]] = []
    try:
        for f, path, tmp in zip(files, paths, temps, strict=True):
            backup = None
            try:
                backup = _backup(path)
                os.replace(tmp, path)
            except OSError as exc:
                if backup is not None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(backup)
                raise OutputRefused(
                    f"{f.option} {f.path}: cannot write there ({exc.strerror or exc}); "
                    "no file was changed: choose a path you can write to"
                ) from None
            done.append((path, backup))
    except BaseException:
        for path, backup in reversed(done):
            if backup is None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            else:
                os.replace(backup, path)
        raise
    finally:
        for _, backup in done:
            if backup is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(backup)
