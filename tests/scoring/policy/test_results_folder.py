"""The results folder's files (:mod:`medqade.scoring.policy.results_folder`): where it is, the
names it stores uploads under, and a stored upload read back only as a plain file inside
``uploads/``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from medqade.scoring.policy.results_folder import (
    ENV_RESULTS_DIR,
    UPLOADS,
    default_results_dir,
    on_space,
    outside,
    read_stored_upload,
    upload_sha256,
    upload_suffix,
)

HASH = "ab" * 32


@pytest.mark.parametrize(
    ("name", "suffix"),
    [("a.CSV", ".csv"), ("x.jsonl", ".jsonl"), ("x.exe", ".bin"), ("noext", ".bin")],
)
def test_upload_suffix_known_formats_only(name: str, suffix: str) -> None:
    assert upload_suffix(name) == suffix


def test_upload_sha256_of_a_known_vector() -> None:
    """FIPS 180-2's example: SHA-256 of ``abc``."""
    assert upload_sha256(b"abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


def test_on_space_and_the_default_folder() -> None:
    assert on_space({"SPACE_ID": "org/space"}) and not on_space({})
    assert default_results_dir({"SPACE_ID": "org/space"}) == Path("results")
    chosen = {ENV_RESULTS_DIR: "/somewhere/else", "SPACE_ID": "org/space"}
    assert default_results_dir(chosen) == Path("/somewhere/else")


def test_outside_is_a_link_or_elsewhere(tmp_path: Path) -> None:
    root = tmp_path / "results"
    root.mkdir()
    assert not outside(root, root / UPLOADS)  # not there yet
    (root / UPLOADS).mkdir()
    assert not outside(root, root / UPLOADS)
    other = tmp_path / "other"
    other.mkdir()
    (root / "records").symlink_to(other)
    assert outside(root, root / "records")


def test_read_stored_upload_reads_a_plain_file_up_to_the_limit(tmp_path: Path) -> None:
    (tmp_path / UPLOADS).mkdir()
    (tmp_path / UPLOADS / f"{HASH}.csv").write_bytes(b"a,b\n")
    assert read_stored_upload(tmp_path, f"{HASH}.csv", 4) == b"a,b\n"
    with pytest.raises(ValueError, match="has more than 3 bytes"):
        read_stored_upload(tmp_path, f"{HASH}.csv", 3)
    with pytest.raises(ValueError, match="the stored upload is missing"):
        read_stored_upload(tmp_path, f"{'cd' * 32}.csv", 100)


@pytest.mark.parametrize("name", ["../secret.csv", "x.csv", f"{HASH}.exe", f"{HASH}.csv/.."])
def test_read_stored_upload_refuses_other_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="not the name of a stored upload"):
        read_stored_upload(tmp_path, name, 100)


def test_read_stored_upload_refuses_a_linked_uploads_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / f"{HASH}.csv").write_bytes(b"secret\n")
    root = tmp_path / "results"
    root.mkdir()
    (root / UPLOADS).symlink_to(elsewhere)
    with pytest.raises(ValueError, match="is a link or lies outside the results folder"):
        read_stored_upload(root, f"{HASH}.csv", 100)


def test_read_stored_upload_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    (tmp_path / UPLOADS).mkdir()
    os.mkfifo(tmp_path / UPLOADS / f"{HASH}.csv")
    with pytest.raises(ValueError, match="is not a plain file; remove it"):
        read_stored_upload(tmp_path, f"{HASH}.csv", 100)
