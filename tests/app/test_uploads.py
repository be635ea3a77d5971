"""Reading one Gradio upload: its shown name, its size checked first, stored uploads
remembered (bounded), and what a request for a file gone from the server is told."""

from __future__ import annotations

from pathlib import Path

from medqade.app import uploads
from medqade.app.uploads import Uploads, display_name
from medqade.scoring.intake.limits import Limits
from medqade.scoring.policy.policy import Outcome, Upload
from medqade.scoring.policy.store import RateLimit, ResultsStore


def _uploads(tmp_path: Path, max_bytes: int = 1_000) -> Uploads:
    store = ResultsStore(tmp_path / "results", RateLimit(0, 0.0))
    return Uploads(Limits(max_bytes=max_bytes), store)


def test_display_name_is_the_base_name_as_plain_text() -> None:
    assert display_name("/tmp/gradio/abc123/my labels.csv") == "my labels.csv"
    assert display_name("/tmp/x/<script>.csv") == "_script_.csv"
    long = display_name("/tmp/x/" + "a" * 150 + ".jsonl")
    assert len(long) == 100 and long.startswith("a" * 60 + "...") and long.endswith(".jsonl")
    assert display_name("/tmp/x/...", "labels") == "labels.bin"  # nothing left: the role


def test_an_upload_is_read_with_its_shown_name_and_suffix(tmp_path: Path) -> None:
    path = tmp_path / "judge.CSV"
    path.write_bytes(b"item_id,label\n")
    read = _uploads(tmp_path).read(path, "submission")
    assert read == Upload(b"item_id,label\n", "judge.CSV", ".csv")


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    path.write_bytes(b"x" * 1_001)
    read = _uploads(tmp_path).read(path, "submission")
    assert isinstance(read, Outcome) and not read.ok
    assert read.message.startswith("big.csv: the file has 1,001 bytes, more than the limit")


def test_a_file_gone_from_the_server_is_a_duplicate_when_just_stored(tmp_path: Path) -> None:
    reader = _uploads(tmp_path)
    gone = tmp_path / "gone.jsonl"
    first = reader.read(gone, "labels")
    assert isinstance(first, Outcome) and "no longer on the server" in first.message
    reader.remember(gone, "ab" * 32)
    assert reader.stored_as(gone) == "ab" * 32
    second = reader.read(gone, "labels")
    assert isinstance(second, Outcome) and not second.ok
    assert second.message == f"gone.jsonl: {ResultsStore.duplicate_message('ab' * 32)}"


def test_remembered_uploads_are_bounded_oldest_dropped(tmp_path: Path) -> None:
    reader = _uploads(tmp_path)
    for k in range(uploads.REMEMBERED + 5):
        reader.remember(f"/tmp/u/{k}.csv", f"id{k}")
    assert reader.stored_as("/tmp/u/0.csv") is None and reader.stored_as("/tmp/u/4.csv") is None
    assert reader.stored_as("/tmp/u/5.csv") == "id5"
    last = uploads.REMEMBERED + 4
    assert reader.stored_as(f"/tmp/u/{last}.csv") == f"id{last}"
