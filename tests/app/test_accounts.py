"""Tests of medqade.app.accounts: the account a submission is counted under is a keyed hash of
the user name (a generated private key, or the Space's secret), the same for racing
processes, and old unkeyed records still count for the rate limit."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from medqade.app import accounts
from medqade.app.config import ENV_ACCOUNT_KEY, SpaceConfig
from medqade.app.state import SpaceState
from medqade.dataset.release import Release
from medqade.scoring.policy.store import MIRROR_PATTERNS

from .helpers import make_state, write_variant

USER = "some-hf-user"


def test_account_is_a_keyed_hash_with_a_generated_private_key(
    sample_release: Release, tmp_path: Path
) -> None:
    results = tmp_path / "r"
    state = make_state(sample_release, results)
    outcome = state.submit(write_variant(sample_release, tmp_path / "a.csv", 0), "judge", {}, USER)
    assert outcome.ok and outcome.record is not None
    stored = outcome.record.space.account
    public = hashlib.sha256(f"medqade-space-account:{USER}".encode()).hexdigest()[:32]
    assert stored != public and stored == state.account(USER)
    assert outcome.record.space.account_scheme == "hmac-sha256"
    key_file = state.config.key_file
    assert key_file.is_file() and results not in key_file.parents
    assert not any(key_file.match(p) for p in MIRROR_PATTERNS)
    if os.name != "nt":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = bytes.fromhex(key_file.read_text(encoding="ascii").strip())
    assert stored == accounts.account_key(USER, key)
    assert make_state(sample_release, results).account(USER) == stored  # kept, not renewed
    assert make_state(sample_release, tmp_path / "other").account(USER) != stored


def test_account_key_from_the_space_secret(
    sample_release: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "a-long-space-secret-0123456789"
    monkeypatch.setenv(ENV_ACCOUNT_KEY, secret)
    config = SpaceConfig.from_env(results_dir=tmp_path / "r", rate_limit=0, resamples=10)
    assert secret not in repr(config)
    state = SpaceState(sample_release, tmp_path / "r", config, background=False, analyses=False)
    assert state.account(USER) == accounts.account_key(USER, secret.encode())
    assert not config.key_file.exists()


def test_account_key_settings_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least 16 characters"):
        SpaceConfig(results_dir=tmp_path / "r", account_key="short")
    with pytest.raises(ValueError, match="outside the results folder"):
        SpaceConfig(results_dir=tmp_path / "r", account_key_file=tmp_path / "r" / ".key")


def test_generated_key_is_the_same_for_racing_processes(tmp_path: Path) -> None:
    path = tmp_path / "k" / "account.key"
    code = (
        "import sys; from pathlib import Path; from medqade.app.accounts import "
        "read_or_create_key; print(read_or_create_key(Path(sys.argv[1])).hex())"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    keys = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert keys == {path.read_text(encoding="ascii").strip()}
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_old_unkeyed_records_still_count_for_the_rate_limit(
    sample_release: Release, tmp_path: Path
) -> None:
    results = tmp_path / "r"
    records = results / "records"
    records.mkdir(parents=True)
    now = time.time()
    old = {
        "id": "0" * 64,
        "kind": "judge",
        "meta": {"name": "old"},
        "space": {
            "account": accounts.legacy_account_key(USER),
            "submitted_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(now - 60)),
            "key": "old-key",
        },
    }
    (records / f"{old['id']}.json").write_text(json.dumps(old), encoding="utf-8")
    state = make_state(sample_release, results, rate_limit=1)
    outcome = state.submit(write_variant(sample_release, tmp_path / "a.csv", 0), "judge", {}, USER)
    assert not outcome.ok and "rate limit" in outcome.message
    assert json.loads((records / f"{old['id']}.json").read_text(encoding="utf-8")) == old
