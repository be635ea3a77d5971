"""The ``contamination`` section reads and writes its JSON unchanged, and finds its scopes."""

from __future__ import annotations

import json

from medqade.scoring.record import ContaminationCheck, ScoreRecord

SECTION = {
    "rule": "judge's drop minus the physicians'",
    "p_value": 0.012,
    "alpha": 0.05,
    "flagged": True,
    "n_held_out": 1140,
    "scopes": [
        {
            "scope": "core",
            "judge_public": 0.71,
            "judge_public_ci": [0.65, 0.77],
            "excess": 0.12,
            "excess_ci": [0.04, None],
            "p_value": 0.006,
            "n_splits": 1000,
            "contamination": True,
            "n_public": 140,
            "n_held_out": 60,
            "a_later_key": {"kept": [1, 2]},
        },
        {"scope": "all", "excess": -0.01, "p_value": 0.6},
    ],
}


def test_the_section_round_trips_byte_for_byte() -> None:
    check = ContaminationCheck.from_json(SECTION)
    assert json.dumps(check.to_json()) == json.dumps(SECTION)
    record = ScoreRecord.from_json({"kind": "judge", "contamination": SECTION})
    assert record.contamination == check
    assert json.dumps(record.to_json()) == json.dumps({"kind": "judge", "contamination": SECTION})


def test_scopes_are_typed_and_found_by_name() -> None:
    check = ContaminationCheck.from_json(SECTION)
    core = check.scope("core")
    assert core is not None and core.excess_ci == (0.04, None) and core.n_held_out == 60
    assert check.scope("all") is not None and check.scope("extension") is None
    assert check.flagged is True and check["p_value"] == 0.012


def test_a_record_without_the_check_has_no_key() -> None:
    record = ScoreRecord.from_json({"kind": "judge"})
    assert record.contamination is None and "contamination" not in record.to_json()
