"""Which records a release's board shows (:mod:`medqade.scoring.board.sources`), and the reference
rows cached under a results folder."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from medqade.dataset.release import Release
from medqade.scoring.board import sources as board
from medqade.scoring.metrics import SCORER_VERSION
from medqade.scoring.record.score_record import ScoreRecord


def _rec(rid: str, data_hash: str) -> ScoreRecord:
    return ScoreRecord.from_json({"id": rid, "dataset": {"hash": data_hash}})


def test_board_records_keeps_this_release_s_records_in_order(sample: Release) -> None:
    here, there = _rec("a", sample.data_hash), _rec("b", "another")
    ref, stale_ref = _rec("r", sample.data_hash), _rec("s", "another")
    later = _rec("d", sample.data_hash)
    chosen = board.board_records(sample, [ref, stale_ref], [here, there, later])
    assert [r.id for r in chosen.records] == ["r", "a", "d"]
    assert [r.id for r in chosen.stored] == ["a", "d"] and chosen.other_release == 1
    assert chosen.note.startswith("1 stored record was scored on another release")
    assert board.board_records(sample, [], [there, _rec("e", "x")]).note.startswith(
        "2 stored records were"
    )
    assert board.board_records(sample, [ref], [here]).note == ""
    assert board.scored_on(here, sample)
    assert not board.scored_on(there, sample)


def test_reference_rows_are_cached_per_setting(sample: Release, tmp_path: Path) -> None:
    path = board.reference_path(tmp_path, sample, 5, 1, 0.05)
    assert path.parent == tmp_path / board.REFERENCE
    assert board.reference_path(tmp_path, sample, 6, 1, 0.05) != path
    refs = board.cached_reference_records(sample, tmp_path, 5, 1, 0.05)
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert refs and stored == [r.to_json() for r in refs]
    assert all(board.scored_on(r, sample) for r in refs)
    path.write_text("{broken", encoding="utf-8")  # unreadable: computed again, and rewritten
    ids = [r.id for r in refs]  # content ids: the same rows (their timestamps differ)
    again = board.cached_reference_records(sample, tmp_path, 5, 1, 0.05)
    assert [r.id for r in again] == ids
    assert json.loads(path.read_text(encoding="utf-8")) == [r.to_json() for r in again]
    uncached = board.cached_reference_records(sample, None, 5, 1, 0.05)  # no folder
    assert [r.id for r in uncached] == ids


def test_a_hold_out_build_caches_its_public_and_restored_rows_apart(
    sample: Release, tmp_path: Path
) -> None:
    """The public build of a hold-out and the same build with its private part restored share
    the raw release's data hash (and the build without a hold-out has it too): their reference
    rows are cached under three different names, and the one without a hold-out keeps its
    name."""
    from medqade.dataset.build import build
    from medqade.dataset.holdout import HoldOut
    from medqade.dataset.release import load_release

    raw = Path(__file__).resolve().parents[3] / "data" / "sample"
    build(raw, tmp_path / "pub", hold_out=HoldOut(3, 7), private_out=tmp_path / "priv")
    public = load_release(tmp_path / "pub")
    restored = public.with_private(tmp_path / "priv")
    assert public.data_hash == restored.data_hash == sample.data_hash
    paths = {board.reference_path(tmp_path, r, 5, 1, 0.05) for r in (sample, public, restored)}
    assert len(paths) == 3
    key = json.dumps([sample.data_hash, 5, 1, 0.05, SCORER_VERSION, sample.n_items])
    name = hashlib.sha256(key.encode()).hexdigest()[:24]
    assert board.reference_path(tmp_path, sample, 5, 1, 0.05).name == f"{name}.json"
