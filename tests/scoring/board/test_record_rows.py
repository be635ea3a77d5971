"""One record as its board row (:mod:`medqade.scoring.board.record_rows`): status, bootstrap
settings, whether it is shown, and the row's numbers read from the record's own JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from medqade.dataset.release import Release
from medqade.measures import seeds
from medqade.scoring import parse_submission, score
from medqade.scoring.board import Interval
from medqade.scoring.board.record_rows import (
    STALE,
    VIEWS,
    judge_row,
    model_row,
    on_board,
    settings_of,
    status,
)
from medqade.scoring.intake.settings import Settings
from medqade.scoring.metrics.records import SCHEMA_VERSION
from medqade.scoring.record.score_record import ScoreRecord

from ..helpers import codes_to_rows, fidelity_oracle

RECORDS = Path(__file__).resolve().parents[2] / "fixtures" / "records"


def _stored(kind: str) -> dict[str, Any]:
    for path in sorted(RECORDS.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw["kind"] == kind:
            return dict(raw) | {"schema_version": SCHEMA_VERSION}  # fresh, not stale
    raise AssertionError(kind)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, "unverified"),
        ({"schema_version": SCHEMA_VERSION - 1}, STALE),
        ({"flags": ["physician_reference"]}, "reference"),
        ({"flags": ["above_physician_ceiling"]}, "above_physician_ceiling"),
        ({"flags": ["partial_coverage"]}, "partial"),
    ],
)
def test_status_in_order_of_precedence(change: dict[str, Any], expected: str) -> None:
    raw = _stored("judge") | change
    assert status(ScoreRecord.from_json(raw)) == expected


def test_a_verified_record_is_verified() -> None:
    raw = _stored("judge")
    raw["meta"] = {**raw["meta"], "verified": True}
    assert status(ScoreRecord.from_json(raw)) == "verified"


def test_settings_of_needs_resamples_and_a_seed() -> None:
    raw = _stored("judge")
    assert settings_of(ScoreRecord.from_json(raw)) == (20, 20260101)
    for settings in ({"resamples": 0, "seed": 1}, {"resamples": 5}, {}):
        assert settings_of(ScoreRecord.from_json(raw | {"settings": settings})) is None


def test_judge_row_reads_the_views_block() -> None:
    raw = _stored("judge")
    record = ScoreRecord.from_json(raw)
    assert on_board(record)
    for view in VIEWS:
        ranked = judge_row(record, view, "kappa", 0.05)
        assert ranked is not None
        block = raw[view]
        assert ranked.key == block["kappa"] and ranked.settings == (20, 20260101)
        assert ranked.row.kappa == Interval(block["kappa"], *block["kappa_ci"])
        assert ranked.row.n == block["n"]
    assert model_row(record, "core") is not None or record.accuracy_core is None


def test_a_judge_without_blocks_is_not_on_the_board() -> None:
    raw = {k: v for k, v in _stored("judge").items() if k not in ("core", "full")}
    record = ScoreRecord.from_json(raw)
    assert not on_board(record)
    assert all(judge_row(record, v, "kappa", 0.05) is None for v in VIEWS)


def test_model_row_reads_anchored_accuracy() -> None:
    raw = _stored("answers")
    record = ScoreRecord.from_json(raw)
    assert not on_board(record)
    ranked = model_row(record, "core")
    assert ranked is not None
    assert ranked.key == raw["accuracy_core"]["anchored"]
    block = raw["accuracy_core"]
    assert ranked.row.accuracy == Interval(block["anchored"], *block["ci"])
    assert (ranked.row.lower.value, ranked.row.lower.low) == (block["lower"], block["lower_ci"][0])
    assert (ranked.row.upper.value, ranked.row.upper.high) == (block["upper"], block["upper_ci"][1])
    tiers = [math.nan if c is None else c.get("anchored", math.nan) for c in block["by_tier"]]
    assert len(ranked.row.tiers) == len(tiers) and all(
        math.isclose(a, b) or (math.isnan(a) and math.isnan(b))
        for a, b in zip(ranked.row.tiers, tiers, strict=True)
    )
    assert math.isnan(ranked.row.exact_match)  # no exact match was anchored
    assert ranked.row.no_match == block["by_lexical"]["no_match"]["anchored"]


def test_a_row_carries_what_the_space_shows_of_its_record() -> None:
    """The badge's verified status and the organisation travel with the row (the Space no
    longer goes back to the record by id)."""
    raw = _stored("judge")
    raw["meta"] = {**raw["meta"], "verified": True, "organisation": "Klinik <X>"}
    ranked = judge_row(ScoreRecord.from_json(raw), "core", "kappa", 0.05)
    assert ranked is not None
    assert ranked.row.verified is True and ranked.row.organisation == "Klinik <X>"
    assert "organisation" not in ranked.row.to_json()
    plain = judge_row(ScoreRecord.from_json(_stored("judge")), "core", "kappa", 0.05)
    assert plain is not None and plain.row.verified is False


def test_n_rated_is_the_count_of_the_rows_scope() -> None:
    """``n`` counts every resolved answer of the view; the agreement when rated rests on the
    answers the judge labelled, counted by the view's own ``rated`` block."""
    raw = {"kind": "judge", "core": {"n": 983, "rated": {"n": 165}}, "full": {"rated": {"n": 7}}}
    record = ScoreRecord.from_json(raw)
    rows = {v: judge_row(record, v, "kappa", 0.05) for v in VIEWS}
    assert rows["core"] is not None and rows["full"] is not None
    assert (rows["core"].row.n, rows["core"].row.n_rated, rows["full"].row.n_rated) == (983, 165, 7)
    bare = ScoreRecord.from_json({"kind": "judge", "core": {"n": 3}})
    plain = judge_row(bare, "core", "kappa", 0.0)
    assert plain is not None and plain.row.n_rated is None


def test_the_tau_column_is_the_record_s_ranking_fidelity(sample: Release) -> None:
    """Kendall's tau-b of the row equals scipy's on the students' accuracies, its interval an
    explicit loop over the record's resampled questions; older records show NaN."""
    codes = np.array(sample.evaluator_labels[2], dtype=np.int8)
    sub = parse_submission(codes_to_rows(sample, codes).encode(), "j.csv", sample)
    record = score(sample, sub, settings=Settings(resamples=30, seed=9))
    ranked = judge_row(record, "full", "kappa", 0.05)
    assert ranked is not None
    row = ranked.row
    w = seeds.question_weights(sample.n_items, 30, 9, seeds.STREAM_ALL)
    oracle = fidelity_oracle(codes, sample.consensus, w)
    assert row.tau.value == pytest.approx(oracle["tau"], abs=1e-12)
    assert [row.tau.low, row.tau.high] == pytest.approx(oracle["tau_ci"], abs=1e-12)
    old = judge_row(ScoreRecord.from_json(_stored("judge")), "core", "kappa", 0.05)
    assert old is not None and math.isnan(old.row.tau.value)
