"""Upload a build folder to a Hugging Face dataset repository, as one commit.

:func:`publish` creates the dataset repo if needed (``create_repo(..., exist_ok=True)``), adds
every file of the folder in a single ``create_commit`` and optionally tags that commit. The
folder must be a ``medqade build`` output (``README.md``, ``release.json``, ``data/``) and may
hold no Python file: the dataset is data only, never a loading script. The private part of a build
with held-out labels (a folder with ``medqade-private.json``) is refused, alone or inside the
folder: its labels never go to the public repo. :func:`plan` lists the
files (path, size, sha256) without touching the network; ``medqade publish --dry-run`` prints it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from huggingface_hub import CommitOperationAdd, HfApi

from medqade.dataset.meta import RELEASE_JSON, ReleaseMeta
from medqade.files.guards import PRIVATE_MANIFEST

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")
REQUIRED_FILES = ("README.md", RELEASE_JSON)
FORBIDDEN_SUFFIXES = (".py",)


class HubApi(Protocol):
    """The three ``huggingface_hub.HfApi`` methods :func:`publish` calls (tests pass a fake)."""

    def create_repo(
        self,
        repo_id: str,
        *,
        private: bool | None = None,
        repo_type: str | None = None,
        exist_ok: bool = False,
    ) -> Any: ...

    def create_commit(
        self,
        repo_id: str,
        operations: Iterable[CommitOperationAdd],
        *,
        commit_message: str,
        repo_type: str | None = None,
    ) -> Any: ...

    def create_tag(
        self,
        repo_id: str,
        *,
        tag: str,
        revision: str | None = None,
        repo_type: str | None = None,
    ) -> Any: ...


@dataclass(frozen=True)
class FileEntry:
    """One file to upload: its path in the repo (POSIX), size in bytes and SHA-256."""

    path: str
    size: int
    sha256: str

    @classmethod
    def of(cls, path: str, data: bytes) -> FileEntry:
        """The entry for ``data`` uploaded as ``path``."""
        return cls(path, len(data), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class PublishResult:
    """What was uploaded: the repo, the commit and the tag (if any)."""

    repo_id: str
    files: tuple[FileEntry, ...]
    commit_url: str | None
    commit_oid: str | None
    tag: str | None


def check_repo_id(repo_id: str) -> str:
    """Return ``repo_id`` if it has the Hub's ``ORG/NAME`` form, else raise ``ValueError``."""
    if not REPO_ID.match(repo_id):
        raise ValueError(f"--repo-id {repo_id!r}: expected ORG/NAME, e.g. medqade/medqade")
    return repo_id


def plan(folder: Path) -> list[FileEntry]:
    """Every file under ``folder`` in upload order (sorted paths); refuses non-build folders.

    Raises ``ValueError`` when ``folder`` is not a build folder, when it holds a Python file,
    or when it holds a symbolic link (the upload must be exactly the files on disk).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder; pass the folder `medqade build` wrote")
    private = sorted(p.relative_to(folder).as_posix() for p in folder.rglob(PRIVATE_MANIFEST))
    if private:
        raise ValueError(
            f"{folder} is or holds the private part of a build with held-out labels "
            f"({', '.join(private)}); it is never published to the public dataset repo: "
            "publish the public build (--out) and keep the private part local or in a private "
            "repo (docs/holdout.md)"
        )
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise ValueError(
            f"{folder} is not a MedQADE build folder (missing {', '.join(missing)}); "
            "run `medqade build --raw RAW --out OUT` and publish OUT"
        )
    paths = sorted(p for p in folder.rglob("*") if not p.is_dir())
    rel = [p.relative_to(folder).as_posix() for p in paths]
    code = [r for r in rel if r.lower().endswith(FORBIDDEN_SUFFIXES)]
    if code:
        raise ValueError(
            f"{folder} holds Python files ({', '.join(code)}); a dataset repo must carry data "
            "only (no loading script): remove them and publish again"
        )
    links = [r for p, r in zip(paths, rel, strict=True) if p.is_symlink() or not p.is_file()]
    if links:
        raise ValueError(f"{folder} holds links or special files ({', '.join(links)}); remove them")
    return [FileEntry.of(name, path.read_bytes()) for path, name in zip(paths, rel, strict=True)]


def format_plan(entries: list[FileEntry]) -> str:
    """One line per file: ``size  sha256  path``, then the total."""
    lines = [f"{e.size:>12}  {e.sha256}  {e.path}" for e in entries]
    total = sum(e.size for e in entries)
    lines.append(f"{len(entries)} files, {total} bytes")
    return "\n".join(lines)


def _commit_message(folder: Path) -> str:
    path = folder / RELEASE_JSON
    meta = ReleaseMeta.from_json(path.read_bytes(), str(path))
    tag = " (synthetic)" if meta.is_synthetic else ""
    source = (meta.source_hash or "")[:12]
    return f"MedQADE {meta.version or ''}{tag}: build of raw release {source}"


def publish(
    folder: Path,
    repo_id: str,
    *,
    private: bool = False,
    tag: str | None = None,
    token: str | None = None,
    api: HubApi | None = None,
) -> PublishResult:
    """Upload ``folder`` to the dataset repo ``repo_id`` in one commit, then tag it.

    ``api`` defaults to ``huggingface_hub.HfApi(token=token)``; tests pass a fake.
    """
    check_repo_id(repo_id)
    folder = Path(folder)
    entries = plan(folder)
    hub: HubApi = api if api is not None else HfApi(token=token)
    hub.create_repo(repo_id, repo_type="dataset", exist_ok=True, private=private)
    operations = [
        CommitOperationAdd(path_in_repo=e.path, path_or_fileobj=str(folder / e.path))
        for e in entries
    ]
    info = hub.create_commit(
        repo_id,
        operations,
        commit_message=_commit_message(folder),
        repo_type="dataset",
    )
    oid = getattr(info, "oid", None)
    if tag:
        hub.create_tag(repo_id, tag=tag, revision=oid, repo_type="dataset")
    return PublishResult(
        repo_id=repo_id,
        files=tuple(entries),
        commit_url=getattr(info, "commit_url", None),
        commit_oid=oid,
        tag=tag,
    )


__all__ = [
    "FileEntry",
    "HubApi",
    "PublishResult",
    "check_repo_id",
    "format_plan",
    "plan",
    "publish",
]
