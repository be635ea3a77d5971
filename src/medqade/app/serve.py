"""Start the Space: resolve the data, restore and mirror the results, build and launch.

On the Hub (``MEDQADE_RESULTS_REPO`` set) the results folder is first filled from that dataset
repo (``snapshot_download``), so a restarted Space loses nothing, and then mirrored back by a
``huggingface_hub.CommitScheduler`` every few minutes. The scheduler's lock is held around
every write into the folder, so a commit never sees half a submission. Tokens come from the
environment (``HF_TOKEN``, a Space secret) and are never logged or stored.

With ``private_labels`` (a build with held-out labels) the Space shows the public build and
scores on it with the held-out labels restored (:mod:`medqade.app.held_out`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from medqade.app.config import ENV_DATASET, ENV_RESULTS_REPO, REPO_ID, SpaceConfig
from medqade.dataset.sources import open_release, with_private_labels
from medqade.scoring.policy import MIRROR_IGNORE, MIRROR_PATTERNS

log = logging.getLogger(__name__)

SPACE_CONFIG = "medqade_space.json"


def pull_results(repo_id: str, folder: Path, token: str | None = None) -> Path:
    """Download the results repo into ``folder`` (an empty or new repo is fine)."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    folder.mkdir(parents=True, exist_ok=True)
    try:
        snapshot_download(
            repo_id=repo_id,
            repo_type="dataset",
            local_dir=folder,
            allow_patterns=list(MIRROR_PATTERNS),
            token=token,
        )
    except (RepositoryNotFoundError, RevisionNotFoundError):
        log.warning("results repo %s not found or empty; starting with no submissions", repo_id)
    return folder


def start_mirror(repo_id: str, folder: Path, every_minutes: float, token: str | None) -> Any:
    """A CommitScheduler that pushes ``folder`` to the dataset repo ``repo_id``."""
    from huggingface_hub import CommitScheduler

    return CommitScheduler(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=folder,
        every=every_minutes,
        allow_patterns=list(MIRROR_PATTERNS),
        ignore_patterns=list(MIRROR_IGNORE),
        private=True,
        token=token,
    )


def private_folder(private: str, token: str | None = None) -> Path:
    """The private part named by ``--private-labels`` / ``MEDQADE_PRIVATE_LABELS``: a folder
    as it is, else a private Hub dataset repo (``ORG/NAME``) downloaded with ``token`` into the
    Hugging Face cache (never into the results folder, which is mirrored)."""
    if Path(private).exists() or not REPO_ID.match(private):
        return Path(private)
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo_id=private, repo_type="dataset", token=token))


def prepare(config: SpaceConfig) -> Any:
    """Build the app for ``config`` (pulling and mirroring results when a repo is set)."""
    from medqade.app.ui import build_app

    started = time.perf_counter()
    opened = open_release(config.data)  # the embedded default comes with its private part
    release = opened.published  # shown: the public build, held-out labels withheld
    token = os.environ.get("HF_TOKEN") or None
    scored = opened
    if config.private_labels:  # scored on: the same build with the held-out labels restored
        scored = with_private_labels(release, private_folder(config.private_labels, token))
        log.info(
            "scoring with the held-out labels of %d items; the Space shows none of them",
            int(release.held_out.sum()),
        )
    write_lock = None
    if config.results_repo:
        pull_results(config.results_repo, config.results_dir, token)
        scheduler = start_mirror(
            config.results_repo, config.results_dir, config.sync_every_minutes, token
        )
        write_lock = scheduler.lock
    demo = build_app(
        release, config.results_dir, config, scoring_release=scored, write_lock=write_lock
    )
    log.info("MedQADE Space ready in %.1f s", time.perf_counter() - started)
    return demo


FIGURES_TIMEOUT_S = 900.0
"""How long the start waits for the paper's analyses and figures (then serves anyway)."""


def wait_for_figures(demo: Any, timeout: float = FIGURES_TIMEOUT_S) -> bool:
    """Wait until the paper's analyses are computed and the Analysis tab's figures drawn, so
    the first visitor of the tab never has to come back (issue 27). A restart on the same
    release reads both from the disk cache (:mod:`medqade.app.figure_cache`) instead. True
    when ready; a failed or late computation is not raised (the tab shows it)."""
    state = demo.medqade_state
    if state.report.done():
        return True
    print("* Drawing the Analysis figures (cached on disk once per release) ...", flush=True)
    started = time.perf_counter()
    try:
        state.report.result(timeout=timeout)
    except Exception as exc:  # the tab says what failed; serving goes on
        print(f"  the analyses are not available: {exc}", flush=True)
        return False
    print(f"  figures ready in {time.perf_counter() - started:.1f} s", flush=True)
    return True


def serve(config: SpaceConfig, *, block: bool = True) -> Any:
    """Build and launch the Space once the Analysis figures are drawn (see
    :func:`wait_for_figures`); returns the Blocks (``block=False`` returns once it serves)."""
    from medqade.app.ui import launch_kwargs

    demo = prepare(config)
    wait_for_figures(demo)
    demo.queue(default_concurrency_limit=4)
    # quiet: Gradio's start-up lines end with a hint to set share=True, meant for notebooks,
    # not for someone running the Space from a shell; the address is printed here instead,
    # once the server answers (a public URL, e.g. with GRADIO_SHARE, Gradio still prints)
    demo.launch(prevent_thread_lock=True, quiet=True, **launch_kwargs(config))
    print(f"* Running on local URL:  {demo.local_url}", flush=True)
    if block:
        demo.block_thread()
    return demo


def space_config(app_dir: Path, env: dict[str, str] | None = None) -> SpaceConfig:
    """Settings inside a Space: the Space variables, else ``medqade_space.json`` beside app.py."""
    env = dict(os.environ if env is None else env)
    file = app_dir / SPACE_CONFIG
    if file.is_file():
        defaults = json.loads(file.read_text(encoding="utf-8"))
        if defaults.get("dataset"):
            env.setdefault(ENV_DATASET, str(defaults["dataset"]))
        if defaults.get("results_repo"):
            env.setdefault(ENV_RESULTS_REPO, str(defaults["results_repo"]))
    return SpaceConfig.from_env(env)
