"""The Space's settings: one frozen dataclass, filled from flags or the environment."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from medqade.measures import BOOTSTRAP_SEED, DEFAULT_MARGIN, check_margin
from medqade.scoring.policy import check_results_folder, default_results_dir, on_space

ENV_DATASET: Final = "MEDQADE_DATASET"
ENV_PRIVATE_LABELS: Final = "MEDQADE_PRIVATE_LABELS"
ENV_RESULTS_REPO: Final = "MEDQADE_RESULTS_REPO"
ENV_RATE_LIMIT: Final = "MEDQADE_RATE_LIMIT"
ENV_RATE_WINDOW_DAYS: Final = "MEDQADE_RATE_WINDOW_DAYS"
ENV_MAX_UPLOAD_MB: Final = "MEDQADE_MAX_UPLOAD_MB"
ENV_REQUIRE_LOGIN: Final = "MEDQADE_REQUIRE_LOGIN"
ENV_RESAMPLES: Final = "MEDQADE_RESAMPLES"
ENV_ACCOUNT_KEY: Final = "MEDQADE_ACCOUNT_KEY"
ENV_ACCOUNT_KEY_FILE: Final = "MEDQADE_ACCOUNT_KEY_FILE"
ENV_SUBMIT_CONCURRENCY: Final = "MEDQADE_SUBMIT_CONCURRENCY"

DEFAULT_RATE_LIMIT: Final = 5
DEFAULT_RATE_WINDOW_DAYS: Final = 7.0
DEFAULT_MAX_UPLOAD_MB: Final = 20.0
MIN_ACCOUNT_KEY_CHARS: Final = 16
DEFAULT_CACHE_HOURS: Final = 24.0
DEFAULT_SUBMIT_CONCURRENCY: Final = 2
"""Submissions scored at once; the others wait in Gradio's queue. Each may take up to the
per-submission memory budget of docs/space.md, so this times that budget plus the Space's
own memory must stay under the machine's (2 x 512 MB + 1.1 GB on a 16 GB CPU Space)."""
REPO_ID: Final = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")


@dataclass(frozen=True)
class SpaceConfig:
    """Everything :func:`medqade.app.serve` needs; :meth:`from_env` reads the Space variables.

    ``rate_limit`` submissions per account per ``rate_window_days`` (0 switches the limit off);
    ``require_login`` makes the Submit tab ask for a Hugging Face login (on by default in a
    Space, off locally, where submissions count against the account ``local``).
    ``login_button`` (default: ``require_login``) shows ``gr.LoginButton``; outside a Space
    Gradio mocks that login with the machine's Hugging Face token (needs ``gradio[oauth]``).

    ``account_key`` (the Space secret ``MEDQADE_ACCOUNT_KEY``) keys the HMAC that stores an
    account as ``space.account``; without it a random key is generated once into
    ``account_key_file`` (default: :attr:`key_file`, beside the results folder, never in it, so
    the Hub mirror never uploads it). ``cache_hours``: Gradio deletes its temporary files
    (uploads and downloads) older than this, checking every hour. ``space_id`` (``SPACE_ID``,
    set by the Hub in a Space) names this Space in the ``.eval_results`` files it offers.
    ``submit_concurrency`` (``MEDQADE_SUBMIT_CONCURRENCY``) is how many submissions are scored
    at once, the ``/submit`` event's concurrency limit; each may take up to the per-submission
    memory budget of docs/space.md.
    """

    data: str | None = None
    private_labels: str | None = None
    """The private part of a build with held-out labels (``MEDQADE_PRIVATE_LABELS``; a folder or
    a private Hub dataset repo): the Space scores with it and shows none of its labels
    (:mod:`medqade.app.held_out`)."""
    results_dir: Path = field(default_factory=default_results_dir)
    results_repo: str | None = None
    host: str | None = None
    port: int | None = None
    rate_limit: int = DEFAULT_RATE_LIMIT
    rate_window_days: float = DEFAULT_RATE_WINDOW_DAYS
    max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB
    max_rows: int = 100_000
    require_login: bool = False
    login_button: bool | None = None
    resamples: int = 1000
    seed: int = BOOTSTRAP_SEED
    margin: float = DEFAULT_MARGIN
    sync_every_minutes: float = 5.0
    account_key: str | None = field(default=None, repr=False)
    account_key_file: Path | None = None
    cache_hours: float = DEFAULT_CACHE_HOURS
    space_id: str | None = None
    submit_concurrency: int = DEFAULT_SUBMIT_CONCURRENCY

    def __post_init__(self) -> None:
        if self.rate_limit < 0:
            raise ValueError(f"--rate-limit must be 0 (off) or more, got {self.rate_limit}")
        if self.rate_window_days <= 0:
            raise ValueError(f"--rate-window-days must be positive, got {self.rate_window_days}")
        if self.max_upload_mb <= 0:
            raise ValueError(f"--max-upload-mb must be positive, got {self.max_upload_mb}")
        if self.max_rows < 1:
            raise ValueError(f"--max-rows must be at least 1, got {self.max_rows}")
        check_margin(self.margin)
        if self.resamples < 1:
            raise ValueError(f"--resamples must be at least 1, got {self.resamples}")
        if self.account_key is not None and len(self.account_key) < MIN_ACCOUNT_KEY_CHARS:
            raise ValueError(
                f"{ENV_ACCOUNT_KEY} must have at least {MIN_ACCOUNT_KEY_CHARS} characters; use a "
                "random value, e.g. the output of: python -c "
                '"import secrets; print(secrets.token_hex(32))"'
            )
        results = Path(os.path.abspath(self.results_dir))
        check_results_folder(self.results_dir, "the Space")
        key_file = Path(os.path.abspath(self.key_file))
        if key_file == results or results in key_file.parents:
            raise ValueError(
                f"the account key file must lie outside the results folder (which is mirrored "
                f"to the Hub), got {self.key_file}; choose another {ENV_ACCOUNT_KEY_FILE}"
            )
        if self.submit_concurrency < 1:
            raise ValueError(
                f"{ENV_SUBMIT_CONCURRENCY} must be at least 1 (submissions scored at once), "
                f"got {self.submit_concurrency}"
            )
        if self.cache_hours <= 0:
            raise ValueError(f"cache_hours must be positive, got {self.cache_hours}")
        if self.results_repo is not None and not REPO_ID.match(self.results_repo):
            raise ValueError(
                f"results repo {self.results_repo!r}: expected ORG/NAME, e.g. medqade/results"
            )

    @property
    def hub_dataset(self) -> str | None:
        """The Hub dataset repo the Space shows (``data`` when it is ``ORG/NAME`` and no local
        path), which ``.eval_results`` entries name; ``None`` for a local release."""
        data = self.data
        if data and REPO_ID.match(data) and not Path(data).exists():
            return data
        return None

    @property
    def show_login(self) -> bool:
        return self.require_login if self.login_button is None else self.login_button

    @property
    def key_file(self) -> Path:
        """Where a generated account key is kept: ``account_key_file``, else
        ``.<results folder name>.account-key`` beside the results folder."""
        if self.account_key_file is not None:
            return Path(self.account_key_file)
        results = Path(os.path.abspath(self.results_dir))
        return results.parent / f".{results.name}.account-key"

    @property
    def delete_cache(self) -> tuple[int, int]:
        """``gr.Blocks(delete_cache=...)``: check every hour (or sooner), delete older files."""
        age = max(1, round(self.cache_hours * 3600))
        return min(3600, age), age

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> SpaceConfig:
        """Settings from ``MEDQADE_*`` variables; keyword arguments win over the environment."""
        env = os.environ if env is None else env

        def number(name: str, kind: type[int] | type[float], default: float) -> Any:
            raw = env.get(name, "").strip()
            if not raw:
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ValueError(f"environment variable {name}={raw!r} is not a number") from None

        login_raw = env.get(ENV_REQUIRE_LOGIN, "").strip().casefold()
        require_login = on_space(env) if not login_raw else login_raw in {"1", "true", "yes"}
        base = cls(
            data=env.get(ENV_DATASET) or None,
            private_labels=env.get(ENV_PRIVATE_LABELS) or None,
            results_dir=default_results_dir(env),
            results_repo=env.get(ENV_RESULTS_REPO) or None,
            rate_limit=number(ENV_RATE_LIMIT, int, DEFAULT_RATE_LIMIT),
            rate_window_days=number(ENV_RATE_WINDOW_DAYS, float, DEFAULT_RATE_WINDOW_DAYS),
            max_upload_mb=number(ENV_MAX_UPLOAD_MB, float, DEFAULT_MAX_UPLOAD_MB),
            require_login=require_login,
            resamples=number(ENV_RESAMPLES, int, 1000),
            submit_concurrency=number(ENV_SUBMIT_CONCURRENCY, int, DEFAULT_SUBMIT_CONCURRENCY),
            account_key=env.get(ENV_ACCOUNT_KEY) or None,
            space_id=env.get("SPACE_ID") or None,
            account_key_file=Path(key_file)
            if (key_file := env.get(ENV_ACCOUNT_KEY_FILE))
            else None,
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(base, **given)
