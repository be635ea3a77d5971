"""Assemble the Space folder and upload it to a Hugging Face Space in one commit.

The Space is ``space/app.py``, ``space/requirements.txt`` and ``space/README.md`` (the Space
card with its YAML header), plus a copy of the ``medqade`` package (so the Space runs exactly
this version) and ``medqade_space.json``, which names the dataset and the results repo the
app reads at start-up (the ``MEDQADE_DATASET`` / ``MEDQADE_RESULTS_REPO`` Space variables win
over it). :func:`plan` lists every file with size and SHA-256 and touches no network;
:func:`deploy` calls ``create_repo(repo_type="space", space_sdk="gradio")`` and one
``create_commit``. No Gradio import here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from huggingface_hub import CommitOperationAdd, HfApi

import medqade
from medqade.dataset.publish import FileEntry, check_repo_id

SPACE_FILES: Final = ("app.py", "requirements.txt", "README.md")
CONFIG_NAME: Final = "medqade_space.json"
PACKAGE_SUFFIXES: Final = (".py", ".md", ".jsonl", ".typed")
SDK_VERSION: Final = re.compile(r"^sdk_version:\s*[\"']?([\w.]+)[\"']?\s*$", re.MULTILINE)


class SpaceApi(Protocol):
    """The two ``huggingface_hub.HfApi`` methods :func:`deploy` calls (tests pass a fake)."""

    def create_repo(
        self,
        repo_id: str,
        *,
        private: bool | None = None,
        repo_type: str | None = None,
        exist_ok: bool = False,
        space_sdk: str | None = None,
    ) -> Any: ...

    def create_commit(
        self,
        repo_id: str,
        operations: Iterable[CommitOperationAdd],
        *,
        commit_message: str,
        repo_type: str | None = None,
    ) -> Any: ...


@dataclass(frozen=True)
class SpaceBundle:
    """The files of the Space: repo path -> content."""

    files: dict[str, bytes]

    def entries(self) -> list[FileEntry]:
        return [FileEntry.of(path, data) for path, data in sorted(self.files.items())]


@dataclass(frozen=True)
class DeployResult:
    space_id: str
    files: tuple[FileEntry, ...]
    commit_url: str | None


def default_space_dir() -> Path:
    """``space/`` of the source checkout this package was installed from (editable install)."""
    return Path(medqade.__file__).resolve().parents[2] / "space"


def sdk_version(readme: str) -> str | None:
    """The ``sdk_version`` of a Space card's YAML header."""
    match = SDK_VERSION.search(readme.split("\n---", 1)[0])
    return match.group(1) if match else None


def _package_files() -> dict[str, bytes]:
    root = Path(medqade.__file__).resolve().parent
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if (
            not path.is_file()
            or "__pycache__" in rel.parts
            or any(part.startswith(".") for part in rel.parts)
            or not path.name.endswith(PACKAGE_SUFFIXES)
        ):
            continue
        out[f"medqade/{rel.as_posix()}"] = path.read_bytes()
    return out


def assemble(
    dataset: str, results_repo: str | None = None, space_dir: Path | None = None
) -> SpaceBundle:
    """The files of the Space for ``dataset`` (a Hub dataset id), read from ``space_dir``."""
    check_repo_id(dataset)
    if results_repo is not None:
        check_repo_id(results_repo)
    folder = Path(space_dir) if space_dir is not None else default_space_dir()
    missing = [name for name in SPACE_FILES if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{folder}: missing {', '.join(missing)}; run from a MedQADE source checkout "
            "or pass --space-dir"
        )
    files = {name: (folder / name).read_bytes() for name in SPACE_FILES}
    readme = files["README.md"].decode("utf-8")
    if not readme.startswith("---\n") or sdk_version(readme) is None:
        raise ValueError(f"{folder / 'README.md'}: needs a YAML header with sdk_version")
    config = {"dataset": dataset, "results_repo": results_repo}
    files[CONFIG_NAME] = (json.dumps(config, indent=2) + "\n").encode("utf-8")
    files.update(_package_files())
    return SpaceBundle(files)


def deploy(
    bundle: SpaceBundle,
    space_id: str,
    *,
    private: bool = False,
    token: str | None = None,
    api: SpaceApi | None = None,
) -> DeployResult:
    """Create the Space (if needed) and upload ``bundle`` as one commit."""
    check_repo_id(space_id)
    hub: SpaceApi = api if api is not None else HfApi(token=token)
    hub.create_repo(space_id, repo_type="space", space_sdk="gradio", exist_ok=True, private=private)
    operations = [
        CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)
        for path, data in sorted(bundle.files.items())
    ]
    info = hub.create_commit(
        space_id,
        operations,
        commit_message=f"MedQADE Space {medqade.__version__}",
        repo_type="space",
    )
    return DeployResult(space_id, tuple(bundle.entries()), getattr(info, "commit_url", None))
