"""The leave-one-out physician reference and each labeller against its own reference, against
loops.

Oracles: the strict majority of the others counted by hand, scikit-learn's ``cohen_kappa_score``
per physician and slot (:func:`conftest.loo_loop`), a replicate as the statistic of the items
repeated by their count weights, and :func:`medqade.measures.reference_agreement.agreement` per
physician.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import physician_reference as phys
from medqade.measures import reference_agreement as agr
from medqade.measures.seeds import question_weights

from .conftest import CHECKED, RESAMPLES, TOL, close, loo_loop


@pytest.fixture(scope="module")
def loo(full: Release, core_labels: np.ndarray, core_weights: np.ndarray) -> agr.Agreement:
    return phys.leave_one_out(core_labels, full.roster.student_ids, core_weights)


# --- the leave-one-out physician reference ----------------------------------------------------


def test_loo_references_are_the_strict_majority_of_the_others(core_labels: np.ndarray) -> None:
    refs = phys.loo_references(core_labels)
    rng = np.random.default_rng(0)
    for _ in range(200):
        p, i, s = rng.integers(10), rng.integers(core_labels.shape[1]), rng.integers(5)
        others = [int(v) for q, v in enumerate(core_labels[:, i, s]) if q != p]
        r, f = others.count(vocab.RICHTIG_CODE), others.count(vocab.FALSCH_CODE)
        expected = 1 if r > f else 0 if f > r else -1
        assert refs[p, i, s] == expected


def test_leave_one_out_point_equals_loop(
    full: Release, core_labels: np.ndarray, loo: phys.Agreement
) -> None:
    macro_k, macro_p, slot_k, slot_p = loo_loop(core_labels)
    assert close(loo.kappa.value, macro_k)
    assert close(loo.pa.value, macro_p)
    assert close(loo.pabak.value, 2 * macro_p - 1)
    for s, name in enumerate(full.roster.student_ids):
        assert close(loo.slots[name].kappa.value, slot_k[s])
        assert close(loo.slots[name].pa.value, slot_p[s])
    assert 0.3 < loo.kappa.value < 0.95  # a physician panel that agrees, not a degenerate one


def test_leave_one_out_replicates_equal_loop_on_resampled_items(
    full: Release, core_labels: np.ndarray, core_weights: np.ndarray, loo: phys.Agreement
) -> None:
    assert loo.kappa.replicates is not None and loo.pa.replicates is not None
    assert loo.kappa.replicates.shape == (RESAMPLES,)
    for r in CHECKED:
        macro_k, macro_p, slot_k, slot_p = loo_loop(core_labels, core_weights[r])
        assert close(float(loo.kappa.replicates[r]), macro_k)
        assert close(float(loo.pa.replicates[r]), macro_p)
        for s, name in enumerate(full.roster.student_ids):
            k_reps = loo.slots[name].kappa.replicates
            p_reps = loo.slots[name].pa.replicates
            assert k_reps is not None and p_reps is not None
            assert close(float(k_reps[r]), slot_k[s])
            assert close(float(p_reps[r]), slot_p[s])


def test_leave_one_out_ci_is_percentile_of_its_replicates(loo: phys.Agreement) -> None:
    assert loo.kappa.replicates is not None
    low, high = np.nanpercentile(loo.kappa.replicates, [2.5, 97.5])
    assert (loo.kappa.low, loo.kappa.high) == pytest.approx((low, high), abs=TOL)
    assert loo.kappa.low < loo.kappa.value < loo.kappa.high


def test_leave_one_out_without_weights_has_no_interval(
    full: Release, core_labels: np.ndarray, loo: phys.Agreement
) -> None:
    plain = phys.leave_one_out(core_labels, full.roster.student_ids)
    assert plain.kappa.value == loo.kappa.value
    assert not plain.kappa.has_interval and plain.kappa.replicates is None


def test_per_rater_equals_agreement_per_physician(full: Release) -> None:
    """All physicians and resamples in one product give exactly :func:`agreement` per rater."""
    core = full.is_core
    labels = full.physician_labels[:, core]
    refs = phys.loo_references(labels)
    slots = full.roster.student_ids
    w = question_weights(int(core.sum()), RESAMPLES, 11)
    fast = phys.per_rater(labels, refs, slots, w)
    for p, got in enumerate(fast):
        want = agr.agreement(labels[p], refs[p], slots, w)
        for m in ("kappa", "pa"):
            a, b = got.metric(m), want.metric(m)
            assert a.value == b.value
            assert a.replicates is not None and b.replicates is not None
            assert np.array_equal(a.replicates, b.replicates, equal_nan=True)
        assert got.n == want.n
        assert [s.n for s in got.slots.values()] == [s.n for s in want.slots.values()]


def test_in_place_agreement_is_the_mean_over_raters_of_their_macro_values(full: Release) -> None:
    """Each rater's macro point and replicates are :func:`per_rater`'s; the agreement is their
    mean over raters, per slot the mean of that slot over raters."""
    core = full.is_core
    labels = agr.substantive(full.physician_labels[:, core])
    refs = phys.loo_references(labels)
    slots = full.roster.student_ids
    w = question_weights(int(core.sum()), RESAMPLES, 12)
    got = phys.in_place_agreement(labels, refs, slots, w)
    each = phys.per_rater(labels, refs, slots, w)
    assert got.replicates is not None
    for m in ("kappa", "pa"):
        points = np.array([a.metric(m).value for a in each])
        np.testing.assert_array_equal(got.points[m], points)
        reps = np.array([a.metric(m).replicates for a in each])
        np.testing.assert_allclose(got.replicates[m], reps, atol=TOL, rtol=0)
        assert close(got.agreement.metric(m).value, float(np.nanmean(points)))
        for name in slots:
            per_slot = [getattr(a.slots[name], m).value for a in each]
            assert close(getattr(got.agreement.slots[name], m).value, float(np.nanmean(per_slot)))
    assert got.agreement.n == sum(a.n for a in each)
    plain = phys.in_place_agreement(labels, refs, slots, None)
    assert plain.replicates is None and plain.agreement.kappa.value == got.agreement.kappa.value


def test_quiet_leave_one_out_is_leave_one_out_without_warnings() -> None:
    """Slot 1 has a single rating: no physician pair, NaN by design, and no RuntimeWarning."""
    r, f, m = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.MISSING_CODE
    labels = np.array(
        [
            [[r, r], [f, m], [r, m], [f, m]],
            [[r, m], [f, m], [f, m], [f, m]],
            [[r, m], [r, m], [r, m], [f, m]],
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = phys.quiet_leave_one_out(labels, ("a", "b"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loud = phys.leave_one_out(labels, ("a", "b"))
    assert np.isnan(quiet.slots["b"].kappa.value) and np.isnan(quiet.slots["b"].pa.value)
    assert quiet.kappa.value == pytest.approx(loud.kappa.value, nan_ok=True)
    assert quiet.pa.value == pytest.approx(loud.pa.value) and 0.0 < quiet.pa.value < 1.0
