"""A record's stored bootstrap replicates (:mod:`medqade.scoring.record.replicates`): encoded
losslessly, NaN kept, and a malformed block read as none."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest

from medqade.measures.estimate import Estimate
from medqade.scoring.record.replicates import decode, encode, of_block, of_record, section


def test_encode_decode_round_trip_through_json() -> None:
    values = np.array([0.25, -1.0, math.nan, 1e-300, 0.1 + 0.2])
    block = json.loads(json.dumps(encode(values).to_json()))
    assert block["dtype"] == "<f8" and block["n"] == 5
    np.testing.assert_array_equal(decode(block), values)
    with pytest.raises(ValueError, match="one-dimensional, got shape"):
        encode(np.zeros((2, 2)))


@pytest.mark.parametrize(
    "block",
    [
        None,
        [],
        {"dtype": "<f4", "n": 1, "base64": base64.b64encode(b"\0" * 8).decode()},
        {"dtype": "<f8", "n": True, "base64": base64.b64encode(b"\0" * 8).decode()},
        {"dtype": "<f8", "n": 0, "base64": ""},
        {"dtype": "<f8", "n": 2, "base64": base64.b64encode(b"\0" * 8).decode()},
        {"dtype": "<f8", "n": 1, "base64": "not base64!"},
    ],
)
def test_a_malformed_block_is_none(block: object) -> None:
    assert decode(block) is None


def test_section_and_reading_it_back() -> None:
    kappa = Estimate.from_replicates(0.5, np.array([0.4, 0.5, 0.6]))
    no_interval = Estimate.from_replicates(0.9, None)
    estimates = {"core": {"kappa": kappa, "pa": no_interval, "pabak": None}, "full": None}
    assert section(estimates, 0, 7) is None
    stored = section(estimates, 3, 7)
    assert stored is not None
    assert set(stored) == {"resamples", "seed", "core"} and set(stored["core"]) == {"kappa"}
    record = {"replicates": json.loads(json.dumps(stored.to_json()))}
    np.testing.assert_array_equal(of_record(record, "core", "kappa"), [0.4, 0.5, 0.6])
    assert of_record(record, "core", "pa") is None and of_record(record, "full", "kappa") is None
    assert of_record({}, "core", "kappa") is None and of_block("x", "core", "kappa") is None
