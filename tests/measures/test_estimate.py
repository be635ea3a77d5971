"""Point estimates with their bootstrap intervals (:mod:`medqade.measures.estimate`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from medqade.measures.estimate import Estimate, pabak_of, proportion, ratio


def test_an_estimate_without_a_bootstrap_has_no_interval() -> None:
    e = Estimate.from_replicates(0.4, None)
    assert e.value == 0.4 and e.defined and not e.has_interval
    assert math.isnan(e.low) and math.isnan(e.high) and e.replicates is None
    assert not e.excludes_zero()
    assert not Estimate(math.nan, 0.0, 1.0).defined


def test_the_interval_is_the_percentile_interval_of_the_replicates() -> None:
    reps = np.linspace(-1.0, 3.0, 401)
    e = Estimate.from_replicates(1.0, reps)
    assert e.ci == pytest.approx((np.percentile(reps, 2.5), np.percentile(reps, 97.5)))
    assert e.has_interval and not e.excludes_zero() and e.n_undefined == 0
    above = Estimate.from_replicates(1.0, reps + 2.0)
    assert above.excludes_zero()
    with_nan = Estimate.from_replicates(1.0, np.append(reps, [np.nan, np.nan]))
    assert with_nan.n_undefined == 2 and with_nan.ci == pytest.approx(e.ci)
    assert e.to_dict("kappa") == {"kappa": 1.0, "kappa_ci": [e.low, e.high]}


def test_pabak_is_a_linear_map_of_pa_with_its_interval_and_replicates() -> None:
    pa = Estimate.from_replicates(0.75, np.array([0.6, 0.7, 0.8, 0.9]))
    pabak = pabak_of(pa)
    assert pabak.value == pytest.approx(0.5)
    assert pabak.ci == pytest.approx((2 * pa.low - 1, 2 * pa.high - 1))
    assert pabak.replicates is not None
    np.testing.assert_allclose(pabak.replicates, [0.2, 0.4, 0.6, 0.8])


def test_ratio_and_proportion() -> None:
    np.testing.assert_array_equal(ratio([1, 2], [4, 0]), [0.25, np.nan])
    hits, counted = np.array([1, 0, 1, 0]), np.array([1, 1, 1, 0])
    assert proportion(hits, counted, None).value == pytest.approx(2 / 3)
    weights = np.array([[1, 1, 1, 1], [2, 0, 1, 1], [0, 0, 0, 4]])
    share = proportion(hits, counted, weights)
    assert share.replicates is not None
    np.testing.assert_allclose(share.replicates[:2], [2 / 3, 1.0])
    assert share.n_undefined == 1  # the third resample counts no item
