"""The results folder's layout and the files in it, apart from the records: the folder's
names (``records/``, ``uploads/``, ``reference/``, ``verifications/``), where it is by default,
the folders it may never be, the rate limit's type, an upload's stored suffix and hash, and
reading a stored upload back only as a plain file inside ``uploads/``
(:func:`read_stored_upload`). The records themselves are kept by
:class:`medqade.scoring.policy.store.ResultsStore`.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from medqade.files import guards

RECORDS: Final = "records"
UPLOADS: Final = "uploads"
SAFE_ID: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
UPLOAD_SUFFIXES: Final = (".csv", ".jsonl", ".json", ".parquet", ".tsv", ".eval")
REFERENCE: Final = "reference"
VERIFICATIONS: Final = "verifications"
"""Where ``medqade verify`` keeps its results and logs (:mod:`~.verification`)."""
ENV_RESULTS_DIR: Final = "MEDQADE_RESULTS_DIR"
MIRROR_PATTERNS: Final = (
    f"{RECORDS}/*.json",
    f"{UPLOADS}/*",
    f"{REFERENCE}/*.json",
    f"{VERIFICATIONS}/*",
)
MIRROR_IGNORE: Final = ("**/.*", ".*")
UPLOAD_NAME: Final = re.compile(r"^[0-9a-f]{16,128}\.(csv|jsonl|json|parquet|tsv|eval|bin)$")


def on_space(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs inside a Hugging Face Space (``SPACE_ID`` is set there)."""
    return bool((os.environ if env is None else env).get("SPACE_ID"))


def default_results_dir(env: Mapping[str, str] | None = None) -> Path:
    """``./results`` in a Space; locally ``results`` under the MedQADE user cache folder
    (``MEDQADE_RESULTS_DIR`` overrides both): the folder the Space writes and the CLI reads."""
    env = os.environ if env is None else env
    if env.get(ENV_RESULTS_DIR):
        return Path(env[ENV_RESULTS_DIR])
    if on_space(env):
        return Path("results")
    from medqade.dataset.sources import cache_dir

    return cache_dir() / "results"


def check_results_folder(folder: Path, who: str) -> None:
    """Raise ``ValueError`` when ``folder`` is or lies inside a build or a raw release (also
    through a link): ``who`` (the Space, ``medqade score``) never stores submissions there."""
    inside = guards.guarded_within(Path(os.path.abspath(folder)))
    if inside is not None:
        raise ValueError(
            f"the results folder {folder} is or lies inside {inside[1]} ({inside[0]}); {who} "
            "never stores submissions there: choose another --results"
        )


class SubmissionRefused(Exception):
    """A submission breaks a rule of the store (duplicate, rate limit); the message says which."""


@dataclass(frozen=True)
class RateLimit:
    """At most ``count`` submissions per account in ``window_s`` seconds; 0 switches it off."""

    count: int
    window_s: float

    @classmethod
    def per_days(cls, count: int, days: float) -> RateLimit:
        return cls(count, days * 86_400.0)


def upload_sha256(data: bytes) -> str:
    """The hash of a stored upload's bytes the record keeps (``space.upload_sha256``)."""
    return hashlib.sha256(data).hexdigest()


def upload_suffix(filename: str) -> str:
    """The stored suffix for an upload: its own when it is a known table format, else ``.bin``."""
    suffix = Path(filename).suffix.casefold()
    return suffix if suffix in UPLOAD_SUFFIXES else ".bin"


def outside(root: Path, folder: Path) -> bool:
    """Whether ``folder`` (``records/`` or ``uploads/`` of the results folder ``root``) is a
    link, or lies elsewhere than directly inside ``root`` once links are resolved."""
    if folder.is_symlink():
        return True
    if not folder.exists():
        return False
    return folder.resolve() != root.resolve() / folder.name


def read_stored_upload(root: Path, name: str, max_bytes: int) -> bytes:
    """The bytes of the stored upload ``name`` of the results folder ``root``, read as a plain
    file inside ``uploads/``: never through a link, never more than ``max_bytes``. Raise
    ``ValueError`` saying why (one line naming ``uploads/<name>`` and what to do)."""
    uploads = root / UPLOADS
    shown = f"{UPLOADS}/{name}"
    if not UPLOAD_NAME.match(name):
        raise ValueError(
            f"{shown}: not the name of a stored upload (<hash>.<suffix>); score the "
            "original file again"
        )
    if outside(root, uploads):
        raise ValueError(
            f"{shown}: the folder {UPLOADS}/ is a link or lies outside the results folder; "
            "a stored upload is read only inside it: replace the link with the folder"
        )
    try:
        fd = os.open(uploads / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ValueError(
            f"{shown}: the stored upload is missing; score the original file again"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError(
                f"{shown}: the stored upload is a link, not a file the store wrote; it is "
                "never followed: remove the link and score the original file"
            ) from None
        raise ValueError(
            f"{shown}: the stored upload cannot be read ({exc.strerror or type(exc).__name__});"
            " check that this user may read it"
        ) from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(
                f"{shown}: the stored upload is not a plain file; remove it and score the "
                "original file again"
            )
        data = fh.read(max_bytes + 1) if st.st_size <= max_bytes else b""
        if st.st_size > max_bytes or len(data) > max_bytes:
            raise ValueError(
                f"{shown}: the stored upload has more than {max_bytes:,} bytes, the limit of "
                "an upload; it was not stored like this: score the original file"
            )
        return data


__all__ = [
    "ENV_RESULTS_DIR",
    "MIRROR_IGNORE",
    "MIRROR_PATTERNS",
    "RECORDS",
    "REFERENCE",
    "SAFE_ID",
    "UPLOADS",
    "UPLOAD_NAME",
    "UPLOAD_SUFFIXES",
    "VERIFICATIONS",
    "RateLimit",
    "SubmissionRefused",
    "check_results_folder",
    "default_results_dir",
    "on_space",
    "outside",
    "read_stored_upload",
    "upload_sha256",
    "upload_suffix",
]
