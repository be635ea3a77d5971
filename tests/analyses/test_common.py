"""What the RQ modules share (:mod:`medqade.analyses.common`): physician tiers, a proportion
with its Wilson interval, and values made ready for JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from medqade import stats, vocab
from medqade.analyses.common import Proportion, json_ready, physician_tiers


def test_tiers_come_from_the_physicians_mean_difficulty_only() -> None:
    difficulty = np.array([[0, 2, -1, 1], [0, 2, -1, 2], [-1, 2, -1, 1]], dtype=np.int8)
    tiers = physician_tiers(difficulty)
    means = [0.0, 2.0, math.nan, 4 / 3]
    np.testing.assert_array_equal(tiers, vocab.tier_of(means))
    assert tiers[2] == 0 and tiers[0] < tiers[3] <= tiers[1]


def test_proportion_with_its_wilson_interval() -> None:
    p = Proportion.of(7, 10)
    assert (p.correct, p.n, p.acc) == (7, 10, 0.7)
    assert p.ci == pytest.approx(stats.wilson_interval(7.0, 10.0))
    assert p.to_dict() == {"correct": 7, "n": 10, "acc": 0.7, "ci": [p.low, p.high]}
    none = Proportion.of(0, 0)
    assert math.isnan(none.acc) and none.n == 0


def test_json_ready_turns_nan_and_numpy_into_json() -> None:
    value = {
        1: np.float64(math.nan),
        "a": [np.int64(3), np.bool_(True), (math.inf, 0.5)],
        "b": np.array([1.5, np.nan]),
    }
    ready = json_ready(value)
    assert ready == {"1": None, "a": [3, True, [None, 0.5]], "b": [1.5, None]}
    assert json.loads(json.dumps(ready, allow_nan=False)) == ready
    assert type(ready["a"][0]) is int and type(ready["a"][1]) is bool
