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
        assert ranked.row.kappa == block["kappa"] and ranked.row.n == block["n"]
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
    assert math.isclose(ranked.row.accuracy, raw["accuracy_core"]["anchored"])


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
    assert row.tau == pytest.approx(oracle["tau"], abs=1e-12)  # type: ignore[union-attr]
    assert [row.tau_low, row.tau_high] == pytest.approx(oracle["tau_ci"], abs=1e-12)  # type: ignore[union-attr]
    old = judge_row(ScoreRecord.from_json(_stored("judge")), "core", "kappa", 0.05)
    assert old is not None and math.isnan(old.row.tau)  # type: ignore[union-attr]
