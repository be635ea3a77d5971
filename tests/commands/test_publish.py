"""``medqade publish``: a dry run lists what would be uploaded, and uploads nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from medqade.cli import main


def test_publish_dry_run_lists_each_file_with_its_hash(
    sample_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["publish", str(sample_dir), "--repo-id", "org/medqade", "--dry-run"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"dry run: would upload {sample_dir} to dataset repo org/medqade"
    listed = [line.split()[-1] for line in out[1:-1]]
    assert "release.json" in listed and "README.md" in listed
    want = sorted(
        p.relative_to(sample_dir).as_posix() for p in sample_dir.rglob("*") if p.is_file()
    )
    assert listed == [f for f in want if f in listed] and len(listed) >= 5
    assert out[-1].startswith(f"{len(listed)} files, ")


def test_publish_refuses_a_bad_repo_id(
    sample_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["publish", str(sample_dir), "--repo-id", "no repo", "--dry-run"]) == 2
    assert "no repo" in capsys.readouterr().err
