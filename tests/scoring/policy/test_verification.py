"""Verified means reproduced (:mod:`medqade.scoring.policy.verification`): the result of
``medqade verify``, where it is written, and the policy's rule that a record is marked verified
only with a passing verification of its labels."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from medqade.dataset.release import Release
from medqade.files.atomic import OutputRefused
from medqade.measures import REFERENCE_PA, rerun_agreement
from medqade.scoring.policy import policy
from medqade.scoring.policy.store import RateLimit, ResultsStore
from medqade.scoring.policy.verification import (
    BOUND,
    SELF_CONSISTENCY,
    Verification,
    read_verification,
    reference_of,
    results_folder_of,
    stored_verifications,
    verification_of,
    write_verification,
)
from medqade.scoring.record import ScoreRecord

from ..helpers import judge_rows, passing

ME = policy.Submitter("acct", scheme="test")
SETTINGS = policy.Settings(resamples=0)


def _record(behaviour: Any = None) -> ScoreRecord:
    obj: dict[str, Any] = {
        "id": "ab" * 32,
        "kind": "judge",
        "dataset": {"hash": "d" * 64},
        "submission": {"content_hash": "c" * 64},
    }
    if behaviour is not None:
        obj["behaviour"] = behaviour
    return ScoreRecord.from_json(obj)


def _found(changed: int) -> Any:
    stored = np.tile(np.array([1, 0, 1, 0, 2]), (10, 1))
    again = stored.copy()
    again[np.arange(changed), 0] = 2  # the first `changed` questions' first answer changed
    return rerun_agreement(stored, again, np.array([0] * 5 + [1] * 5), 300, 4)


def test_the_reference_is_the_records_self_consistency_else_the_bound() -> None:
    assert reference_of(_record()) == (REFERENCE_PA, BOUND)
    own = {"consistency": {"pa": 0.9, "not_informative": None}}
    assert reference_of(_record(own)) == (0.9, SELF_CONSISTENCY)
    withheld = {"consistency": {"pa": None, "not_informative": "deterministic"}}
    assert reference_of(_record(withheld)) == (REFERENCE_PA, BOUND)


def test_a_verification_passes_or_fails_by_the_upper_bound_and_reads_back() -> None:
    same = verification_of(
        _record(), _found(0), model="m", seed=3, question_ids=["a", "b"], resamples=300, log="x"
    )
    assert same.passed and same.pa == 1.0 and same.reference_source == BOUND
    assert same.kappa is not None and same.content_hash == "c" * 64
    changed = verification_of(
        _record(), _found(5), model="m", seed=3, question_ids=["a"], resamples=300, log=None
    )
    assert changed.pa == pytest.approx(0.9) and not changed.passed
    assert changed.pa_ci[1] is not None and changed.pa_ci[1] < REFERENCE_PA
    back = Verification.from_json(json.loads(json.dumps(changed.to_json())))
    assert back == changed
    assert "FAILED" in changed.line() and "PASSED" in same.line()
    lax = verification_of(
        _record({"consistency": {"pa": 0.85}}), _found(5), model="m", seed=3,
        question_ids=["a"], resamples=300, log=None,
    )  # fmt: skip
    assert lax.passed and lax.reference == 0.85  # a judge less consistent with itself
    with pytest.raises(ValueError, match="not a verification"):
        Verification.from_json({"format": "something else"})


def test_a_verification_is_written_beside_the_records_never_over_one(
    tmp_path: Path, sample_dir: Path
) -> None:
    v = passing("c" * 64)
    path = write_verification(tmp_path, v, b"the log")
    assert path == tmp_path / "verifications" / f"{v.record_id}-{v.seed}.json"
    assert read_verification(path) == v
    assert path.with_suffix(".eval").read_bytes() == b"the log"
    with pytest.raises(OutputRefused, match="never replaced"):
        write_verification(tmp_path, passing("c" * 64, passed=False), b"other")
    assert read_verification(path).passed  # the first stays as it was
    with pytest.raises(ValueError, match="inside"):
        write_verification(sample_dir, v, b"log")
    linked = tmp_path / "other"
    linked.mkdir()
    os.symlink(tmp_path / "verifications", linked / "verifications")
    with pytest.raises(OutputRefused, match="link"):
        write_verification(linked, v, b"log")
    assert results_folder_of(tmp_path / "records" / "x.json") == tmp_path
    assert results_folder_of(tmp_path / "x.json") is None


def test_stored_verifications_match_the_content_passing_first(tmp_path: Path) -> None:
    failed = passing("c" * 64, passed=False)
    write_verification(tmp_path, failed, b"")
    write_verification(tmp_path, Verification(**{**passing("c" * 64).__dict__, "seed": 2}), b"")
    write_verification(tmp_path, Verification(**{**passing("e" * 64).__dict__, "seed": 5}), b"")
    (tmp_path / "verifications" / "junk.json").write_text("{}")
    found = stored_verifications(tmp_path, "c" * 64)
    assert [v.passed for v in found] == [True, False]
    assert stored_verifications(tmp_path / "none", "c" * 64) == []


def _labels(release: Release) -> policy.Upload:
    frame = judge_rows(release, "gemma3:4b")
    label = frame.loc[0, "label"]
    frame.loc[0, "label"] = "Falsch" if label == "Richtig" else "Richtig"  # a judge of its own
    return policy.Upload(frame.to_csv(index=False).encode(), "mine.csv", ".csv")


def test_verified_needs_a_passing_verification_of_the_same_labels(
    sample: Release, tmp_path: Path
) -> None:
    upload = [_labels(sample)]
    scored = policy.submit(sample, upload, "judge", {}, SETTINGS)
    assert scored.submission is not None
    content = scored.submission.content_hash
    store = ResultsStore(tmp_path, RateLimit(0, 1.0))
    meta = {"name": "Mine", "verified": True}
    kw: dict[str, Any] = {"store": store, "submitter": ME}
    for given, why in (
        (None, "only when its labels were reproduced"),
        (passing(content, passed=False), "were not reproduced"),
        (passing("f" * 64), "made from other labels"),
    ):
        out = policy.submit(sample, upload, "judge", meta, SETTINGS, verification=given, **kw)
        assert not out.ok and why in out.message, out.message
        dry = policy.check(sample, upload, "judge", meta, SETTINGS, verification=given, **kw)
        assert not dry.ok and why in dry.message
    assert store.records() == []
    plain = policy.submit(sample, upload, "judge", meta, SETTINGS, verification=None)
    assert not plain.ok  # without a results folder too: the record would say verified
    ok = policy.submit(sample, upload, "judge", meta, SETTINGS, verification=passing(content), **kw)
    assert ok.ok and ok.record is not None, ok.message
    assert ok.record.meta is not None and ok.record.meta.verified is True
    unverified = policy.submit(sample, upload, "judge", {"name": "Mine"}, SETTINGS)
    assert unverified.ok  # nothing is asked of a record that does not claim it


def test_a_nan_kappa_is_written_as_null() -> None:
    stored = np.ones((4, 5), dtype=int)  # one label everywhere: kappa undefined
    found = rerun_agreement(stored, stored.copy(), np.zeros(4), 50, 1)
    assert math.isnan(found.kappa.value)
    v = verification_of(
        _record(), found, model="m", seed=1, question_ids=["a"], resamples=50, log=None
    )
    assert v.kappa is None and v.passed
    assert json.loads(json.dumps(v.to_json(), allow_nan=False))["kappa"] is None
