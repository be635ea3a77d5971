"""Output files: where a command may write one file (:func:`check_file`, :class:`FileOutput`),
and the sidecar marker that vouches for a file a command wrote.

- a target is written only where it is new, or holds the command's own earlier output (a
  marker vouches for it, :attr:`FileOutput.owned`: a folder's manifest, or the sidecar
  ``.NAME.medqade.json`` with the file's sha256, :func:`owned_by_sidecar`), or the
  user asked to change it (``--append`` / ``--replace`` of the importers); never a link, a
  folder, an input of the command, a file inside a build (a folder with ``release.json``) or a
  raw release (a folder with a ``questions`` table, or an ``answers`` table beside another raw
  table: :func:`~medqade.files.guards.guarded`), except the one raw table an
  importer imports into (:attr:`FileOutput.table`);
- the files themselves are written all together or not at all by
  :func:`medqade.files.atomic.write_files` (:func:`sidecar_planned` plans a file with its
  marker);
- errors are one line naming the user's path and what to do."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medqade.files.atomic import OutputRefused, Planned, read_json_object
from medqade.files.guards import file_above, guarded, special_file

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
    blocker = file_above(target)
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
    data = read_json_object(sidecar(path))
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
