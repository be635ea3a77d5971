"""Where a release comes from: :func:`resolve_data` turns a ``--data`` argument (nothing, a build
folder, a raw release folder or a Hub repo id) into a build folder, building a raw release into
the cache and the embedded synthetic default (:func:`default_build`) on first use;
:func:`open_release` loads it. Here, not in the loader (:mod:`medqade.dataset.release`), because it
calls the build and the simulator: the loader stays below both.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

from medqade import __version__
from medqade.dataset.build import RELEASE_JSON
from medqade.dataset.release import HUB_ID, Release, load_hub_release, load_release

SYNTHETIC_SEED = 6
"""The seed of the embedded synthetic default release."""


def cache_dir() -> Path:
    """Where built releases are cached (``MEDQADE_CACHE`` overrides the platform default)."""
    env = os.environ.get("MEDQADE_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("medqade"))


def is_build(folder: Path) -> bool:
    return (folder / RELEASE_JSON).exists() and (folder / "data").is_dir()


def is_raw(folder: Path) -> bool:
    return any((folder / f"questions{ext}").exists() for ext in (".csv", ".jsonl", ".parquet"))


def default_build(progress: Callable[[str], None] | None = None) -> Path:
    """The embedded default: the synthetic release, built once into the cache and reused.
    ``progress`` is told each step of a first build (synthesizing, building, ready)."""
    from medqade.dataset.build import build
    from medqade.synthetic import fingerprint, synthesize

    key = f"seed{SYNTHETIC_SEED}-v{__version__}-{fingerprint()[:12]}"
    target = cache_dir() / f"synthetic-{key}"
    if is_build(target):
        return target
    say = progress or (lambda _: None)
    started = time.perf_counter()
    raw = cache_dir() / f"synthetic-raw-{key}"
    if not is_raw(raw):
        say(f"[1/2] synthesizing the synthetic release (seed {SYNTHETIC_SEED}) into {raw}")
        synthesize(raw, seed=SYNTHETIC_SEED)
    say(f"[2/2] building it into {target} (first run only; 10-20 s on 2 cores)")
    build(raw, target)
    say(f"synthetic release ready in {time.perf_counter() - started:.0f} s: {target}")
    return target


DATA_HELP = "build folder, raw release folder or Hub repo id (default: the synthetic release)"


def add_data_argument(p: argparse.ArgumentParser) -> None:
    """``--data``: what :func:`resolve_data` accepts; omitted = the default release. Here, beside
    this module, so the commands and the runners share it without importing each other."""
    p.add_argument("--data", default=None, help=DATA_HELP)


def resolve_data(data: str | Path | None) -> Path:
    """Turn a ``--data`` value into a local build folder (see the module docstring)."""
    if data is None or str(data) == "":
        return default_build()
    path = Path(data)
    if path.is_dir():
        if is_build(path):
            return path
        if is_raw(path):
            from medqade.dataset.build import build
            from medqade.raw.reader import release_hash

            target = cache_dir() / f"raw-{release_hash(path)[:16]}-v{__version__}"
            if not is_build(target):
                build(path, target)
            return target
        raise FileNotFoundError(f"{path}: neither a MedQADE build folder nor a raw release")
    if HUB_ID.match(str(data)) and not path.exists():
        from huggingface_hub import snapshot_download

        local = snapshot_download(
            repo_id=str(data), repo_type="dataset", allow_patterns=["*.md", "*.json", "data/**"]
        )
        return Path(local)
    raise FileNotFoundError(f"--data {data}: no such folder, and not a Hub repo id (ORG/NAME)")


def open_release(data: str | Path | None = None) -> Release:
    """The release named by ``--data``: a Hub repo id through :func:`load_hub_release`,
    anything else through ``load_release(resolve_data(data))``."""
    if data is not None and HUB_ID.match(str(data)) and not Path(data).exists():
        return load_hub_release(str(data))
    return load_release(resolve_data(data))
