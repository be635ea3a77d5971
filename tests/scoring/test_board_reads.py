"""A board reads each record once (issue 34): the store keeps its records typed, the
reference rows are typed when scored or read from their cache, and :func:`leaderboard`
reads a record only when given its JSON object."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from medqade.cli import main
from medqade.dataset.release import Release
from medqade.scoring import leaderboard
from medqade.scoring.board import sources as board
from medqade.scoring.policy import policy
from medqade.scoring.policy.store import RateLimit, ResultsStore
from medqade.scoring.record.score_record import ScoreRecord

from .helpers import judge_rows

leaderboard_mod = importlib.import_module("medqade.scoring.board.tables")


def _stored(sample: Release, folder: Path) -> None:
    store = ResultsStore(folder, RateLimit(0, 1.0))
    for k, evaluator in enumerate(("gemma3:4b", "gpt-5.4-mini")):
        frame = judge_rows(sample, evaluator)
        frame.loc[k, "label"] = "Falsch" if frame.loc[k, "label"] == "Richtig" else "Richtig"
        up = [policy.Upload(frame.to_csv(index=False).encode(), f"{k}.csv", ".csv")]
        done = policy.submit(
            sample,
            up,
            "judge",
            {"name": f"Judge {k}"},
            policy.Settings(resamples=0),
            store=store,
            submitter=policy.Submitter(f"acct-{k}"),
        )
        assert done.ok, done.message


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], list[Any]]:
    """Every :meth:`ScoreRecord.from_json` (a JSON object read into a record) and every
    :func:`leaderboard`'s ``read_record``."""
    reads: list[Any] = []
    calls: list[Any] = []
    original = ScoreRecord.from_json.__func__  # type: ignore[attr-defined]
    read_record = leaderboard_mod.read_record

    def from_json(cls: type[ScoreRecord], obj: Any) -> ScoreRecord:
        if cls is ScoreRecord:
            reads.append(obj.get("id"))
        return original(cls, obj)  # type: ignore[no-any-return]

    def counted(obj: Any) -> ScoreRecord:
        calls.append(obj)
        return read_record(obj)

    monkeypatch.setattr(ScoreRecord, "from_json", classmethod(from_json))
    monkeypatch.setattr(leaderboard_mod, "read_record", counted)
    return reads, calls


def test_a_board_reads_each_record_once(
    sample: Release, sample_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "results"
    _stored(sample, folder)
    refs = board.cached_reference_records(sample, folder, 1, 7, 0.05)  # cached for the CLI
    reads, calls = _count_reads(monkeypatch)
    chosen = board.open_board(sample, refs, ResultsStore(folder, RateLimit(0, 1.0)))
    assert len(chosen.stored) == 2 and sorted(reads) == sorted(r.id for r in chosen.stored)
    for view in ("core", "full"):
        judges = leaderboard(chosen.records, view=view).judges_frame()
        assert {"Judge 0", "Judge 1"} <= set(judges["name"])
    assert len(reads) == 2  # the board read nothing again
    assert len(calls) == 2 * len(chosen.records)  # once per record per board, typed: as is
    assert all(isinstance(c, ScoreRecord) for c in calls)
    reads.clear()
    argv = ["leaderboard", "--data", str(sample_dir), "--results", str(folder)]
    assert main([*argv, "--resamples", "1", "--seed", "7", "--format", "json"]) == 0
    assert sorted(map(str, reads)) == sorted(str(r.id) for r in chosen.records)  # each once


def test_a_json_object_is_read_once_by_the_board(sample: Release, tmp_path: Path) -> None:
    folder = tmp_path / "results"
    _stored(sample, folder)
    texts = [p.read_text(encoding="utf-8") for p in sorted((folder / "records").glob("*.json"))]
    objects = [json.loads(t) for t in texts]
    typed = ResultsStore(folder, RateLimit(0, 1.0)).records()
    for view in ("core", "full"):
        a = leaderboard(objects, view=view).judges_frame()
        b = leaderboard(typed, view=view).judges_frame()
        assert a.equals(b)
