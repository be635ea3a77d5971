"""The Analysis tab's figures cached on disk, so a Space restarted on the same release serves
without computing the analyses again (issue 27).

One folder per key under ``cache_dir()/space-figures``: the report of
:func:`medqade.analyses.reproduce` (pickled) and the encoded figures (JSON). The key is
everything that changes them: the release's data hash, the medqade version, a fingerprint of
the code that computes and draws them (:func:`code_fingerprint`, with the versions of the
libraries that encode the images), the resamples and the seed. The folder's name is the
SHA-256 of the key, so no input (a Hub release's ``release.json`` included) becomes a path.
Saving an entry removes the older ones beyond the newest :data:`KEEP` (:meth:`FigureCache.prune`).

Written with :func:`medqade.files.folder_output.directory` (all files at once, only over its own
earlier output, each file's sha256 in the marker). Nothing read back is trusted: a folder
whose marker, key or hashes do not match, or that holds anything else, is ignored (the
analyses are computed and the cache written again); the report is unpickled with an
allowlist (MedQADE's result dataclasses and plain numpy arrays, nothing that runs code).

The hashes in the marker lie beside the files, so whoever can write the folder could edit a
file and its hash together. The entry is therefore also sealed (:data:`SEAL_FILE`): an
HMAC-SHA256 of the other files' contents under a key derived from the Space's secret key
(:meth:`medqade.app.accounts.AccountHasher.derive`, purpose :data:`SEAL_PURPOSE`), which is
never in the cache folder. The seal is checked against the bytes read, before anything is
parsed or unpickled (and no file over :data:`MAX_FILE_BYTES` is read); an entry sealed under
another key (or none) is ignored and recomputed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import importlib.metadata
import io
import json
import logging
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import medqade
from medqade import __version__
from medqade.files import atomic, folder_output

if TYPE_CHECKING:
    from medqade.analyses.report import Report
    from medqade.dataset.release import Release

log = logging.getLogger(__name__)

KIND: Final = "MedQADE Space figure cache"
FOLDER: Final = "space-figures"
KEY_FILE: Final = "key.json"
REPORT_FILE: Final = "report.pickle"
FIGURES_FILE: Final = "figures.json"
SEAL_FILE: Final = "seal.hmac"
SEALED: Final = (KEY_FILE, REPORT_FILE, FIGURES_FILE)
"""The files the seal covers (every file of an entry but the seal)."""
FILES: Final = (*SEALED, SEAL_FILE)
SEAL_PURPOSE: Final = "figure-cache-seal"
"""What the seal's key is derived for (a key of its own, not the account hashes')."""
SEAL_DOMAIN: Final = b"MedQADE figure cache seal v1\0"
MAX_FILE_BYTES: Final = 256 * 1024 * 1024
"""The largest file of an entry that is read at all (an entry is a few MB)."""

CODE: Final = (
    "analyses",
    "measures",
    "dataset",
    "vocab.py",
    "app/analysis.py",
    "app/figure_cache.py",
)
"""What the report and the figures are computed by (under the medqade package), hashed."""
KEEP: Final = 4
"""Entries kept (the newest, this start's included; a few MB each): every change of the code,
the version or the release makes a new one, so saving one removes those beyond this."""
LIBRARIES: Final = ("numpy", "pandas", "scipy", "matplotlib", "gradio")
"""Libraries whose versions change the numbers or the encoded images."""

SAFE_MODULES: Final = ("medqade.analyses.", "medqade.measures.", "medqade.vocab")
SAFE_NUMPY: Final = {
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy._core.numeric", "_frombuffer"),
}


def code_fingerprint() -> str:
    """SHA-256 of the analyses' and figures' source files and the libraries' versions."""
    root = Path(medqade.__file__).parent
    digest = hashlib.sha256()
    for part in CODE:
        path = root / part
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
            digest.update(file.read_bytes() + b"\0")
    for lib in LIBRARIES:
        try:
            version = importlib.metadata.version(lib)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        digest.update(f"{lib}={version}\0".encode())
    return digest.hexdigest()


class _Allowlisted(pickle.Unpickler):
    """Unpickles MedQADE's result dataclasses and numpy arrays; anything else is refused."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in SAFE_NUMPY:
            return super().find_class(module, name)
        if module.startswith(SAFE_MODULES) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and dataclasses.is_dataclass(found):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the figure cache")


@dataclass(frozen=True)
class Cached:
    """What the cache holds: the report and its encoded figures, ``(name, highlight)`` to the
    ``gr.Plot`` value as a dict."""

    report: Report
    figures: dict[tuple[str, str | None], dict[str, str]]


@dataclass(frozen=True)
class FigureCache:
    """The cache entry of one release, resamples and seed (see the module docstring), sealed
    with ``secret`` (a key kept outside the cache folder)."""

    key: dict[str, Any]
    root: Path
    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) < 16:
            raise ValueError("the figure cache needs a secret of 16 or more bytes")

    def seal(self, contents: Mapping[str, bytes]) -> str:
        """The HMAC-SHA256 (hex) of the :data:`SEALED` files' ``contents`` under ``secret``."""
        mac = hmac.new(self.secret, SEAL_DOMAIN, hashlib.sha256)
        for name in SEALED:
            digest = hashlib.sha256(contents[name]).hexdigest()
            mac.update(f"{name}\0{digest}\0".encode())
        return mac.hexdigest()

    @classmethod
    def of(
        cls,
        release: Release,
        resamples: int,
        seed: int,
        *,
        secret: bytes,
        root: Path | None = None,
    ) -> FigureCache:
        if root is None:
            from medqade.dataset.sources import cache_dir

            root = cache_dir() / FOLDER
        key = {
            "data_hash": str(release.data_hash),
            "medqade": __version__,
            "code": code_fingerprint(),
            "resamples": int(resamples),
            "seed": int(seed),
        }
        held = int(release.held_out.sum())
        if held:  # the public labels and the restored ones share the data hash
            key["held_out"] = {"items": held, "restored": bool(release.restored)}
        return cls(key, Path(root), secret)

    @property
    def folder(self) -> Path:
        name = hashlib.sha256(json.dumps(self.key, sort_keys=True).encode()).hexdigest()[:32]
        return self.root / name

    def load(self) -> Cached | None:
        """The cached report and figures, or ``None`` (missing, or not exactly what
        :meth:`save` wrote for this key: then logged and recomputed)."""
        folder = self.folder
        if not folder.is_dir():
            return None
        try:
            return self._read(folder)
        except Exception as exc:  # anything unexpected in the folder: recompute, never trust
            log.warning("figure cache %s ignored (%s); recomputing", folder.name, exc)
            return None

    def _read(self, folder: Path) -> Cached:
        if folder.is_symlink():
            raise ValueError("a link")
        present = {p.name for p in folder.iterdir()}
        if present != {folder_output.MARKER, *FILES}:
            raise ValueError("unexpected files")
        data = {}
        for name in (folder_output.MARKER, *FILES):
            path = folder / name
            if path.is_symlink() or not path.is_file():
                raise ValueError(f"{name} is not a plain file")
            if path.stat().st_size > MAX_FILE_BYTES:  # never read what no save wrote
                raise ValueError(f"{name} is larger than {MAX_FILE_BYTES:,} bytes")
            data[name] = path.read_bytes()
        seal = data[SEAL_FILE].decode("ascii", errors="replace").strip()
        if not hmac.compare_digest(seal, self.seal(data)):  # before anything is parsed
            raise ValueError("the seal does not match (edited, or sealed under another key)")
        marker = json.loads(data[folder_output.MARKER])
        hashes = marker.get("sha256") if isinstance(marker, dict) else None
        if marker.get("kind") != KIND or not isinstance(hashes, dict) or set(hashes) != set(FILES):
            raise ValueError("not a figure cache")
        for name in FILES:
            if hashlib.sha256(data[name]).hexdigest() != hashes[name]:
                raise ValueError(f"{name} changed since it was written")
        if json.loads(data[KEY_FILE]) != self.key:
            raise ValueError("another key")
        from medqade.analyses.report import Report

        report = _Allowlisted(io.BytesIO(data[REPORT_FILE])).load()
        if not isinstance(report, Report):
            raise ValueError("not a report")
        figures: dict[tuple[str, str | None], dict[str, str]] = {}
        for entry in json.loads(data[FIGURES_FILE]):
            name, highlight, value = entry["name"], entry["highlight"], entry["value"]
            ok = isinstance(name, str) and (highlight is None or isinstance(highlight, str))
            if not ok or not _plot_value(value):
                raise ValueError("a figure entry of another shape")
            figures[(name, highlight)] = {"type": value["type"], "plot": value["plot"]}
        return Cached(report, figures)

    def save(self, report: Report, figures: Mapping[tuple[str, str | None], Any]) -> bool:
        """Write the report and its encoded figures (each a ``gr.Plot`` value, or its dict)
        as one unit; a folder that cannot be written is logged, not raised."""
        entries = [
            {"name": name, "highlight": highlight, "value": _as_dict(value)}
            for (name, highlight), value in figures.items()
        ]
        contents = {
            KEY_FILE: (json.dumps(self.key, sort_keys=True) + "\n").encode(),
            REPORT_FILE: pickle.dumps(report, protocol=5),
            FIGURES_FILE: (json.dumps(entries) + "\n").encode(),
        }
        contents[SEAL_FILE] = (self.seal(contents) + "\n").encode()
        try:
            with folder_output.directory(
                self.folder, folder_output.Output(KIND, "MEDQADE_CACHE")
            ) as tmp:
                for name in FILES:
                    atomic.write_bytes(tmp / name, contents[name])
        except (OSError, atomic.OutputRefused) as exc:
            log.warning("figures not cached (%s); they are computed again next start", exc)
            return False
        try:
            self.prune()
        except OSError as exc:  # only disk space is at stake
            log.warning("older figure caches not removed (%s)", exc)
        return True

    def prune(self, keep: int = KEEP) -> list[Path]:
        """Remove the entries beyond the newest ``keep`` (by time written; this key's entry
        counts and is never removed). Only a folder that is exactly what :meth:`save` writes
        (its marker names this cache and its files, and it holds nothing else) is removed."""
        ours = {folder_output.MARKER, *FILES}
        entries = []
        for folder in self.root.iterdir():
            if folder == self.folder or folder.is_symlink() or not folder.is_dir():
                continue
            if folder_output.marker_files(folder, KIND) != ours:
                continue
            if {p.name for p in folder.iterdir()} != ours:
                continue
            entries.append((folder.stat().st_mtime, folder.name, folder))
        older = sorted(entries, reverse=True)[max(keep - 1, 0) :]
        removed = folder_output.remove_trees(folder for _, _, folder in older)
        if removed:
            log.info("removed %d older figure cache(s)", len(removed))
        return removed


def _as_dict(value: Any) -> dict[str, str]:
    out = value if isinstance(value, Mapping) else value.model_dump()
    return {"type": str(out["type"]), "plot": str(out["plot"])}


def _plot_value(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"type", "plot"}
        and value["type"] == "matplotlib"
        and isinstance(value["plot"], str)
        and value["plot"].startswith("data:image/png;base64,")
    )
