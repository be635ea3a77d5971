"""The alt-test (:mod:`medqade.measures.aat`): does a judge align with the physicians at least
as well as each physician does, up to the advantage epsilon."""

from __future__ import annotations

import math

import numpy as np
import pytest

from medqade.measures.aat import EPSILON, FDR, AltTest, alt_test

RNG = np.random.default_rng(7)
TRUTH = RNG.integers(0, 2, size=(80, 5))


def _physicians(n: int = 4, noise: float = 0.15) -> np.ndarray:
    flips = RNG.random((n, *TRUTH.shape)) < noise
    return np.where(flips, 1 - TRUTH[None], TRUTH[None]).astype(np.int64)


def test_a_judge_that_knows_the_answers_passes_and_its_opposite_fails() -> None:
    phys = _physicians()
    good = alt_test(TRUTH, phys)
    assert (good.epsilon, good.q, good.n_items) == (EPSILON, FDR, 80)
    assert len(good.rho_f) == len(good.pvalues) == len(good.rejected) == 4
    assert good.passed and good.winning_rate == 1.0 and good.rho > 0.5
    bad = alt_test(1 - TRUTH, phys)
    assert not bad.passed and bad.winning_rate == 0.0 and bad.rho < 0.1


def test_to_dict_has_one_entry_per_physician() -> None:
    result = alt_test(TRUTH, _physicians(3))
    d = result.to_dict()
    assert list(d) == ["epsilon", "q", "winning_rate", "passed", "rho", "per_physician", "n_items"]
    assert [p["rejected"] for p in d["per_physician"]] == list(result.rejected)
    assert d["winning_rate"] == pytest.approx(np.mean(result.rejected))


def test_no_physician_means_no_rate() -> None:
    empty = AltTest(EPSILON, FDR, (), (), (), (), 0)
    assert math.isnan(empty.winning_rate) and math.isnan(empty.rho) and not empty.passed
