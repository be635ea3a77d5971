"""The results folder: atomic records, duplicates, the rate limit, names that are ours."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.scoring.policy.store import RateLimit, ResultsStore, SubmissionRefused
from medqade.scoring.record.score_record import ScoreRecord, SpaceEntry

HASH = "ab" * 32


def record(n: int, account: str = "acct", at: str = "2026-01-01T00:00:00+00:00") -> dict[str, Any]:
    return {
        "id": f"{n:064x}",
        "kind": "judge",
        "meta": {"name": f"judge {n}"},
        "space": {"account": account, "submitted_at": at, "key": f"{n:064x}"},
    }


def add(
    store: ResultsStore,
    obj: dict[str, Any],
    uploads: dict[str, bytes],
    aliases: tuple[str, ...] = (),
) -> str:
    """Store the record ``obj`` (its JSON object, with its ``space`` envelope); its id."""
    record = ScoreRecord.from_json({k: v for k, v in obj.items() if k != "space"})
    return str(store.add(record, SpaceEntry.from_json(obj["space"]), uploads, aliases).id)


def test_add_writes_record_and_upload(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    rid = add(store, record(1), {f"{HASH}.csv": b"a,b\n"})
    saved = json.loads((tmp_path / "records" / f"{rid}.json").read_text(encoding="utf-8"))
    assert saved["space"]["uploads"] == [f"{HASH}.csv"]
    assert (tmp_path / "uploads" / f"{HASH}.csv").read_bytes() == b"a,b\n"
    assert not list(tmp_path.rglob("*.tmp"))
    assert [r.id for r in ResultsStore(tmp_path, RateLimit(0, 1.0)).records()] == [rid]


def test_add_duplicate_key_refused(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    add(store, record(1), {})
    again = record(2)
    again["space"]["key"] = record(1)["space"]["key"]
    with pytest.raises(SubmissionRefused, match="submitted before"):
        add(store, again, {})


def test_add_never_overwrites_a_record(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    add(store, record(1), {})
    clash = record(1)
    clash["space"]["key"] = "other"
    with pytest.raises(SubmissionRefused, match="exists already"):
        add(store, clash, {})


def test_rate_limit_counts_the_window(tmp_path: Path) -> None:
    now = 1_767_225_600.0  # 2026-01-01T00:00:00Z
    store = ResultsStore(tmp_path, RateLimit.per_days(2, 7), clock=lambda: now)
    add(store, record(1, at="2025-12-20T00:00:00+00:00"), {})  # outside the 7 days
    add(store, record(2, at="2025-12-30T00:00:00+00:00"), {})
    add(store, record(3, at="2025-12-31T00:00:00+00:00"), {})
    with pytest.raises(SubmissionRefused, match="rate limit: 2 submissions per 7 days"):
        store.check("acct", "new")
    store.check("someone-else", "new")


def test_rate_limit_zero_is_off(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    for n in range(10):
        add(store, record(n), {})
    store.check("acct", "new")


@pytest.mark.parametrize("name", ["../x.csv", "evil.csv", f"{HASH}.exe", f"{HASH}.csv/../a"])
def test_add_refuses_foreign_upload_names(tmp_path: Path, name: str) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    with pytest.raises(ValueError, match="upload name"):
        add(store, record(1), {name: b""})


def test_add_refuses_unsafe_record_id(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    bad = record(1)
    bad["id"] = "../../etc"
    with pytest.raises(ValueError, match="cannot be a file name"):
        add(store, bad, {})


def test_reload_skips_malformed_files(tmp_path: Path) -> None:
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "broken.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "records" / "other.json").write_text('{"id": 1}', encoding="utf-8")
    assert ResultsStore(tmp_path, RateLimit(0, 1.0)).records() == []


def test_a_record_with_a_malformed_section_is_skipped_with_its_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    good = add(store, record(1), {})
    bad = record(2) | {"core": [1, 2], "space": {"account": "a", "key": "k"}}
    (tmp_path / "records" / f"{bad['id']}.json").write_text(json.dumps(bad), encoding="utf-8")
    assert [r.id for r in ResultsStore(tmp_path, RateLimit(0, 1.0)).records()] == [good]
    assert f"skipping result record {bad['id']}.json: Agreement: expected a JSON object" in (
        caplog.text
    )


# --- several writers on one folder (issue 38) -----------------------------------------------

WRITER = """
import json, sys, time
from pathlib import Path
from medqade.scoring.record.score_record import ScoreRecord, SpaceEntry
from medqade.scoring.policy.store import RateLimit, ResultsStore, SubmissionRefused

folder, proc, tries = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = ResultsStore(folder, RateLimit(2, 86_400.0))  # loaded before any other writes
(folder.parent / f"ready-{proc}").touch()
while not (folder.parent / "go").exists():
    time.sleep(0.005)
now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
stored = []
for i in range(tries):
    for account, key in (("shared", "same-content"), ("limited", f"key-{proc}-{i}")):
        record = {
            "id": f"{proc:032x}{i:016x}{len(account):016x}",
            "kind": "judge",
            "meta": {"name": f"judge {proc}/{i}"},
            "space": {"account": account, "submitted_at": now, "key": key},
        }
        try:
            typed = ScoreRecord.from_json({k: v for k, v in record.items() if k != "space"})
            stored.append(store.add(typed, SpaceEntry.from_json(record["space"]), {}).id)
        except SubmissionRefused:
            pass
print(json.dumps(stored))
"""


def _start_writers(folder: Path, n: int, tries: int) -> list[Any]:
    """``n`` processes, each with its own store loaded on ``folder`` before any of them
    writes, then let go at once; each stores what it may and prints the ids it stored."""
    import os
    import subprocess
    import sys
    import time

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(folder), str(k), str(tries)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for k in range(n)
    ]
    while not all((folder.parent / f"ready-{k}").exists() for k in range(n)):
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (folder.parent / "go").touch()
    return procs


def test_writers_in_separate_processes_keep_the_duplicate_key_and_the_rate_limit(
    tmp_path: Path,
) -> None:
    """Four processes on one folder, each loaded before the others wrote: the same content
    is stored once, and an account with a limit of 2 stores 2 (without the folder's lock
    and the re-read before the check: 4 and 8)."""
    folder = tmp_path / "results"
    ResultsStore(folder, RateLimit(0, 1.0))
    procs = _start_writers(folder, 4, 3)
    stored: list[str] = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        stored += json.loads(out)
    on_disk = ResultsStore(folder, RateLimit(0, 1.0)).records()
    assert sorted(stored) == sorted(str(r.id) for r in on_disk)
    by_account = {
        a: [r for r in on_disk if r.space is not None and r.space.account == a]
        for a in ("shared", "limited")
    }
    assert len(by_account["shared"]) == 1  # one key, stored once
    assert len(by_account["limited"]) == 2  # the limit, exactly
    assert not list(folder.rglob("*.tmp"))


def test_refresh_takes_in_what_another_writer_stored_and_removed(tmp_path: Path) -> None:
    mine = ResultsStore(tmp_path, RateLimit(0, 1.0))
    other = ResultsStore(tmp_path, RateLimit(0, 1.0))
    rid = add(other, record(1), {})
    assert mine.get(rid) is None
    version = mine.version
    assert mine.refresh() and mine.version > version and mine.get(rid) is not None
    assert not mine.refresh()  # nothing new: the version stays, no record read again
    with pytest.raises(SubmissionRefused, match="submitted before"):
        mine.check("x", record(1)["space"]["key"])
    (tmp_path / "records" / f"{rid}.json").unlink()
    assert mine.refresh() and mine.records() == []


def test_add_reads_what_another_writer_stored_before_it_checks(tmp_path: Path) -> None:
    """Two stores on one folder (two Spaces): the second is refused the same key and the
    account's third submission although it loaded before the first wrote."""
    now = 1_767_225_600.0
    a = ResultsStore(tmp_path, RateLimit.per_days(2, 7), clock=lambda: now)
    b = ResultsStore(tmp_path, RateLimit.per_days(2, 7), clock=lambda: now)
    add(a, record(1, at="2025-12-31T00:00:00+00:00"), {})
    same = record(2, at="2025-12-31T00:00:00+00:00")
    same["space"]["key"] = record(1)["space"]["key"]
    with pytest.raises(SubmissionRefused, match="submitted before"):
        add(b, same, {})
    add(b, record(3, at="2025-12-31T00:00:00+00:00"), {})
    with pytest.raises(SubmissionRefused, match="rate limit"):
        add(a, record(4, at="2025-12-31T00:00:00+00:00"), {})
    assert len(a.records()) == len(b.records()) == 2


def test_add_keeps_each_uploads_hash_and_writes_only_inside_its_folder(tmp_path: Path) -> None:
    import hashlib

    store = ResultsStore(tmp_path / "r", RateLimit(0, 1.0))
    rid = add(store, record(1), {f"{HASH}.csv": b"a,b\n"})
    saved = store.get(rid)
    assert saved is not None
    assert saved.space is not None and saved.space.upload_sha256 == {
        f"{HASH}.csv": hashlib.sha256(b"a,b\n").hexdigest()
    }
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "r" / "uploads").rename(tmp_path / "moved")
    (tmp_path / "r" / "uploads").symlink_to(elsewhere)
    with pytest.raises(SubmissionRefused, match="uploads/ is a link"):
        add(store, record(2), {f"{'cd' * 32}.csv": b"x\n"})
    assert list(elsewhere.iterdir()) == []


def test_read_upload_never_follows_a_link_nor_reads_past_the_limit(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    add(store, record(1), {f"{HASH}.csv": b"a,b\n"})
    assert store.read_upload(f"{HASH}.csv", 100) == b"a,b\n"
    with pytest.raises(ValueError, match=f"uploads/{HASH}.csv: the stored upload has more than 3"):
        store.read_upload(f"{HASH}.csv", 3)
    outside = tmp_path.parent / f"{tmp_path.name}-secret.csv"
    outside.write_bytes(b"secret\n")
    link = f"{'cd' * 32}.csv"
    (tmp_path / "uploads" / link).symlink_to(outside)
    with pytest.raises(ValueError, match="is a link, not a file the store wrote"):
        store.read_upload(link, 100)
    assert (
        store.upload_paths(ScoreRecord.from_json({"id": "x", "space": {"uploads": [link]}})) == []
    )


def test_a_write_waiting_too_long_is_refused_naming_the_holder_not_the_path(
    tmp_path: Path,
) -> None:
    """The line a Space's visitor may see names the holder (pid, host, since), never the
    folder's path on the server; nothing is stored."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    holder = (
        "import sys, time\nfrom pathlib import Path\nfrom medqade.files.folder_lock import hold\n"
        "with hold(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(600)\n"
    )
    src = str(Path(__file__).resolve().parents[3] / "src")
    proc = subprocess.Popen(
        [sys.executable, "-c", holder, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        store = ResultsStore(tmp_path, RateLimit(0, 1.0), lock_wait_s=0.1)
        with pytest.raises(SubmissionRefused) as caught:
            add(store, record(1), {f"{HASH}.csv": b"a\n"})
        message = str(caught.value)
        assert f"being written by process {proc.pid} on host {socket.gethostname()}" in message
        assert str(tmp_path) not in message and "nothing was stored" in message
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert not (tmp_path / "records").exists() and not (tmp_path / "uploads").exists()
    assert add(store, record(1), {}) == record(1)["id"]  # the dead holder blocks nobody
