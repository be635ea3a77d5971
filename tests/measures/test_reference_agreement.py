"""Agreement with a reference, item groups, several labellers and votes, against loops.

Oracles: scikit-learn's ``cohen_kappa_score`` on the pairable answers, a bootstrap replicate as
the statistic of the items repeated by their count weights (``np.repeat``), plain means.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import reference_agreement as agr
from medqade.measures.seeds import question_weights

from .conftest import CHECKED, RESAMPLES, TOL, close, kappa_pa, loo_loop, nanmean

# --- agreement of one labeller -----------------------------------------------------------------


def test_agreement_equals_sklearn_per_slot_and_macro(full: Release) -> None:
    core = full.is_core
    labels = full.evaluator_labels[0, core]
    reference = full.consensus[core]
    w = question_weights(int(core.sum()), RESAMPLES, seed=6)
    got = agr.agreement(labels, reference, full.roster.student_ids, w)
    ks, ps = [], []
    for s, name in enumerate(full.roster.student_ids):
        k, p = kappa_pa(labels[:, s], reference[:, s])
        ks.append(k)
        ps.append(p)
        assert close(got.slots[name].kappa.value, k)
        assert close(got.slots[name].pa.value, p)
        reps = got.slots[name].pa.replicates
        assert reps is not None
        for r in CHECKED:
            assert close(float(reps[r]), kappa_pa(labels[:, s], reference[:, s], w[r])[1])
    assert close(got.kappa.value, nanmean(ks))
    assert close(got.pa.value, nanmean(ps))
    assert got.n == sum(
        int((np.isin(labels[:, s], (0, 1)) & np.isin(reference[:, s], (0, 1))).sum())
        for s in range(5)
    )


# --- item groups -------------------------------------------------------------------------------


def _groups(full: Release, items: np.ndarray) -> dict[str, np.ndarray]:
    tiers = full.tier[items]
    out = {f"tier{t}": tiers == t for t in vocab.TIERS}
    out["none"] = np.zeros(tiers.shape, dtype=bool)
    return out


def _same(a: agr.Agreement, b: agr.Agreement, slots: bool = True) -> None:
    pairs = [(a.kappa, b.kappa), (a.pa, b.pa), (a.pabak, b.pabak)]
    if slots:
        for name in a.slots:
            pairs += [
                (a.slots[name].kappa, b.slots[name].kappa),
                (a.slots[name].pa, b.slots[name].pa),
            ]
            assert a.slots[name].n == b.slots[name].n
    for x, y in pairs:
        assert close(x.value, y.value)
        assert close(x.low, y.low) and close(x.high, y.high)
        assert x.replicates is not None and y.replicates is not None
        np.testing.assert_allclose(x.replicates, y.replicates, atol=TOL, rtol=0)
    assert a.n == b.n


def test_grouped_agreement_equals_agreement_on_the_subset(full: Release) -> None:
    items = np.ones(full.n_items, dtype=bool)
    groups = _groups(full, items)
    slots = full.roster.student_ids
    labels = full.evaluator_labels[2]
    w = question_weights(full.n_items, RESAMPLES, seed=8)
    got = agr.grouped_agreement(labels, full.consensus, groups, slots, w)
    assert got["none"] is None
    for name, mask in groups.items():
        if not mask.any():
            continue
        result = got[name]
        assert result is not None and result.n_items == int(mask.sum())
        expected = agr.agreement(labels[mask], full.consensus[mask], slots, w[:, mask])
        _same(result, expected)


def test_grouped_agreement_without_weights(full: Release) -> None:
    groups = _groups(full, np.ones(full.n_items, dtype=bool))
    slots = full.roster.student_ids
    got = agr.grouped_agreement(full.evaluator_labels[1], full.consensus, groups, slots)
    mask = groups["tier2"]
    result = got["tier2"]
    assert result is not None and not result.kappa.has_interval
    expected = agr.agreement(full.evaluator_labels[1][mask], full.consensus[mask], slots)
    assert close(result.kappa.value, expected.kappa.value)
    assert close(result.pa.value, expected.pa.value)


def test_grouped_leave_one_out_equals_leave_one_out_on_the_group(
    full: Release, core_labels: np.ndarray, core_weights: np.ndarray
) -> None:
    groups = _groups(full, full.is_core)
    slots = full.roster.student_ids
    got = agr.grouped_leave_one_out(core_labels, groups, slots, core_weights)
    assert got["none"] is None
    for name, mask in groups.items():
        if not mask.any():
            continue
        result = got[name]
        assert result is not None and result.n_items == int(mask.sum())
        # the reference of an item is the majority of the others on that item, so restricting
        # the items before computing it gives the same reference as computing it on all items
        expected = agr.quiet_leave_one_out(core_labels[:, mask], slots, core_weights[:, mask])
        _same(result, expected, slots=False)


def test_grouped_leave_one_out_point_equals_loop(full: Release, core_labels: np.ndarray) -> None:
    groups = _groups(full, full.is_core)
    got = agr.grouped_leave_one_out(core_labels, groups, full.roster.student_ids)
    mask = groups["tier1"]
    result = got["tier1"]
    assert result is not None
    macro_k, macro_p, _, _ = loo_loop(core_labels[:, mask])
    assert close(result.kappa.value, macro_k)
    assert close(result.pa.value, macro_p)


# --- several labellers at once ------------------------------------------------------------------


def test_macro_agreement_equals_agreement_one_by_one(full: Release) -> None:
    labels = full.evaluator_labels
    w = question_weights(full.n_items, RESAMPLES, seed=9)
    pa, kappa = agr.macro_agreement(labels, full.consensus)
    rpa, rkappa = agr.macro_agreement(labels, full.consensus, w)
    assert pa.shape == (labels.shape[0],) and rkappa.shape == (RESAMPLES, labels.shape[0])
    for e in range(labels.shape[0]):
        one = agr.agreement(labels[e], full.consensus, full.roster.student_ids, w)
        assert close(float(kappa[e]), one.kappa.value)
        assert close(float(pa[e]), one.pa.value)
        assert one.kappa.replicates is not None and one.pa.replicates is not None
        np.testing.assert_allclose(rkappa[:, e], one.kappa.replicates, atol=TOL, rtol=0)
        np.testing.assert_allclose(rpa[:, e], one.pa.replicates, atol=TOL, rtol=0)
    assert len({round(float(k), 6) for k in kappa}) > 1


# --- ensemble votes -----------------------------------------------------------------------------


def test_ensemble_vote_by_hand() -> None:
    R, F, A, M = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, 2, vocab.MISSING_CODE
    members = np.array(
        [
            # items: majority R, majority F, tie, tie after abstentions, all abstain, R vs abstain
            [[R], [F], [R], [R], [A], [R], [M]],
            [[R], [F], [F], [F], [A], [A], [M]],
            [[F], [R], [R], [A], [A], [A], [A]],
            [[R], [F], [F], [A], [M], [M], [M]],
        ],
        dtype=np.int8,
    )
    expected = np.array([[R], [F], [F], [F], [M], [R], [M]], dtype=np.int8)
    got = agr.ensemble_vote(members)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int8


def test_ensemble_vote_equals_loop_on_release(full: Release) -> None:
    members = full.evaluator_labels[:3, :300]
    got = agr.ensemble_vote(members)
    for i in range(members.shape[1]):
        for s in range(members.shape[2]):
            votes = [int(v) for v in members[:, i, s]]
            r, f = votes.count(1), votes.count(0)
            expected = -1 if r + f == 0 else 1 if r > f else 0
            assert got[i, s] == expected


def test_replicate_with_an_undefined_slot_is_undefined_not_a_shorter_mean() -> None:
    """Resample 0 keeps only Richtig references in slot 0 (kappa undefined there): the macro
    replicate is NaN, while resample 1 averages all five slots."""
    rng = np.random.default_rng(3)
    ref = rng.integers(0, 2, size=(8, 5))
    ref[:, 0] = [1, 1, 1, 1, 0, 0, 1, 0]
    lab = np.where(rng.random((8, 5)) < 0.8, ref, 1 - ref)
    weights = np.array([[2, 1, 1, 4, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1]])
    names = tuple(f"s{i}" for i in range(5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = agr.agreement(lab, ref, names, weights)
    slot_kappa = np.array([out.slots[n].kappa.replicates for n in names])  # (slots, R)
    assert math.isnan(slot_kappa[0, 0]) and not np.isnan(slot_kappa[1:, 0]).any()
    assert out.kappa.replicates is not None
    assert math.isnan(out.kappa.replicates[0])
    assert out.kappa.replicates[1] == pytest.approx(slot_kappa[:, 1].mean(), abs=TOL)
    assert out.kappa.n_undefined == 1
