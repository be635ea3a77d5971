"""Resolving a side of a comparison: a closed set of ids, never a path, never quoting a file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.scoring import parse_submission
from medqade.scoring.board.compare_sides import (
    MAX_TOKEN,
    PHYSICIANS,
    CompareError,
    check_token,
    resolve,
    submission_side,
)
from medqade.scoring.metrics.baselines import BASELINES
from medqade.scoring.record.score_record import ScoreRecord

from ..helpers import codes_to_rows, judge_rows

A, B = "gemini-2.5-flash", "gemma3:4b"
SECRET = "hf_NEVERshownSECRET0123456789"


@pytest.mark.parametrize("case", ["absolute", "traversal", "proc_environ"])
def test_resolve_path_refused(
    full: Release,
    write: Callable[[str, str | bytes], Path],
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    """A token naming a file, even a valid judge file, is an unknown id: never opened."""
    path = write("judge.csv", judge_rows(full, B).to_csv(index=False)).resolve()
    token = {
        "absolute": str(path),
        "traversal": "../" * 12 + str(path).lstrip("/"),  # under the 200-character cap
        "proc_environ": "/proc/self/environ",
    }[case]
    monkeypatch.setenv("HF_TOKEN", SECRET)
    with pytest.raises(CompareError, match="not a paper evaluator") as info:
        resolve(full, token)
    assert SECRET not in str(info.value) and "file" not in str(info.value)


def test_resolve_long_token_refused(full: Release) -> None:
    with pytest.raises(CompareError, match="at most 200 characters, got 60,000") as info:
        resolve(full, "a" * 60_000)
    assert "aaaa" not in str(info.value)


def test_resolve_stored_upload_content_never_quoted(full: Release, tmp_path: Path) -> None:
    """A stored record is compared through its upload; one that does not parse is refused
    without a word of its content (column names included)."""
    upload = tmp_path / "0123abcd.csv"
    upload.write_text(f"HF_TOKEN={SECRET}\nOTHER=1\n", encoding="utf-8")
    record = {"id": "0123abcd" * 4, "kind": "judge", "meta": {"name": "Stored judge"}}
    with pytest.raises(CompareError, match="stored upload of record 0123abcd") as info:
        resolve(full, "0123abcd", [ScoreRecord.from_json(record)], {str(record["id"]): upload})
    assert SECRET not in str(info.value) and "HF_TOKEN" not in str(info.value)


def test_a_stored_record_resolves_by_its_typed_fields(sample: Release) -> None:
    """A stored record named by its id: an answers record is refused by name, a judge
    record without its upload says so, a physicians row is the physicians."""
    stored = Path(__file__).resolve().parents[2] / "fixtures" / "records"
    objects = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(stored.glob("*.json"))]
    records = [ScoreRecord.from_json(r) for r in objects]
    by_kind = {r["kind"]: r for r in objects}
    answers, judge = by_kind["answers"], by_kind["judge"]
    with pytest.raises(CompareError, match=r"\(Fixture model\) is a model's answers, not a judge"):
        resolve(sample, answers["id"][:10], records)
    with pytest.raises(CompareError, match=r"\(Fixture judge\) has no stored upload"):
        resolve(sample, judge["id"], records, {})
    physicians = {**judge, "id": "ab" * 32, "meta": {"source": "physicians"}}
    side = resolve(sample, physicians["id"], [ScoreRecord.from_json(physicians)])
    assert side.source == "physicians" and side.name == ("ab" * 32)[:12]


def test_check_token_strips_and_caps() -> None:
    assert check_token("  physicians \n") == "physicians"
    assert check_token("x" * MAX_TOKEN) == "x" * MAX_TOKEN
    with pytest.raises(CompareError, match=f"at most {MAX_TOKEN} characters, got 201"):
        check_token("x" * (MAX_TOKEN + 1))


def test_resolve_names_each_kind_of_side(full: Release) -> None:
    """An evaluator id gives its own labels; the physicians have none; a baseline is found by
    id or name, whatever the case."""
    k = full.roster.evaluator_ids.index(A)
    side = resolve(full, A)
    assert side.source == "paper" and side.name == full.roster.name(A)
    assert side.labels is not None and np.array_equal(side.labels, full.evaluator_labels[k])
    phys = resolve(full, " Physicians ")
    assert (
        phys.is_physicians
        and phys.source == PHYSICIANS
        and phys.to_dict()["token"] == ("Physicians")
    )
    base = BASELINES[0]
    by_id, by_name = resolve(full, base.id.upper()), resolve(full, base.name.lower())
    assert by_id.source == by_name.source == "baseline" and by_id.name == by_name.name
    assert by_id.labels is not None and by_name.labels is not None
    assert np.array_equal(by_id.labels, by_name.labels)


def test_submission_side_marks_absent_slots_missing(full: Release) -> None:
    """A parsed file with rows for the core only: the other items' slots are MISSING and not
    present."""
    k = full.roster.evaluator_ids.index(B)
    rows = codes_to_rows(full, full.evaluator_labels[k], np.flatnonzero(full.is_core))
    sub = parse_submission(rows.encode(), "j.csv", full)
    side = submission_side("mine", sub, "mine.csv")
    assert side.source == "submission" and side.present is not None and side.labels is not None
    assert not side.present[~full.is_core].any()
    assert (side.labels[~full.is_core] == vocab.MISSING_CODE).all()
    core = full.is_core
    assert np.array_equal(side.labels[core], full.evaluator_labels[k][core])
