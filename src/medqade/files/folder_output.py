"""Output folders: a folder appears whole, or not at all.

:func:`directory` is how every command writes an output folder (a build, an Arrow export, a
synthetic raw release). It replaces only a folder it can prove it wrote itself:

- the folder carries a manifest that lists every file in it (a build's ``release.json``, or the
  :data:`MARKER` file that :func:`directory` writes for the other kinds, with each file's
  sha256: a file edited since is refused), and holds nothing else; or the folder is empty.
  Anything else (a file, a link, a folder with other files, the working folder, a folder the
  command reads) is refused with :class:`~medqade.files.atomic.OutputRefused`;
- the new folder is assembled beside the target in ``.NAME.XXXX.tmp``, which carries
  :data:`PARTIAL` while it is incomplete, and is swapped in with one atomic exchange where the
  system offers one (Linux ``renameat2``); elsewhere the old folder is renamed aside to
  ``.NAME.old-PID`` first. The next run over the same target finishes or undoes a swap that a
  crash interrupted and removes leftovers that carry our markers (never anything else).

Two commands writing the same target at the same moment are not supported."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medqade.files.atomic import (
    OutputRefused,
    alive,
    make_parents,
    read_json_object,
    remove_empty,
    umask,
    write_text,
)
from medqade.files.guards import file_above, guarded_above, special_file

MARKER = ".medqade.json"
"""Manifest that :func:`directory` writes into an output folder that has no manifest of its own."""


PARTIAL = ".medqade-partial.json"
"""Present in a temporary folder from its creation until it is complete."""


Manifest = Callable[[Path], "set[str] | None"]
"""Given a folder, the relative paths its manifest vouches for (``None``: no manifest there)."""


@dataclass(frozen=True)
class Output:
    """What a command writes, how it recognises its own earlier output, and what it reads.

    ``kind`` names the output in markers and messages (``"MedQADE build"``); ``option`` is the
    command-line option that named the path (``"--out"``); ``manifest`` reads the folder's own
    manifest (``None``: :func:`directory` writes :data:`MARKER`); ``inputs`` are paths the
    command reads, each with a description: the output may not be, contain or lie inside one.
    """

    kind: str
    option: str = "--out"
    manifest: Manifest | None = None
    inputs: tuple[tuple[Path, str], ...] = ()

    def listed(self, folder: Path) -> set[str] | None:
        if self.manifest is not None:
            return self.manifest(folder)
        return marker_files(folder, self.kind)


def marker_files(folder: Path, kind: str) -> set[str] | None:
    """Files that ``folder``'s :data:`MARKER` lists for ``kind`` (with the marker itself)."""
    data = read_json_object(folder / MARKER)
    if data is None or data.get("kind") != kind or not isinstance(data.get("files"), list):
        return None
    return {MARKER, *(str(f) for f in data["files"])}


def _files(folder: Path) -> list[str]:
    """Every file (and link) under ``folder``, relative, sorted; links are not followed."""
    out = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        here = Path(root)
        links = [d for d in dirs if (here / d).is_symlink()]
        for name in (*files, *links):
            out.append((here / name).relative_to(folder).as_posix())
    return sorted(out)


def _shown(names: Sequence[str]) -> str:
    head = ", ".join(names[:3])
    return head if len(names) <= 3 else f"{head} and {len(names) - 3} more"


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_target(target: Path, output: Output) -> Path:
    """Return the absolute ``target`` if ``output`` may be written there, else raise.

    Raises :class:`OutputRefused` (one line: why, and what to do) for the working folder or a
    folder that contains it, an input of the command or a folder that contains one or lies
    inside one, a path inside a build or a raw release (:func:`guarded`), a link, a file, and
    a non-empty folder whose files are not all vouched for by a manifest of ``output.kind``.
    """
    where = f"{output.option} {target}"
    target = Path(os.path.abspath(target))
    real = target.resolve()
    cwd = Path.cwd().resolve()
    if _within(cwd, real):
        what = "is the working folder" if real == cwd else "contains the working folder"
        raise OutputRefused(
            f"{where} {what}; the command never replaces it: name a new folder, e.g. "
            f"{output.option} {target.name if real != cwd else 'medqade-out'}"
        )
    for path, description in output.inputs:
        src = Path(os.path.abspath(path)).resolve()
        if real == src:
            what = f"is {description}"
        elif real in src.parents:
            what = f"contains {description}"
        elif src in real.parents:
            what = f"lies inside {description}"
        else:
            continue
        raise OutputRefused(
            f"{where} {what}; a command never writes into or over what it reads: "
            f"choose a folder outside it"
        )
    if target.is_symlink():
        raise OutputRefused(f"{where} is a symbolic link; pass the folder itself or a new path")
    blocker = file_above(target)
    if blocker is not None:
        raise OutputRefused(
            f"{where}: {blocker} is a file, not a folder; choose a path in a folder"
        )
    guarded = guarded_above(real)
    if guarded is not None:
        folder, what = guarded
        raise OutputRefused(
            f"{where} lies inside {what} ({folder}); a command never writes into it: "
            f"choose a folder outside it"
        )
    special = special_file(target)
    if special is not None:
        raise OutputRefused(
            f"{where} is {special}, not a folder; a command writes only regular files in "
            f"folders: choose a new folder path for {output.option}"
        )
    if target.exists() and not target.is_dir():
        raise OutputRefused(
            f"{where} is a file, not a folder; move it away or choose another {output.option}"
        )
    if target.is_dir():
        listed = output.listed(target)
        if listed is None:
            with os.scandir(target) as entries:  # never walk a large foreign tree
                top = sorted(e.name + ("/" if e.is_dir() else "") for e in entries)
            if top:
                raise OutputRefused(
                    f"{where} is a folder that was not written as a {output.kind} "
                    f"(it holds {_shown(top)}); refusing to replace it: choose a new or "
                    f"empty folder, or move that folder away yourself"
                )
        else:
            foreign = [p for p in _files(target) if p not in listed]
            if foreign:
                raise OutputRefused(
                    f"{where} holds files that the earlier {output.kind} did not write "
                    f"({_shown(foreign)}); refusing to replace them: move them out of the "
                    f"folder or choose another {output.option}"
                )
            changed = _changed(target) if output.manifest is None else []
            if changed:
                raise OutputRefused(
                    f"{where} holds files changed since the earlier {output.kind} wrote them "
                    f"({_shown(changed)}); refusing to replace them: move them out of the "
                    f"folder or choose another {output.option}"
                )
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _changed(folder: Path) -> list[str]:
    """Files of ``folder`` whose bytes differ from the sha256 its :data:`MARKER` recorded
    (markers written before hashes were recorded vouch for names only)."""
    data = read_json_object(folder / MARKER) or {}
    hashes = data.get("sha256")
    if not isinstance(hashes, dict):
        return []
    out = []
    for name, digest in sorted(hashes.items()):
        path = folder / str(name)
        if path.is_symlink() or (path.is_file() and _sha256(path) != digest):
            out.append(str(name))
    return out


def _owned(folder: Path, output: Output) -> bool:
    """True for a complete earlier output of this kind (every file vouched for)."""
    if not folder.is_dir() or folder.is_symlink() or (folder / PARTIAL).exists():
        return False
    listed = output.listed(folder)
    return listed is not None and set(_files(folder)) <= listed


def _partial_of(folder: Path, output: Output) -> dict[str, Any] | None:
    data = read_json_object(folder / PARTIAL)
    return data if data is not None and data.get("kind") == output.kind else None


def recover(target: Path, output: Output) -> None:
    """Finish or undo a swap a crash interrupted, and remove our leftovers beside ``target``.

    If ``target`` is missing but a complete new folder (``.NAME.XXXX.tmp``) or the old one
    renamed aside (``.NAME.old-PID``) is there, it is moved back to ``target`` (the new one
    first). Incomplete temporary folders of dead processes and leftovers that are complete
    outputs of this kind are removed. Nothing without our markers is touched.
    """
    target = Path(os.path.abspath(target))
    parent = target.parent
    if not parent.is_dir():
        return
    prefix = f".{target.name}."
    try:
        siblings = sorted(p for p in parent.iterdir() if p.name.startswith(prefix))
    except OSError:
        return
    new = [p for p in siblings if p.name.endswith(".tmp") and _owned(p, output)]
    old = [p for p in siblings if p.name[len(prefix) :].startswith("old-")]
    old = [p for p in old if _owned(p, output) or (p.is_dir() and not _files(p))]
    partial = [p for p in siblings if p.name.endswith(".tmp") and _partial_of(p, output)]
    if not target.exists() and not target.is_symlink():
        newest = sorted(new, key=lambda p: p.stat().st_mtime) or sorted(
            old, key=lambda p: p.stat().st_mtime
        )
        if newest:
            pick = newest[-1]
            os.replace(pick, target)
            new = [p for p in new if p != pick]
            old = [p for p in old if p != pick]
    for p in (*new, *old):
        shutil.rmtree(p, ignore_errors=True)
    for p in partial:
        info = _partial_of(p, output)
        if info is not None and not alive(info.get("pid"), (p / PARTIAL).stat().st_mtime):
            shutil.rmtree(p, ignore_errors=True)


_RENAME_EXCHANGE = 2


_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step (Linux ``renameat2``); False where unsupported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(tmp: Path, target: Path) -> None:
    if not target.exists():
        os.replace(tmp, target)
        return
    if _exchange(tmp, target):
        shutil.rmtree(tmp)  # it now holds the old folder
        return
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if old.exists():
        shutil.rmtree(old)
    os.replace(target, old)
    try:
        os.replace(tmp, target)
    except BaseException:
        os.replace(old, target)
        raise
    shutil.rmtree(old)


@contextlib.contextmanager
def directory(target: Path, output: Output | None = None) -> Iterator[Path]:
    """Yield a temporary folder beside ``target``; on success it replaces ``target``.

    ``target`` is checked first (:func:`check_target`, after :func:`recover`); on any
    exception inside the block the temporary folder is removed and ``target`` is left as it
    was. Without a ``manifest`` the folder gets a :data:`MARKER` listing its files.
    """
    output = output or Output(kind="output")
    recover(target, output)
    target = check_target(target, output)
    made: list[Path] = []
    try:
        made = make_parents(target)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as exc:
        remove_empty(made)
        raise OutputRefused(
            f"{output.option} {target}: cannot write in {target.parent} "
            f"({exc.strerror or exc}); choose a folder you can write to"
        ) from None
    try:
        os.chmod(tmp, 0o777 & ~umask())
        partial = {"kind": output.kind, "pid": os.getpid()}
        write_text(tmp / PARTIAL, json.dumps(partial) + "\n")
        yield tmp
        if output.manifest is None:
            files = [f for f in _files(tmp) if f not in (PARTIAL, MARKER)]
            hashes = {f: _sha256(tmp / f) for f in files if not (tmp / f).is_symlink()}
            marker: dict[str, Any] = {"written_by": "medqade", "kind": output.kind}
            marker |= {"files": files, "sha256": hashes}  # an edited file is never replaced
            write_text(tmp / MARKER, json.dumps(marker, indent=2) + "\n")
        os.unlink(tmp / PARTIAL)
        _swap_in(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        remove_empty(made)
        raise


def remove_trees(folders: Iterable[Path]) -> list[Path]:
    """Remove each folder with everything in it (the caller has checked that they are its
    own); the ones that are gone afterwards (one that cannot be removed is left)."""
    removed = []
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed
