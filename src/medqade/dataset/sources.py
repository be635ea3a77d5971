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
from types import EllipsisType

from medqade import __version__
from medqade.dataset.build import RELEASE_JSON
from medqade.dataset.holdout import HoldOut
from medqade.dataset.release import HUB_ID, Release, load_hub_release, load_release
from medqade.files.guards import PRIVATE_MANIFEST

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


DEFAULT_HOLD_OUT: HoldOut | None = HoldOut(1140)
"""The hold-out of the embedded default: 1,140 of its 3,800 items (30%, 59 of the 200 core
questions), seed 0. The default is a demonstration, so it holds out enough for the leaderboard's
contamination check to catch a 5% copy of the published core consensus in about 70% of
hold-outs and a 10% copy in 99% (``bench/contamination.py``; a 10% hold-out catches a 5% copy in
23%), while 70% of the labels stay public for research. Commands given no ``--data`` open it
with its private part (:func:`open_release`): every statistic uses all items, as on a build
without a hold-out (docs/holdout.md)."""


def default_targets(hold_out: HoldOut | None = None) -> tuple[Path, Path | None]:
    """Where the default build (and, with ``hold_out``, its private part) is cached."""
    from medqade.synthetic import fingerprint

    key = f"seed{SYNTHETIC_SEED}-v{__version__}-{fingerprint()[:12]}"
    if hold_out is None:
        return cache_dir() / f"synthetic-{key}", None
    name = f"synthetic-{key}-holdout{hold_out.items}-seed{hold_out.seed}"
    return cache_dir() / name, cache_dir() / f"{name}-private"


def default_build(
    progress: Callable[[str], None] | None = None,
    hold_out: HoldOut | EllipsisType | None = ...,
) -> Path:
    """The embedded default: the synthetic release, built once into the cache and reused.
    ``progress`` is told each step of a first build (synthesizing, building, ready). With
    ``hold_out`` (by default :data:`DEFAULT_HOLD_OUT`; ``None``: every label public) the build
    withholds those items' labels; its private part lies beside it (:func:`default_targets`)."""
    from medqade.dataset.build import build
    from medqade.synthetic import fingerprint, synthesize

    if hold_out is ...:
        hold_out = DEFAULT_HOLD_OUT
    target, private = default_targets(hold_out)
    if is_build(target) and (private is None or is_private(private)):
        return target
    say = progress or (lambda _: None)
    started = time.perf_counter()
    raw = cache_dir() / f"synthetic-raw-seed{SYNTHETIC_SEED}-v{__version__}-{fingerprint()[:12]}"
    if not is_raw(raw):
        say(f"[1/2] synthesizing the synthetic release (seed {SYNTHETIC_SEED}) into {raw}")
        synthesize(raw, seed=SYNTHETIC_SEED)
    held = "" if hold_out is None else f", {hold_out.items} items' labels held out"
    say(f"[2/2] building it into {target}{held} (first run only; 10-20 s on 2 cores)")
    if hold_out is None:
        build(raw, target)
    else:
        build(raw, target, hold_out=hold_out, private_out=private)
    say(f"synthetic release ready in {time.perf_counter() - started:.0f} s: {target}")
    return target


def is_private(folder: Path) -> bool:
    return (folder / PRIVATE_MANIFEST).is_file()


DATA_HELP = "build folder, raw release folder or Hub repo id (default: the synthetic release)"


PRIVATE_HELP = (
    "the private part of a build with held-out labels (the folder `medqade build --private-out` "
    "wrote): with it every statistic uses all items and each judge record gets the "
    "contamination check; without it a build with a hold-out is scored on its public items"
)


def add_private_argument(p: argparse.ArgumentParser) -> None:
    """``--private-labels PRIVATE``: the private part :func:`open_release` loads with ``--data``."""
    p.add_argument(
        "--private-labels", type=Path, default=None, metavar="PRIVATE", help=PRIVATE_HELP
    )


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


def open_release(data: str | Path | None = None, private: str | Path | None = None) -> Release:
    """The release named by ``--data``: a Hub repo id through :func:`load_hub_release`,
    anything else through ``load_release(resolve_data(data))``; with ``private`` (a folder
    ``medqade build --private-out`` wrote) its held-out labels restored
    (:meth:`Release.with_private`, which refuses a private part of another build). The
    embedded default (no ``data``) is opened with its own private part when it holds items
    out (:data:`DEFAULT_HOLD_OUT`): its labels are ours, and what the public sees of it is
    :attr:`Release.published`. The one helper through which the commands and the Space open a
    release."""
    if data is not None and HUB_ID.match(str(data)) and not Path(data).exists():
        release = load_hub_release(str(data))
    else:
        release = load_release(resolve_data(data))
    if (private is None or str(private) == "") and (data is None or str(data) == ""):
        private = default_targets(DEFAULT_HOLD_OUT)[1]  # the default's own, built beside it
    if private is None or str(private) == "":
        return release
    return with_private_labels(release, private)


def with_private_labels(release: Release, private: str | Path) -> Release:
    """``release`` (a public build with held-out rows) with the labels of its private part
    ``private`` (a folder) restored; what :func:`open_release` does after loading, for a caller
    that keeps the public release too (the Space shows it and scores on the restored one)."""
    folder = Path(private)
    if not folder.is_dir():
        raise FileNotFoundError(f"--private-labels {private}: no such folder")
    if not release.held_out.any():
        raise ValueError(f"--private-labels {private}: the release holds no labels out")
    return release.with_private(folder)


def withheld_note(release: Release) -> str | None:
    """One line saying that a build with a hold-out was opened without its private part, so
    statistics use the public items only (``None`` when nothing is withheld)."""
    if not release.withholds:
        return None
    held, total = int(release.unlabelled.sum()), release.n_items
    return (
        f"note: {held} of {total} items hold their labels out and no --private-labels was "
        f"given: scored against the labels of the {total - held} public items only, without the "
        "contamination check"
    )
