"""Label codes, means over slots, 2x2 counts and the agreement types, by hand and against
scikit-learn (``cohen_kappa_score`` on the labels the counts were taken from) and numpy's
percentiles."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.measures import slots

R, F, A, M = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, 2, vocab.MISSING_CODE


def test_substantive_keeps_only_richtig_and_falsch() -> None:
    got = slots.substantive(np.array([R, F, A, M, 7], dtype=np.int8))
    assert got.tolist() == [R, F, -1, -1, -1] and got.dtype == np.int64


def test_penalised_by_hand() -> None:
    labels = np.array([[1, 2, -1, 0, 2]])
    ref = np.array([[1, 1, 0, 0, -1]])
    assert slots.penalised(labels, ref).tolist() == [[1, 0, 1, 0, -1]]


def test_matched_keeps_the_reference_only_where_the_rater_labelled() -> None:
    reference = np.array([R, F, R, M, F])
    rater = np.array([F, A, R, R, M])
    assert slots.matched(reference, rater).tolist() == [R, -1, R, -1, -1]


def test_pa_kappa_of_counts_equals_sklearn() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        lab = rng.integers(0, 2, size=40)
        ref = np.where(rng.random(40) < 0.7, lab, 1 - lab)
        counts = np.bincount(lab * 2 + ref, minlength=4).astype(np.float64)
        pa, kappa, n = slots.pa_kappa(counts)
        assert n == 40 and pa == pytest.approx(np.mean(lab == ref), abs=1e-12)
        assert kappa == pytest.approx(cohen_kappa_score(lab, ref), abs=1e-12)


def test_pa_kappa_is_undefined_without_answers_or_chance_one() -> None:
    pa, kappa, n = slots.pa_kappa(np.array([[0.0, 0, 0, 0], [1, 0, 0, 0], [3, 0, 0, 0]]))
    assert n.tolist() == [0, 1, 3]
    assert math.isnan(pa[0]) and pa[1:].tolist() == [1.0, 1.0]
    assert np.isnan(kappa).all()  # n = 0, n < 2, and chance agreement 1


def test_physician_mean_averages_axis_zero_skipping_undefined() -> None:
    x = np.array([[0.2, math.nan], [0.4, math.nan], [math.nan, math.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = slots.physician_mean(x)
    assert got[0] == pytest.approx(0.3) and math.isnan(got[1])


def test_from_slots_is_the_macro_mean_with_percentile_intervals() -> None:
    rng = np.random.default_rng(5)
    pa = np.array([0.8, 0.9, 0.7])
    kappa = np.array([0.5, math.nan, 0.3])
    reps = (rng.random((50, 3)), rng.random((50, 3)))
    got = slots.from_slots(("a", "b", "c"), pa, kappa, np.array([10.0, 11, 12]), reps, n_items=4)
    assert got.pa.value == pytest.approx(0.8) and got.kappa.value == pytest.approx(0.4)
    assert got.n == 33 and got.n_items == 4 and [s.n for s in got.slots.values()] == [10, 11, 12]
    macro_kappa = reps[1][:, [0, 2]].mean(axis=1)  # the point leaves slot b undefined
    assert got.kappa.replicates is not None
    np.testing.assert_allclose(got.kappa.replicates, macro_kappa, atol=1e-12)
    low, high = np.percentile(macro_kappa, [2.5, 97.5])
    assert (got.kappa.low, got.kappa.high) == pytest.approx((low, high), abs=1e-12)
    assert got.slots["c"].pa.replicates is not None
    np.testing.assert_array_equal(got.slots["c"].pa.replicates, reps[0][:, 2])
    plain = slots.from_slots(("a", "b", "c"), pa, kappa, np.array([1.0, 1, 1]), None)
    assert not plain.kappa.has_interval and plain.n_items is None


def test_agreement_metric_and_dict() -> None:
    got = slots.from_slots(("a",), np.array([0.9]), np.array([0.6]), np.array([5.0]), None, 3)
    assert got.metric("pabak").value == pytest.approx(0.8)
    with pytest.raises(ValueError, match="metric must be one of kappa, pa, pabak"):
        got.metric("ac1")
    out = got.to_dict()
    assert out["kappa"] == pytest.approx(0.6) and out["pabak"] == pytest.approx(0.8)
    assert out["n"] == 5 and out["n_items"] == 3 and set(out["slots"]) == {"a"}
    assert out["slots"]["a"]["n"] == 5 and slots.METRICS == ("kappa", "pa", "pabak")


# --- the macro mean over slots is strict (issue 24) -------------------------------------------


def test_slot_mean_averages_the_point_estimates_slots_in_every_replicate() -> None:
    x = np.array([[0.2, 0.4, 0.6], [0.2, math.nan, 0.6], [math.nan] * 3])
    strict = slots.slot_mean(x)  # every slot averaged: undefined when any is
    assert strict[0] == pytest.approx(0.4) and math.isnan(strict[1]) and math.isnan(strict[2])
    point = np.array([0.3, math.nan, 0.5])  # the point estimate leaves slot 1 undefined
    assert slots.slot_mean(point, point) == pytest.approx(0.4)
    reps = np.array([[0.2, 0.9, 0.6], [0.2, math.nan, 0.6], [math.nan, 0.1, 0.6]])
    got = slots.slot_mean(reps, point)  # over slots 0 and 2 only, in every replicate
    assert got[:2] == pytest.approx([0.4, 0.4]) and math.isnan(got[2])
    loose = slots.mean_defined(x)  # the mean over physicians still skips an undefined one
    assert loose[:2] == pytest.approx([0.4, 0.4]) and math.isnan(loose[2])
