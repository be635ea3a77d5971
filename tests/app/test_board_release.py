"""Issue 25: which stored records belong on a release's board is one library rule
(:func:`medqade.scoring.board.sources.board_records`), called by the Space and the CLI alike."""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.cli import main
from medqade.dataset.release import Release
from medqade.scoring import record_id
from medqade.scoring.board import sources as board
from medqade.scoring.record.score_record import ScoreRecord

RESAMPLES = 10


def _space(release: Release, results: Path) -> SpaceState:
    config = SpaceConfig(results_dir=results, rate_limit=0, resamples=RESAMPLES)
    return SpaceState(release, results, config, background=False, analyses=False)


def _forge_other_release(results: Path, record: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` as if scored on another release (another data hash), stored
    next to it with its own id, name and duplicate key."""
    other = copy.deepcopy(record)
    other["dataset"]["hash"] = "0" * 64
    other["meta"]["name"] = "Judge of another release"
    other["space"]["key"] = "f" * 64
    other.pop("id")
    other["id"] = record_id(other)
    path = results / "records" / f"{other['id']}.json"
    path.write_text(json.dumps(other, indent=1), encoding="utf-8")
    return other


def _cli_judge_ids(
    capsys: pytest.CaptureFixture[str], built_sample: Path, results: Path, view: str
) -> list[str]:
    argv = ["leaderboard", "--data", str(built_sample), "--results", str(results)]
    argv += ["--resamples", str(RESAMPLES), "--view", view, "--format", "json"]
    assert main(argv) == 0
    return [str(r["id"]) for r in json.loads(capsys.readouterr().out)["judges"]]


@pytest.fixture
def mixed_results(sample_release: Release, judge_csv: Path, tmp_path: Path) -> Any:
    """A results folder holding one record scored on the sample release and one forged as
    scored on another release."""
    results = tmp_path / "results"
    first = _space(sample_release, results)
    outcome = first.submit(judge_csv, "judge", {"name": "Own judge"}, None)
    assert outcome.ok, outcome.message
    assert outcome.record is not None
    own = outcome.record.to_json()
    foreign = _forge_other_release(results, own)
    return results, str(own["id"]), str(foreign["id"])


def test_space_and_cli_leave_out_a_record_scored_on_another_release(
    sample_release: Release,
    built_sample: Path,
    mixed_results: Any,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    results, own, foreign = mixed_results
    caplog.set_level(logging.WARNING)
    state = _space(sample_release, results)  # a Space opened on the folder
    assert {str(r.id) for r in state.store.records()} == {own, foreign}  # both stored
    assert "1 stored record was scored on another release" in caplog.text
    for view in ("core", "full"):
        space_ids = [str(r.id) for r in state.boards(view).board.judges]
        cli_ids = _cli_judge_ids(capsys, built_sample, results, view)
        assert space_ids == cli_ids, view  # the same rows, in the same order
        assert own in space_ids and foreign not in space_ids
    # every other list of the Space follows the same rule
    assert foreign not in {r.id for r in state.records()}
    assert foreign not in state.board_judge_ids()
    assert foreign not in {token for _, token in state.compare_choices()}
    assert own in {token for _, token in state.compare_choices()}
    assert not any("another release" in c for c in state.browse.judge_choices())
    assert any("Own judge" in c for c in state.browse.judge_choices())
    with pytest.raises(ValueError):
        state.compare("gemini-2.5-flash", foreign, "core")
    assert state.board_records().other_release == 1


def test_board_rule_lives_in_one_place_the_space_and_the_cli_call_board_records(
    sample_release: Release,
    built_sample: Path,
    mixed_results: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Change the library rule and both boards change: neither keeps a check of its own."""
    results, own, foreign = mixed_results
    original = board.board_records
    callers: list[str] = []

    def only_this_release_and_not_own(
        release: Release, references: Any, stored: Any
    ) -> board.BoardRecords:
        callers.append(inspect.stack()[1].frame.f_globals["__name__"])
        kept = [r for r in stored if str(r.id) != own]
        return original(release, references, kept)

    opened = board.open_board
    openers: list[str] = []

    def open_board(*args: Any, **kwargs: Any) -> board.BoardRecords:
        openers.append(inspect.stack()[1].frame.f_globals["__name__"])
        return opened(*args, **kwargs)

    monkeypatch.setattr(board, "board_records", only_this_release_and_not_own)
    # Both front ends hold the library's one open_board (imported by name from its package):
    # patched where each looks it up, after checking it is that function and no copy.
    space_module = importlib.import_module("medqade.app.state")
    cli_module = importlib.import_module("medqade.commands._board")
    assert space_module.open_board is opened and cli_module.open_board_records is opened
    monkeypatch.setattr(space_module, "open_board", open_board)
    monkeypatch.setattr(cli_module, "open_board_records", open_board)
    state = _space(sample_release, results)
    space_ids = [str(r.id) for r in state.boards("core").board.judges]
    cli_ids = _cli_judge_ids(capsys, built_sample, results, "core")
    assert space_ids == cli_ids
    assert own not in space_ids and foreign not in space_ids
    assert set(callers) == {"medqade.scoring.board.sources"}  # through open_board only
    assert {"medqade.app.state", "medqade.commands._board"} <= set(openers)
    assert own not in {token for _, token in state.compare_choices()}


def test_board_records_keeps_stale_records_of_this_release(sample_release: Release) -> None:
    """Only the release decides: an older schema on this release stays (shown as stale)."""
    read = ScoreRecord.from_json
    here = read({"id": "a", "dataset": {"hash": sample_release.data_hash}, "schema_version": 1})
    there = read({"id": "b", "dataset": {"hash": "other"}, "schema_version": 2})
    bare = read({"id": "c"})
    ref = read({"id": "r", "dataset": {"hash": sample_release.data_hash}})
    chosen = board.board_records(sample_release, [ref], [here, there, bare])
    assert [r.id for r in chosen.records] == ["r", "a"]
    assert [r.id for r in chosen.stored] == ["a"]
    assert chosen.other_release == 2
    assert chosen.note.startswith("2 stored records were scored on another release")
    assert board.board_records(sample_release, [ref], [here]).note == ""


def test_a_record_of_another_release_is_rescored_from_its_stored_upload(
    sample_release: Release,
    built_sample: Path,
    mixed_results: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``medqade rescore`` scores the stored upload of a record of another release again on
    this one (the library's rescore.rescore); then the Space and the CLI both show it."""
    results, own, foreign = mixed_results
    (results / "records" / f"{own}.json").unlink()  # only the other release's record is left
    base = ["--data", str(built_sample), "--results", str(results)]
    assert main(["rescore", *base, "--dry-run"]) == 0
    assert f"{foreign[:16]}: would be scored again" in capsys.readouterr().out
    assert main(["rescore", *base, "--resamples", str(RESAMPLES)]) == 0
    out = capsys.readouterr().out
    assert f"{foreign[:16]}: scored again as record" in out
    state = _space(sample_release, results)
    new = [str(r.id) for r in state.board_records().stored]
    assert len(new) == 1 and new[0] != foreign and state.board_records().other_release == 1
    rescored = state.store.get(new[0])
    assert rescored is not None and rescored.name == "Judge of another release"
    assert rescored.scored_on(sample_release.data_hash)
    assert [str(r.id) for r in state.boards("core").board.judges] == _cli_judge_ids(
        capsys, built_sample, results, "core"
    )
    assert new[0] in _cli_judge_ids(capsys, built_sample, results, "core")
    # once more: every record of the other release now has its twin here (a duplicate)
    assert main(["rescore", *base, "--resamples", str(RESAMPLES)]) == 2
    assert "submitted before" in capsys.readouterr().err
