"""The typed result record (:mod:`medqade.scoring.record.score_record`): stored JSON read and
written back byte-identical, so record ids never change; typed fields equal the JSON they came
from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medqade.dataset.release import Release
from medqade.scoring import record_id
from medqade.scoring.policy import policy
from medqade.scoring.policy.store import RateLimit, ResultsStore
from medqade.scoring.record.score_record import Agreement, ScoreRecord, read_record

from ..helpers import judge_rows, reference_json

STORED = Path(__file__).resolve().parents[2] / "fixtures" / "records"
"""Records a results folder stored (judge and answers, sample release, 20 resamples), kept
as written by the scorer and store before the record was typed."""


def store_text(record: dict[str, Any]) -> str:
    """A record file as :meth:`medqade.scoring.policy.store.ResultsStore.add` writes it."""
    return json.dumps(record, ensure_ascii=False, indent=1, allow_nan=True) + "\n"


def cli_text(record: dict[str, Any]) -> str:
    """A record as ``medqade score --json`` / ``--out`` writes it."""
    return json.dumps(record, ensure_ascii=False, indent=2)


def roundtrip(record: dict[str, Any]) -> dict[str, Any]:
    return ScoreRecord.from_json(record).to_json()


@pytest.mark.parametrize("path", sorted(STORED.glob("*.json")), ids=lambda p: p.stem[:8])
def test_stored_records_written_back_byte_identical(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    record = json.loads(text)
    assert store_text(roundtrip(record)) == text
    assert cli_text(roundtrip(record)) == cli_text(record)
    scored = {k: v for k, v in roundtrip(record).items() if k != "space"}  # added on storing
    assert record_id(scored) == record["id"] == path.stem


def test_fixture_holds_both_kinds_and_a_space_entry() -> None:
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(STORED.glob("*.json"))]
    assert sorted(r["kind"] for r in records) == ["answers", "judge"]
    assert all("space" in r and "behaviour" not in r for r in records)


def test_typed_fields_are_the_json_values() -> None:
    judge = next(
        json.loads(p.read_text(encoding="utf-8"))
        for p in STORED.glob("*.json")
        if '"kind": "judge"' in p.read_text(encoding="utf-8")
    )
    typed = ScoreRecord.from_json(judge)
    assert typed.id == judge["id"] and typed.kind == "judge"
    assert typed.meta is not None and typed.meta.name == judge["meta"]["name"] == typed.name
    assert typed.dataset is not None and typed.dataset.hash == judge["dataset"]["hash"]
    assert typed.scored_on(judge["dataset"]["hash"]) and not typed.scored_on("0" * 64)
    assert typed.core is not None and typed.core.kappa == judge["core"]["kappa"]
    assert typed.core.kappa_ci == tuple(judge["core"]["kappa_ci"])
    assert isinstance(typed.core.rated, Agreement)
    assert typed.core.rated.kappa == judge["core"]["rated"]["kappa"]
    assert typed.flags == tuple(judge["flags"])
    assert typed.space is not None and typed.space.uploads == tuple(judge["space"]["uploads"])
    assert typed.behaviour is None and typed.accuracy is None
    assert read_record(typed) is typed
    assert typed.core.slots == judge["core"]["slots"]  # a section kept as its JSON
    assert typed.by_tier == judge["by_tier"] and "by_tier" not in typed.extra


def test_fresh_records_of_every_source_roundtrip(sample: Release, tmp_path: Path) -> None:
    """Reference rows (paper evaluators, physicians, baselines, students) and a submission
    scored now, in the store's, the CLI's and the reference cache's formats."""
    refs = reference_json(sample, resamples=0)
    assert {r["meta"]["source"] for r in refs} >= {"paper", "physicians", "baseline"}
    for record in refs:
        assert store_text(roundtrip(record)) == store_text(record)
    assert json.dumps([roundtrip(r) for r in refs], ensure_ascii=False) == json.dumps(
        refs, ensure_ascii=False
    )
    frame = judge_rows(sample, "gemma3:4b")
    frame.loc[0, "label"] = "Falsch" if frame.loc[0, "label"] == "Richtig" else "Richtig"
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    out = policy.submit(
        sample,
        [policy.Upload(frame.to_csv(index=False).encode(), "j.csv", ".csv")],
        "judge",
        {"name": "Mine"},
        policy.Settings(resamples=10),
        store=store,
        submitter=policy.Submitter("acct"),
    )
    assert out.ok and out.record is not None
    path = tmp_path / "records" / f"{out.record.id}.json"
    text = path.read_text(encoding="utf-8")
    assert store_text(roundtrip(json.loads(text))) == text


def test_absent_null_and_unknown_keys_keep_their_place() -> None:
    """An older record without ``core_items`` or ``space``, a ``null`` block and a key this
    version does not know: written back as read, absent stays absent (``behaviour`` too)."""
    old = {
        "schema_version": 1,
        "id": "x",
        "kind": "judge",
        "meta": {"verified": False, "name": "Old"},
        "dataset": {"hash": "h", "synthetic": True, "version": None, "items": 3},
        "future_key": {"a": [1, 2]},
        "full": None,
        "core": {"kappa": 0.5, "kappa_ci": [None, None], "new_metric": 1},
        "flags": [],
        "warnings": [],
    }
    back = roundtrip(old)
    assert json.dumps(back) == json.dumps(old)
    typed = ScoreRecord.from_json(old)
    assert typed.full is None and "full" in typed.json_keys
    assert typed.dataset is not None and typed.dataset.core_items is None
    assert "core_items" not in back["dataset"] and "behaviour" not in back
    assert typed.extra == {"future_key": {"a": [1, 2]}}


def test_a_new_section_is_written_when_set() -> None:
    """The ``behaviour`` section: set on a record read without it, it is written (last)."""
    from dataclasses import replace

    typed = ScoreRecord.from_json({"id": "x", "kind": "judge", "flags": ["f"]})
    out = replace(typed, behaviour={"position_bias": 0.1}).to_json()
    assert list(out) == ["id", "kind", "flags", "behaviour"]
    assert out["behaviour"] == {"position_bias": 0.1}


def test_a_malformed_section_is_refused() -> None:
    with pytest.raises(TypeError, match="Agreement: expected a JSON object, got list"):
        ScoreRecord.from_json({"id": "x", "core": [1, 2]})


def test_leaderboard_and_summary_read_typed_and_json_records_alike(sample: Release) -> None:
    """The library reads the typed record: a board of typed records is the board of their
    JSON objects, and ``medqade score``'s summary is the same text."""
    import pandas as pd

    from medqade.scoring import leaderboard
    from medqade.scoring.record.summary_text import summary

    stored = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(STORED.glob("*.json"))]
    records = [*reference_json(sample, resamples=10), *stored]
    typed = [ScoreRecord.from_json(r) for r in records]
    for view in ("core", "full"):
        got, want = leaderboard(typed, view=view), leaderboard(records, view=view)
        for kind in ("judges", "models"):
            pd.testing.assert_frame_equal(got.to_frame(kind), want.to_frame(kind))
    for record, rec in zip(stored, typed[-len(stored) :], strict=True):
        assert summary(rec) == summary(ScoreRecord.from_json(json.loads(json.dumps(record))))
        assert ("kappa" in summary(rec)) == (record["kind"] == "judge")
