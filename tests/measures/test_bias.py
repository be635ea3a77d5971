"""Bias significance is decided on unrounded bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from medqade.measures.bias import SELF, Bias
from medqade.measures.estimate import Estimate


def _bias(low: float, high: float, value: float = 0.01) -> Bias:
    return Bias(SELF, "a", "a", Estimate(value, low, high), n=10)


@pytest.mark.parametrize(
    ("low", "high", "significant"),
    [
        (1e-6, 0.05, True),  # rounds to 0.000 but lies above 0
        (-0.05, -1e-6, True),  # rounds to -0.000 but lies below 0
        (0.0, 0.05, False),  # touches 0
        (-0.05, 0.0, False),
        (-1e-6, 1e-6, False),
        (math.nan, 0.05, False),
        (0.01, math.nan, False),
    ],
)
def test_significant_iff_interval_excludes_zero(low: float, high: float, significant: bool) -> None:
    b = _bias(low, high)
    assert b.significant is significant
    assert b.to_dict()["significant"] is significant


def test_significant_from_replicates_unrounded() -> None:
    # every replicate positive but below 5e-4: the rounded CI reads [0.000, 0.000]
    reps = np.linspace(1e-6, 4e-4, 200)
    b = Bias(SELF, "a", "a", Estimate.from_replicates(2e-4, reps), n=200)
    assert f"{b.delta.low:.3f}" == "0.000"
    assert b.significant
    shifted = Bias(SELF, "a", "a", Estimate.from_replicates(2e-4, reps - 2e-4), n=200)
    assert not shifted.significant
