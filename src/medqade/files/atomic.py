"""Atomic writes: a file or a folder appears whole, or not at all.

:func:`directory` is how every command writes an output folder (a build, an Arrow export, a
synthetic raw release). It replaces only a folder it can prove it wrote itself:

- the folder carries a manifest that lists every file in it (a build's ``release.json``, or the
  :data:`MARKER` file that :func:`directory` writes for the other kinds, with each file's
  sha256: a file edited since is refused), and holds nothing else; or the folder is empty.
  Anything else (a file, a link, a folder with other files, the working folder, a folder the
  command reads) is refused with :class:`OutputRefused`;
- the new folder is assembled beside the target in ``.NAME.XXXX.tmp``, which carries
  :data:`PARTIAL` while it is incomplete, and is swapped in with one atomic exchange where the
  system offers one (Linux ``renameat2``); elsewhere the old folder is renamed aside to
  ``.NAME.old-PID`` first. The next run over the same target finishes or undoes a swap that a
  crash interrupted and removes leftovers that carry our markers (never anything else).

Every other command that writes follows the same policy through :func:`check_file` (one
output file, :class:`FileOutput`) and :func:`write_files` (several files as one unit):

- a target is written only where it is new, or holds the command's own earlier output (a
  marker vouches for it, :attr:`FileOutput.owned`: a folder's manifest, or the sidecar
  ``.NAME.medqade.json`` with the file's sha256, :func:`owned_by_sidecar`), or the
  user asked to change it (``--append`` / ``--replace`` of the importers); never a link, a
  folder, an input of the command, a file inside a build (a folder with ``release.json``) or a
  raw release (a folder with a ``questions`` table, or an ``answers`` table beside another raw
  table: :func:`guarded`), except the one raw table an
  importer imports into (:attr:`FileOutput.table`);
- :func:`write_files` writes every file to a temporary file beside its target first (so an
  unwritable target is refused before any file changes), then renames them in place one by one;
  if a rename fails, the targets already renamed are restored from hard-link backups (or
  removed, where they did not exist), so the files change all together or not at all, as far as
  POSIX allows: a crash of the machine between two renames can leave some files new;
- temporary files and backups are named ``.NAME.medqade-tmp-PID-XXXX.tmp`` and
  ``.NAME.medqade-bak-PID`` after their target and the writing process; a crash can leave them
  behind, and the next write of the same target removes those whose process is no longer
  running (:func:`clean_leftovers`; a backup only ever holds content the new file replaced);
- errors are one line naming the user's path (never the temporary file) and what to do.

Two commands writing the same target at the same moment are not supported.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

MARKER = ".medqade.json"
"""Manifest that :func:`directory` writes into an output folder that has no manifest of its own."""
PARTIAL = ".medqade-partial.json"
"""Present in a temporary folder from its creation until it is complete."""


class OutputRefused(ValueError):
    """An output path a command will not write; the message is one line: why, and what to do."""


def _umask() -> int:
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
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual file mode
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
        if pid == os.getpid() or _alive(pid, entry.stat(follow_symlinks=False).st_mtime):
            continue  # ours now (another thread) or a running process's
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def write_text(path: Path, text: str) -> None:
    """Write UTF-8 text atomically (``\\n`` line endings on every platform)."""
    write_bytes(path, text.encode("utf-8"))


# --- output folders -----------------------------------------------------------------------------

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
    data = _read_json(folder / MARKER)
    if data is None or data.get("kind") != kind or not isinstance(data.get("files"), list):
        return None
    return {MARKER, *(str(f) for f in data["files"])}


def _read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in the marker at ``path``; ``None`` for anything else, a FIFO or
    device never opened (reading one would block, or never end)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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


def _file_above(path: Path) -> Path | None:
    """The nearest existing path above ``path`` when it is not a folder (``a.json/new``)."""
    for folder in path.parents:
        if folder.exists():
            return None if folder.is_dir() else folder
    return None


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
    blocker = _file_above(target)
    if blocker is not None:
        raise OutputRefused(
            f"{where}: {blocker} is a file, not a folder; choose a path in a folder"
        )
    guarded = _guarded_above(real)
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
    data = _read_json(folder / MARKER) or {}
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
    data = _read_json(folder / PARTIAL)
    return data if data is not None and data.get("kind") == output.kind else None


def _alive(pid: object, since: float) -> bool:
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
        if info is not None and not _alive(info.get("pid"), (p / PARTIAL).stat().st_mtime):
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
        made = _make_parents(target)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as exc:
        _remove_empty(made)
        raise OutputRefused(
            f"{output.option} {target}: cannot write in {target.parent} "
            f"({exc.strerror or exc}); choose a folder you can write to"
        ) from None
    try:
        os.chmod(tmp, 0o777 & ~_umask())
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
        _remove_empty(made)
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


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove ``folders`` (made by :func:`_make_parents`, outermost first) while empty."""
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            folder.rmdir()


# --- what no command writes into ----------------------------------------------------------------

BUILD_MANIFEST = "release.json"
"""The file that makes a folder a build."""
RAW_MARKS = ("questions", "answers")
"""Tables that make a folder a raw release (in any of the table formats below): ``questions``
alone, ``answers`` together with another raw table (:data:`RAW_COMPANIONS`). A lone
``answers.csv`` is how people name a model's answers (a submission), not a raw release."""
RAW_COMPANIONS = ("questions", "ratings", "difficulty", "judgments")
RAW_FORMATS = (".csv", ".jsonl", ".parquet")


def _has_table(folder: Path, name: str) -> bool:
    return any((folder / f"{name}{ext}").is_file() for ext in RAW_FORMATS)


def guarded(folder: Path) -> str | None:
    """``"a MedQADE build"`` or ``"a raw release"`` when ``folder`` is one, else ``None``."""
    if (folder / BUILD_MANIFEST).is_file():
        return "a MedQADE build"
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


def _guarded_above(path: Path) -> tuple[Path, str] | None:
    """The nearest folder above ``path`` that is a build or a raw release, with its kind."""
    for folder in path.parents:
        what = guarded(folder)
        if what is not None:
            return folder, what
    return None


# --- output files -------------------------------------------------------------------------------

Owned = Callable[[Path], bool]
"""Given an existing file, whether it is this command's own earlier output."""


@dataclass(frozen=True)
class FileOutput:
    """One file a command writes, and what it may replace.

    ``kind`` names the file in messages (``"ratings table"``); ``option`` the command-line
    option that named it; ``inputs`` the paths the command reads (files or folders), each with
    a description; ``table`` the raw table an importer writes (``"ratings"``): the only file it
    may write into a raw release, as ``TABLE.csv``; ``owned`` recognises the command's own
    earlier output, which may be replaced; ``change`` says the user asked to change an existing
    file (``--append`` / ``--replace``); ``fix`` is what to do when the file exists otherwise.
    """

    kind: str
    option: str = "--out"
    inputs: tuple[tuple[Path, str], ...] = ()
    table: str | None = None
    owned: Owned | None = None
    change: bool = False
    fix: str = "choose a new file name or move the file away"


def check_file(target: Path, output: FileOutput) -> Path:
    """Return the absolute ``target`` if ``output`` may be written there, else raise.

    Raises :class:`OutputRefused` (one line: the user's path, why, and what to do) for a link,
    a folder, an input of the command or a file inside one, a file inside a build or a raw
    release (except the importer's own table ``TABLE.csv`` directly in a raw release), and an
    existing file that is neither the command's own earlier output nor one the user asked to
    change.
    """
    where = f"{output.option} {target}"
    target = Path(os.path.abspath(target))
    if target.is_symlink():
        raise OutputRefused(f"{where} is a symbolic link; name the file itself or a new path")
    special = special_file(target)
    if special is not None:
        raise OutputRefused(
            f"{where} is {special}, not a regular file; a command writes only regular files "
            f"(it never writes into a pipe, socket or device): choose a regular file path"
        )
    if target.exists() and not target.is_file():
        raise OutputRefused(f"{where} is a folder, not a file; name a file, e.g. {where}/out")
    blocker = _file_above(target)
    if blocker is not None:
        raise OutputRefused(
            f"{where}: {blocker} is a file, not a folder; choose a path in a folder"
        )
    real = target.parent.resolve() / target.name
    for path, description in output.inputs:
        src = Path(os.path.abspath(path)).resolve()
        if real == src:
            what = f"is {description}"
        elif src in real.parents:
            what = f"lies inside {description}"
        else:
            continue
        raise OutputRefused(
            f"{where} {what}; a command never writes over or into what it reads: "
            "choose another path"
        )
    for folder in real.parents:
        kind = guarded(folder)
        if kind is None:
            continue
        own_table = f"{output.table}.csv"
        if kind == "a raw release" and folder == real.parent and real.name == own_table:
            continue
        fix = (
            f"it may only import into {folder / own_table}, or choose a path outside it"
            if kind == "a raw release" and output.table
            else "choose a path outside it"
        )
        raise OutputRefused(f"{where} lies inside {kind} ({folder}); {fix}")
    ours = output.owned is not None and output.owned(target)
    if target.exists() and not output.change and not ours:
        what = (
            "holds rows this import did not make"
            if output.table
            else f"was not written by medqade as a {output.kind} (or was changed since)"
        )
        raise OutputRefused(f"{where} exists and {what}; {output.fix}")
    return target


def first_json_line_has(path: Path, keys: Sequence[str]) -> bool:
    """Whether the first line of ``path`` is a JSON object with every key in ``keys`` (how a
    command recognises its own earlier JSON-lines output)."""
    try:
        with Path(path).open("rb") as fh:
            data = json.loads(fh.readline(1 << 20))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and all(k in data for k in keys)


def sidecar(path: Path) -> Path:
    """The marker ``.NAME.medqade.json`` beside ``path`` that vouches for a file a command
    wrote (:func:`sidecar_planned`, :func:`owned_by_sidecar`)."""
    path = Path(path)
    return path.with_name(f".{path.name}.medqade.json")


def _sidecar_data(path: Path) -> dict[str, Any] | None:
    data = _read_json(sidecar(path))
    return data if data is not None and data.get("written_by") == "medqade" else None


def owned_by_sidecar(path: Path, kind: str) -> bool:
    """Whether ``path`` is, unchanged, a file a command wrote as ``kind``: its sidecar marker
    names ``kind``, the file's name and the sha256 of its current bytes (a file that merely
    looks like the command's output, or one edited since, is not)."""
    data = _sidecar_data(path)
    if data is None or data.get("kind") != kind or data.get("file") != Path(path).name:
        return False
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return False
    return data.get("sha256") == digest


def sidecar_settings(path: Path, kind: str) -> dict[str, Any] | None:
    """The ``settings`` kept in the marker of ``path``, an unchanged ``kind`` output
    (:func:`owned_by_sidecar`); ``None`` for any other file or a marker without them."""
    if not owned_by_sidecar(path, kind):
        return None
    settings = (_sidecar_data(path) or {}).get("settings")
    return settings if isinstance(settings, dict) else None


def check_sidecar(path: Path, kind: str, option: str = "--out") -> Path:
    """Refuse (:class:`OutputRefused`) a sidecar of ``path`` that is a link, a folder or a file
    that is not a marker of ``kind``; return the sidecar's path."""
    marker = sidecar(path)
    data = _sidecar_data(path)
    output = FileOutput(
        kind=f"{kind} marker",
        option=option,
        owned=lambda _: (
            data is not None and (data.get("kind"), data.get("file")) == (kind, Path(path).name)
        ),
        fix="it marks another file; move it away or choose another name",
    )
    return check_file(marker, output)


def check_sidecar_file(
    path: Path, kind: str, inputs: Sequence[tuple[Path, str]] = (), option: str = "--out"
) -> Path:
    """The output policy for a file recognised by its sidecar marker: ``path`` may be new or
    an unchanged earlier ``kind`` output (:func:`owned_by_sidecar`), never an input, a link, a
    build or a raw release (:func:`check_file`), and its marker must be ours
    (:func:`check_sidecar`). Returns the absolute ``path``; raises :class:`OutputRefused`."""
    output = FileOutput(
        kind=kind,
        option=option,
        inputs=tuple(inputs),
        owned=lambda p: owned_by_sidecar(p, kind),
    )
    target = check_file(path, output)
    check_sidecar(path, kind, option)
    return target


def sidecar_planned(
    path: Path,
    kind: str,
    data: bytes,
    option: str = "--out",
    settings: Mapping[str, Any] | None = None,
) -> list[Planned]:
    """``path`` with ``data`` and its sidecar marker, to write together (:func:`write_files`);
    ``settings`` (JSON values) are kept in the marker for the command's next run
    (:func:`sidecar_settings`)."""
    path = Path(path)
    marker: dict[str, Any] = {
        "written_by": "medqade",
        "kind": kind,
        "file": path.name,
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    if settings is not None:
        marker["settings"] = dict(settings)
    text = json.dumps(marker, indent=2) + "\n"
    return [Planned(path, data, option), Planned(sidecar(path), text.encode("utf-8"), option)]


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
                made += _make_parents(path)
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
        _remove_empty(made)
        raise
    finally:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def _make_parents(path: Path) -> list[Path]:
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
