"""Space submissions and hygiene: copies of reference rows, dry runs under the rate limit,
real file names, bounded temporary files and keyed account hashes."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from medqade.app import accounts
from medqade.app.config import ENV_ACCOUNT_KEY, SpaceConfig
from medqade.app.exports import MARKER, PREFIX, Exports, sweep_stale
from medqade.app.state import SpaceState
from medqade.dataset.release import Release
from medqade.scoring.store import MIRROR_PATTERNS

from .helpers import EVALUATOR, Running, judge_frame, judge_variant, submit_args

USER = "some-hf-user"


def make_state(release: Release, results: Path, **overrides: Any) -> SpaceState:
    config = replace(SpaceConfig(results_dir=results, rate_limit=0, resamples=10), **overrides)
    return SpaceState(release, results, config, background=False, analyses=False)


def write_variant(release: Release, path: Path, k: int) -> Path:
    judge_variant(release, k).to_csv(path, index=False)
    return path


# --- copies of reference rows ----------------------------------------------------------------


def test_copy_of_a_paper_evaluator_is_refused(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    path = tmp_path / "copied.csv"
    judge_frame(sample_release).to_csv(path, index=False)
    for dry in (True, False):
        outcome = state.submit(path, "judge", {"name": "Mine"}, USER, validate_only=dry)
        assert not outcome.ok
        assert outcome.message.startswith("copied.csv: the same content as the paper evaluator")
        assert f"({EVALUATOR})" in outcome.message and "not scored again" in outcome.message
    assert state.store.records() == []


def test_copy_of_a_paper_student_is_refused(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    answers = sample_release.answers
    path = tmp_path / "answers.csv"
    answers[answers["model"] == "qwen3:4b"][["question_id", "answer"]].to_csv(path, index=False)
    outcome = state.submit(path, "answers", {"name": "Mine"}, USER)
    assert (
        not outcome.ok and "the paper student" in outcome.message and "qwen3:4b" in outcome.message
    )
    assert state.store.records() == []


def test_own_judge_is_still_accepted(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    outcome = state.submit(write_variant(sample_release, tmp_path / "v.csv", 3), "judge", {}, USER)
    assert outcome.ok, outcome.message
    assert outcome.record is not None and "duplicate_of_reference" not in outcome.record.flags


# --- dry runs and the rate limit -------------------------------------------------------------


def test_rate_limited_account_can_still_validate(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r", rate_limit=1)
    first = state.submit(write_variant(sample_release, tmp_path / "a.csv", 0), "judge", {}, USER)
    assert first.ok, first.message
    second = write_variant(sample_release, tmp_path / "b.csv", 1)
    refused = state.submit(second, "judge", {}, USER)
    assert not refused.ok and "rate limit" in refused.message
    for _ in range(3):  # dry runs are never refused and never count
        dry = state.submit(second, "judge", {}, USER, validate_only=True)
        assert dry.ok, dry.message
        assert "validate only" in dry.message and "rate limit" in dry.message
    assert len(state.store.records()) == 1
    other = state.submit(second, "judge", {}, "another-user")
    assert other.ok, other.message


def test_dry_runs_do_not_use_up_the_limit(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r", rate_limit=1)
    path = write_variant(sample_release, tmp_path / "a.csv", 0)
    for _ in range(3):
        assert state.submit(path, "judge", {}, USER, validate_only=True).ok
    outcome = state.submit(path, "judge", {}, USER)
    assert outcome.ok, outcome.message


# --- the uploaded file's own name ------------------------------------------------------------


def test_problems_name_the_uploaded_file(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    path = tmp_path / "Mein Richter (v2).csv"
    path.write_text("question_id,model,label\nNOPE,gpt-5-nano,Richtig\n", encoding="utf-8")
    outcome = state.submit(path, "judge", {}, USER)
    assert not outcome.ok and outcome.problems
    assert all(p.file == "Mein Richter (v2).csv" for p in outcome.problems)
    assert "submission.csv" not in outcome.message + str(outcome.problems)


def test_compressed_upload_is_named_and_explained(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    path = tmp_path / "judge.csv.gz"
    path.write_bytes(gzip.compress(judge_frame(sample_release).to_csv(index=False).encode()))
    outcome = state.submit(path, "judge", {}, USER)
    text = str(outcome.problems[0])
    assert text.startswith("judge.csv.gz: the file is gzip-compressed") and "decompress" in text
    assert "b'" not in text


def test_upload_gone_from_the_server_is_explained(sample_release: Release, tmp_path: Path) -> None:
    state = make_state(sample_release, tmp_path / "r")
    outcome = state.submit(tmp_path / "vanished.csv", "judge", {}, USER)
    assert not outcome.ok and outcome.message.startswith("vanished.csv: the uploaded file is no")
    assert "upload it again" in outcome.message


# --- keyed account hashes --------------------------------------------------------------------


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


# --- bounded temporary files -----------------------------------------------------------------


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_exports_remove_folders_of_finished_processes_only(tmp_path: Path) -> None:
    finished = tmp_path / f"{PREFIX}finished"
    finished.mkdir()
    (finished / MARKER).write_text(json.dumps({"pid": dead_pid()}), encoding="utf-8")
    (finished / "medqade-result-abc.json").write_text("{}", encoding="utf-8")
    running = tmp_path / f"{PREFIX}running"
    running.mkdir()
    (running / MARKER).write_text(json.dumps({"pid": os.getpid()}), encoding="utf-8")
    old_style = tmp_path / f"{PREFIX}old"
    old_style.mkdir()
    (old_style / "medqade-problems-1.csv").write_text("a\n", encoding="utf-8")
    foreign = tmp_path / f"{PREFIX}foreign"
    foreign.mkdir()
    (foreign / "thesis.txt").write_text("mine", encoding="utf-8")
    day_ago = time.time() - 2 * 86_400
    for path in (old_style, old_style / "medqade-problems-1.csv", foreign, foreign / "thesis.txt"):
        os.utime(path, (day_ago, day_ago))
    exports = Exports(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([exports.root.name, running.name, foreign.name])
    assert (foreign / "thesis.txt").read_text(encoding="utf-8") == "mine"
    assert sweep_stale(tmp_path) == []  # nothing more to remove; the live folders stay


def test_exports_drop_old_files(tmp_path: Path) -> None:
    now = [1_000_000.0]
    exports = Exports(tmp_path, max_age_s=60, prune_every_s=10, clock=lambda: now[0])
    old = Path(exports.write("medqade-result-old.json", "{}"))
    os.utime(old, (now[0] - 120, now[0] - 120))
    fresh = Path(exports.write("medqade-result-fresh.json", "{}"))
    os.utime(fresh, (now[0], now[0]))
    assert old.exists()  # pruned at most every 10 s
    now[0] += 11
    newest = Path(exports.write("medqade-result-new.json", "{}"))
    assert not old.exists() and fresh.exists() and newest.exists()
    assert (exports.root / MARKER).exists()


def test_gradio_upload_is_deleted_once_read(
    launch: Callable[..., Running], sample_release: Release, tmp_path: Path
) -> None:
    import gradio

    app = launch()
    assert app.demo.delete_cache == app.state.config.delete_cache
    upload_root = Path(gradio.utils.get_upload_folder()).resolve()

    def uploads(name: str) -> list[Path]:
        return [p for p in upload_root.rglob(name) if p.is_file()]

    client = app.client()
    bad = tmp_path / "hygiene-bad-upload.csv"
    bad.write_text("question_id,model,label\nNOPE,gpt-5-nano,Richtig\n", encoding="utf-8")
    status, _, _ = client.predict(*submit_args(bad), api_name="/submit")
    assert status == "Not accepted: 1 problem found in hygiene-bad-upload.csv; nothing was scored."
    assert uploads(bad.name) == []

    good = write_variant(sample_release, tmp_path / "hygiene-good-upload.csv", 5)
    status, _, _ = client.predict(*submit_args(good, validate_only=True), api_name="/submit")
    assert status.startswith("Dry run: scored, not stored") and len(uploads(good.name)) == 1
    status, _, _ = client.predict(*submit_args(good), api_name="/submit")
    assert status.startswith("Accepted"), status
    assert uploads(good.name) == []


def test_exports_are_capped_in_files_and_bytes(tmp_path: Path) -> None:
    """Issue 38: the download folder holds at most ``max_files`` files and ``max_bytes``
    bytes; the oldest go first, the file just written always stays."""
    now = [1_000_000.0]
    exports = Exports(tmp_path, max_files=3, max_bytes=250, clock=lambda: now[0])
    written = []
    for k in range(6):
        path = Path(exports.write(f"medqade-problems-{k}.csv", "x" * 60))
        os.utime(path, (now[0] + k, now[0] + k))
        written.append(path)
    left = sorted(p.name for p in exports.root.iterdir() if p.name != MARKER)
    assert left == [p.name for p in written[-3:]]
    big = Path(exports.write("medqade-result-big.json", "y" * 200))
    assert big.exists()  # kept though it alone nearly fills the folder
    assert sum(p.stat().st_size for p in exports.root.iterdir() if p.name != MARKER) <= 250
    assert (exports.root / MARKER).exists()
