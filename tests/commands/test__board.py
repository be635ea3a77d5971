"""What ``medqade leaderboard`` and ``compare`` read (:mod:`medqade.commands._board`): the
reference rows and the stored records of this release, from the Space's results folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.commands._board import add_board_arguments, open_board

ANSWERS = "question_id,answer\nS-C01,Femur\nS-C02,Aspirin\nS-E01,N. medianus\n"


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_board_arguments(parser)
    return parser.parse_args(list(argv))


def test_board_arguments_and_their_defaults() -> None:
    args = _args()
    assert (args.view, args.resamples, args.results) == ("core", 1000, None)
    with pytest.raises(SystemExit):
        _args("--resamples", "0")


def test_the_board_holds_the_reference_rows_then_this_release_s_records(
    sample_dir: Path, write, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    base = ("--data", str(sample_dir), "--results", str(results), "--resamples", "5")
    empty = open_board(_args(*base))
    assert empty.records and empty.other_release == 0 and empty.uploads == {}
    assert all(r.meta is not None and r.meta.source != "submission" for r in empty.records)
    path = write("a.csv", ANSWERS)
    argv = ["score", str(path), "--data", str(sample_dir), "--resamples", "0"]
    assert main([*argv, "--name", "Mein Modell", "--results", str(results)]) == 0
    capsys.readouterr()
    (stored,) = (results / "records").glob("*.json")
    rid = json.loads(stored.read_text(encoding="utf-8"))["id"]
    board = open_board(_args(*base))
    assert [r.id for r in board.records] == [*(r.id for r in empty.records), rid]
    assert board.uploads[rid].parent == results / "uploads"


def test_a_results_folder_that_is_not_there_is_named(sample_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(FileNotFoundError, match="no such results folder"):
        open_board(_args("--data", str(sample_dir), "--results", str(missing)))
