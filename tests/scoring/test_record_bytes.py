"""The typed record path writes the same JSON bytes as the dict path it replaced (issue 34):
a judge and an answers submission on the sample release, stored by a results folder, written
by ``medqade score --json``, and the reference rows' cache, compared with the files the
scorer wrote before the record was typed (``tests/fixtures/typed``)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from medqade.dataset.release import Release
from medqade.scoring.board.sources import cached_reference_records, reference_path
from medqade.scoring.metrics import records
from medqade.scoring.policy import policy
from medqade.scoring.policy.store import RateLimit, ResultsStore

from .helpers import answers_csv, judge_rows

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "typed"
"""Written by the dict-returning scorer (commit 6590a93) with the clocks fixed below; a change
that alters what a record holds on purpose rewrites them with ``MEDQADE_WRITE_GOLDEN=1`` (and
the diff of these files shows the change in review)."""

NOW = datetime(2026, 12, 5, 4, 0, 0, tzinfo=UTC)


def _uploads(sample: Release, kind: str) -> list[policy.Upload]:
    if kind == "judge":
        frame = judge_rows(sample, "gemma3:4b")
        frame.loc[0, "label"] = "Falsch" if frame.loc[0, "label"] == "Richtig" else "Richtig"
        return [policy.Upload(frame.to_csv(index=False).encode(), "j.csv", ".csv")]
    texts = [a if isinstance(a, str) else None for a in sample.answer_text[:, 0]]
    texts[0] = "eine andere Antwort"
    return [policy.Upload(answers_csv(sample, texts).encode(), "a.csv", ".csv")]


def written(sample: Release, folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The texts each writer writes now: the stored record files, ``--json`` and the cache."""
    monkeypatch.setattr(records, "utc_now", lambda: NOW)
    out: dict[str, str] = {}
    store = ResultsStore(folder, RateLimit(0, 1.0))
    for kind in ("judge", "answers"):
        outcome = policy.submit(
            sample,
            _uploads(sample, kind),
            kind,
            {"name": f"Typed {kind}", "notes": "Ärzte – ß", "decoding": {"temperature": 0}},
            policy.Settings(resamples=20),
            store=store,
            submitter=policy.Submitter("acct", scheme="test"),
            clock=lambda: NOW.timestamp(),
        )
        assert outcome.ok and outcome.record is not None, outcome.message
        rid = str(_id(outcome.record))
        out[f"{kind}.stored.json"] = (folder / "records" / f"{rid}.json").read_text("utf-8")
        scored = policy.submit(
            sample,
            _uploads(sample, kind),
            kind,
            {"name": f"Typed {kind}"},
            policy.Settings(resamples=20),
        )
        assert scored.record is not None
        out[f"{kind}.cli.json"] = json.dumps(_json(scored.record), ensure_ascii=False, indent=2)
    cached_reference_records(sample, folder, 0, 7, 0.05)
    out["reference.json"] = reference_path(folder, sample, 0, 7, 0.05).read_text("utf-8")
    return out


def _id(record: object) -> object:
    return record["id"] if isinstance(record, dict) else getattr(record, "id")  # noqa: B009


def _json(record: object) -> object:
    return record if isinstance(record, dict) else record.to_json()  # type: ignore[attr-defined]


def test_typed_records_write_the_bytes_of_the_dict_records(
    sample: Release, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = written(sample, tmp_path, monkeypatch)
    if os.environ.get("MEDQADE_WRITE_GOLDEN") == "1":  # a change of record content, on purpose
        for name, text in got.items():
            (GOLDEN / name).write_text(text, encoding="utf-8")
    assert sorted(got) == sorted(p.name for p in GOLDEN.glob("*.json"))
    for name, text in got.items():
        assert text == (GOLDEN / name).read_text(encoding="utf-8"), name
