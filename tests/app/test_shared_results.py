"""Issue 38: two Spaces and ``medqade rescore`` on one results folder. Each store write takes
the folder's lock and re-reads what the others stored (:mod:`medqade.scoring.policy.store`): the
same file is stored once, the rate limit holds across them, and each board shows every
record at its next refresh, without a restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.dataset.release import Release
from medqade.scoring import record_id

from .helpers import judge_variant

SRC = Path(__file__).resolve().parents[2] / "src"
RESAMPLES = 10


def _space(release: Release, results: Path) -> SpaceState:
    config = SpaceConfig(results_dir=results, rate_limit=2, resamples=RESAMPLES)
    return SpaceState(release, results, config, background=False, analyses=False)


def _to_another_release(results: Path, rid: str) -> str:
    """Rewrite the stored record ``rid`` as if scored on another release; its new id."""
    path = results / "records" / f"{rid}.json"
    other = json.loads(path.read_text(encoding="utf-8"))
    other["dataset"]["hash"] = "0" * 64
    space = other.pop("space")
    other.pop("id")
    other["id"] = record_id(other)
    other["space"] = space
    path.unlink()
    (results / "records" / f"{other['id']}.json").write_text(json.dumps(other), encoding="utf-8")
    return str(other["id"])


def _board_ids(state: SpaceState) -> set[str]:
    return {str(r.id) for r in state.boards("core").board.judges}


def test_two_spaces_and_rescore_on_one_folder(
    sample_release: Release, built_sample: Path, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    files = []
    for k in range(4):
        files.append(tmp_path / f"judge{k}.csv")
        judge_variant(sample_release, k).to_csv(files[-1], index=False)
    a, b = _space(sample_release, results), _space(sample_release, results)
    before = _board_ids(b)  # b drew its board before a stored anything
    first = a.submit(files[0], "judge", {"name": "Judge 0"}, "alice")
    assert first.ok and first.record is not None, first.message
    # the same file sent to the other Space: no second record under one key
    again = b.submit(files[0], "judge", {"name": "Judge 0, again"}, "alice")
    assert not again.ok and "the same content was submitted before" in again.message
    # a rate limit of 2 counts what both Spaces stored
    second = b.submit(files[1], "judge", {"name": "Judge 1"}, "alice")
    assert second.ok and second.record is not None, second.message
    third = a.submit(files[2], "judge", {"name": "Judge 2"}, "alice")
    assert not third.ok and "rate limit: 2 submissions per 7 days" in third.message
    stored = {str(first.record.id), str(second.record.id)}
    assert not stored & before
    for state in (a, b):  # each board complete at its next refresh, Browse too
        assert stored <= _board_ids(state)
        assert any("Judge 1" in c for c in state.browse.judge_choices())
    # medqade rescore, a separate process, stores a record of another release again
    other = b.submit(files[3], "judge", {"name": "Judge 3"}, "bob")
    assert other.ok and other.record is not None, other.message
    foreign = _to_another_release(results, str(other.record.id))
    argv = ["rescore", "--data", str(built_sample), "--results", str(results)]
    run = subprocess.run(
        [sys.executable, "-m", "medqade", *argv, "--resamples", str(RESAMPLES)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert f"{foreign[:16]}: scored again as record" in run.stdout
    new = run.stdout.rsplit("scored again as record ", 1)[1].strip()
    for state in (a, b):
        ids = _board_ids(state)
        assert stored <= ids and foreign not in ids
        assert any(i.startswith(new) for i in ids), (new, ids)
    records = [json.loads(p.read_text()) for p in (results / "records").glob("*.json")]
    keys = [r["space"]["key"] for r in records if r["dataset"]["hash"] != "0" * 64]
    assert len(keys) == len(set(keys)) == 3  # no key stored twice on this release
