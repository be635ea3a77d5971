"""The results folder: atomic records, duplicates, the rate limit, names that are ours."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.scoring.store import RateLimit, ResultsStore, SubmissionRefused, upload_suffix

HASH = "ab" * 32


def record(n: int, account: str = "acct", at: str = "2026-01-01T00:00:00+00:00") -> dict[str, Any]:
    return {
        "id": f"{n:064x}",
        "kind": "judge",
        "meta": {"name": f"judge {n}"},
        "space": {"account": account, "submitted_at": at, "key": f"{n:064x}"},
    }


def test_add_writes_record_and_upload(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    rid = store.add(record(1), {f"{HASH}.csv": b"a,b\n"})
    saved = json.loads((tmp_path / "records" / f"{rid}.json").read_text(encoding="utf-8"))
    assert saved["space"]["uploads"] == [f"{HASH}.csv"]
    assert (tmp_path / "uploads" / f"{HASH}.csv").read_bytes() == b"a,b\n"
    assert not list(tmp_path.rglob("*.tmp"))
    assert [r["id"] for r in ResultsStore(tmp_path, RateLimit(0, 1.0)).records()] == [rid]


def test_add_duplicate_key_refused(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    store.add(record(1), {})
    again = record(2)
    again["space"]["key"] = record(1)["space"]["key"]
    with pytest.raises(SubmissionRefused, match="submitted before"):
        store.add(again, {})


def test_add_never_overwrites_a_record(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    store.add(record(1), {})
    clash = record(1)
    clash["space"]["key"] = "other"
    with pytest.raises(SubmissionRefused, match="exists already"):
        store.add(clash, {})


def test_rate_limit_counts_the_window(tmp_path: Path) -> None:
    now = 1_767_225_600.0  # 2026-01-01T00:00:00Z
    store = ResultsStore(tmp_path, RateLimit.per_days(2, 7), clock=lambda: now)
    store.add(record(1, at="2025-12-20T00:00:00+00:00"), {})  # outside the 7 days
    store.add(record(2, at="2025-12-30T00:00:00+00:00"), {})
    store.add(record(3, at="2025-12-31T00:00:00+00:00"), {})
    with pytest.raises(SubmissionRefused, match="rate limit: 2 submissions per 7 days"):
        store.check("acct", "new")
    store.check("someone-else", "new")


def test_rate_limit_zero_is_off(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    for n in range(10):
        store.add(record(n), {})
    store.check("acct", "new")


@pytest.mark.parametrize("name", ["../x.csv", "evil.csv", f"{HASH}.exe", f"{HASH}.csv/../a"])
def test_add_refuses_foreign_upload_names(tmp_path: Path, name: str) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    with pytest.raises(ValueError, match="upload name"):
        store.add(record(1), {name: b""})


def test_add_refuses_unsafe_record_id(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    bad = record(1)
    bad["id"] = "../../etc"
    with pytest.raises(ValueError, match="cannot be a file name"):
        store.add(bad, {})


def test_reload_skips_malformed_files(tmp_path: Path) -> None:
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "broken.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "records" / "other.json").write_text('{"id": 1}', encoding="utf-8")
    assert ResultsStore(tmp_path, RateLimit(0, 1.0)).records() == []


@pytest.mark.parametrize(
    ("name", "suffix"),
    [("a.CSV", ".csv"), ("x.jsonl", ".jsonl"), ("x.exe", ".bin"), ("noext", ".bin")],
)
def test_upload_suffix_known_formats_only(name: str, suffix: str) -> None:
    assert upload_suffix(name) == suffix


def test_a_record_with_a_malformed_section_is_skipped_with_its_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    good = store.add(record(1), {})
    bad = record(2) | {"core": [1, 2], "space": {"account": "a", "key": "k"}}
    (tmp_path / "records" / f"{bad['id']}.json").write_text(json.dumps(bad), encoding="utf-8")
    assert [r["id"] for r in ResultsStore(tmp_path, RateLimit(0, 1.0)).records()] == [good]
    assert f"skipping result record {bad['id']}.json: Agreement: expected a JSON object" in (
        caplog.text
    )
