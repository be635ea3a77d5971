"""Agreement with a reference, the leave-one-out reference, groups and votes, against loops.

Oracles: scikit-learn's ``cohen_kappa_score`` on the pairable answers, a bootstrap replicate as
the statistic of the items repeated by their count weights (``np.repeat``), plain means.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.consensus import majority_of_codes
from medqade.dataset.release import Release
from medqade.measures import agreement as agr
from medqade.measures.seeds import question_weights

from .conftest import RESAMPLES

TOL = 1e-12
CHECKED = (0, 17, RESAMPLES - 1)
"""Replicates recomputed by the loops (each costs 50+ scikit-learn calls)."""


def _kappa_pa(
    a: np.ndarray, b: np.ndarray, counts: np.ndarray | None = None
) -> tuple[float, float]:
    """scikit-learn kappa and PA of two code vectors on the answers both rated 0/1; with
    ``counts`` the items are first repeated by their bootstrap counts."""
    if counts is not None:
        idx = np.repeat(np.arange(a.shape[0]), counts)
        a, b = a[idx], b[idx]
    ok = np.isin(a, (0, 1)) & np.isin(b, (0, 1))
    x, y = a[ok], b[ok]
    pa = float(np.mean(x == y)) if x.size else math.nan
    if x.size < 2:
        return math.nan, pa
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = float(cohen_kappa_score(x, y, labels=[0, 1], replace_undefined_by=np.nan))
    return k, pa


def _nanmean(values: list[float]) -> float:
    x = np.asarray(values, dtype=np.float64)
    return float(x[~np.isnan(x)].mean()) if (~np.isnan(x)).any() else math.nan


def _close(a: float, b: float, tol: float = TOL) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol


def _loo_loop(
    labels: np.ndarray, counts: np.ndarray | None = None
) -> tuple[float, float, list[float], list[float]]:
    """Macro kappa, macro PA and per-slot kappa and PA of the leave-one-out reference."""
    n_phys, _, n_slots = labels.shape
    per_k = np.full((n_phys, n_slots), np.nan)
    per_p = np.full((n_phys, n_slots), np.nan)
    for p in range(n_phys):
        reference = majority_of_codes(np.delete(labels, p, axis=0), axis=0)
        for s in range(n_slots):
            per_k[p, s], per_p[p, s] = _kappa_pa(labels[p, :, s], reference[:, s], counts)
    macro_k = _nanmean([_nanmean(list(row)) for row in per_k])
    macro_p = _nanmean([_nanmean(list(row)) for row in per_p])
    slot_k = [_nanmean(list(per_k[:, s])) for s in range(n_slots)]
    slot_p = [_nanmean(list(per_p[:, s])) for s in range(n_slots)]
    return macro_k, macro_p, slot_k, slot_p


@pytest.fixture(scope="module")
def core_labels(full: Release) -> np.ndarray:
    return full.physician_labels[:, full.is_core]


@pytest.fixture(scope="module")
def core_weights(core_labels: np.ndarray) -> np.ndarray:
    return question_weights(core_labels.shape[1], RESAMPLES, seed=5)


@pytest.fixture(scope="module")
def loo(full: Release, core_labels: np.ndarray, core_weights: np.ndarray) -> agr.Agreement:
    return agr.leave_one_out(core_labels, full.roster.student_ids, core_weights)


# --- the leave-one-out physician reference ----------------------------------------------------


def test_loo_references_are_the_strict_majority_of_the_others(core_labels: np.ndarray) -> None:
    refs = agr.loo_references(core_labels)
    rng = np.random.default_rng(0)
    for _ in range(200):
        p, i, s = rng.integers(10), rng.integers(core_labels.shape[1]), rng.integers(5)
        others = [int(v) for q, v in enumerate(core_labels[:, i, s]) if q != p]
        r, f = others.count(vocab.RICHTIG_CODE), others.count(vocab.FALSCH_CODE)
        expected = 1 if r > f else 0 if f > r else -1
        assert refs[p, i, s] == expected


def test_leave_one_out_point_equals_loop(
    full: Release, core_labels: np.ndarray, loo: agr.Agreement
) -> None:
    macro_k, macro_p, slot_k, slot_p = _loo_loop(core_labels)
    assert _close(loo.kappa.value, macro_k)
    assert _close(loo.pa.value, macro_p)
    assert _close(loo.pabak.value, 2 * macro_p - 1)
    for s, name in enumerate(full.roster.student_ids):
        assert _close(loo.slots[name].kappa.value, slot_k[s])
        assert _close(loo.slots[name].pa.value, slot_p[s])
    assert 0.3 < loo.kappa.value < 0.95  # a physician panel that agrees, not a degenerate one


def test_leave_one_out_replicates_equal_loop_on_resampled_items(
    full: Release, core_labels: np.ndarray, core_weights: np.ndarray, loo: agr.Agreement
) -> None:
    assert loo.kappa.replicates is not None and loo.pa.replicates is not None
    assert loo.kappa.replicates.shape == (RESAMPLES,)
    for r in CHECKED:
        macro_k, macro_p, slot_k, slot_p = _loo_loop(core_labels, core_weights[r])
        assert _close(float(loo.kappa.replicates[r]), macro_k)
        assert _close(float(loo.pa.replicates[r]), macro_p)
        for s, name in enumerate(full.roster.student_ids):
            k_reps = loo.slots[name].kappa.replicates
            p_reps = loo.slots[name].pa.replicates
            assert k_reps is not None and p_reps is not None
            assert _close(float(k_reps[r]), slot_k[s])
            assert _close(float(p_reps[r]), slot_p[s])


def test_leave_one_out_ci_is_percentile_of_its_replicates(loo: agr.Agreement) -> None:
    assert loo.kappa.replicates is not None
    low, high = np.nanpercentile(loo.kappa.replicates, [2.5, 97.5])
    assert (loo.kappa.low, loo.kappa.high) == pytest.approx((low, high), abs=TOL)
    assert loo.kappa.low < loo.kappa.value < loo.kappa.high


def test_leave_one_out_without_weights_has_no_interval(
    full: Release, core_labels: np.ndarray, loo: agr.Agreement
) -> None:
    plain = agr.leave_one_out(core_labels, full.roster.student_ids)
    assert plain.kappa.value == loo.kappa.value
    assert not plain.kappa.has_interval and plain.kappa.replicates is None


# --- agreement of one labeller -----------------------------------------------------------------


def test_agreement_equals_sklearn_per_slot_and_macro(full: Release) -> None:
    core = full.is_core
    labels = full.evaluator_labels[0, core]
    reference = full.consensus[core]
    w = question_weights(int(core.sum()), RESAMPLES, seed=6)
    got = agr.agreement(labels, reference, full.roster.student_ids, w)
    ks, ps = [], []
    for s, name in enumerate(full.roster.student_ids):
        k, p = _kappa_pa(labels[:, s], reference[:, s])
        ks.append(k)
        ps.append(p)
        assert _close(got.slots[name].kappa.value, k)
        assert _close(got.slots[name].pa.value, p)
        reps = got.slots[name].pa.replicates
        assert reps is not None
        for r in CHECKED:
            assert _close(float(reps[r]), _kappa_pa(labels[:, s], reference[:, s], w[r])[1])
    assert _close(got.kappa.value, _nanmean(ks))
    assert _close(got.pa.value, _nanmean(ps))
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
        assert _close(x.value, y.value)
        assert _close(x.low, y.low) and _close(x.high, y.high)
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
    assert _close(result.kappa.value, expected.kappa.value)
    assert _close(result.pa.value, expected.pa.value)


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
    macro_k, macro_p, _, _ = _loo_loop(core_labels[:, mask])
    assert _close(result.kappa.value, macro_k)
    assert _close(result.pa.value, macro_p)


# --- several labellers at once ------------------------------------------------------------------


def test_macro_agreement_equals_agreement_one_by_one(full: Release) -> None:
    labels = full.evaluator_labels
    w = question_weights(full.n_items, RESAMPLES, seed=9)
    pa, kappa = agr.macro_agreement(labels, full.consensus)
    rpa, rkappa = agr.macro_agreement(labels, full.consensus, w)
    assert pa.shape == (labels.shape[0],) and rkappa.shape == (RESAMPLES, labels.shape[0])
    for e in range(labels.shape[0]):
        one = agr.agreement(labels[e], full.consensus, full.roster.student_ids, w)
        assert _close(float(kappa[e]), one.kappa.value)
        assert _close(float(pa[e]), one.pa.value)
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


# --- the macro mean over slots is strict (issue 24) -------------------------------------------


def test_slot_mean_averages_the_point_estimates_slots_in_every_replicate() -> None:
    x = np.array([[0.2, 0.4, 0.6], [0.2, math.nan, 0.6], [math.nan] * 3])
    strict = agr.slot_mean(x)  # every slot averaged: undefined when any is
    assert strict[0] == pytest.approx(0.4) and math.isnan(strict[1]) and math.isnan(strict[2])
    point = np.array([0.3, math.nan, 0.5])  # the point estimate leaves slot 1 undefined
    assert agr.slot_mean(point, point) == pytest.approx(0.4)
    reps = np.array([[0.2, 0.9, 0.6], [0.2, math.nan, 0.6], [math.nan, 0.1, 0.6]])
    got = agr.slot_mean(reps, point)  # over slots 0 and 2 only, in every replicate
    assert got[:2] == pytest.approx([0.4, 0.4]) and math.isnan(got[2])
    loose = agr.mean_defined(x)  # the mean over physicians still skips an undefined one
    assert loose[:2] == pytest.approx([0.4, 0.4]) and math.isnan(loose[2])


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


def test_per_rater_equals_agreement_per_physician(full: Release) -> None:
    """All physicians and resamples in one product give exactly :func:`agreement` per rater."""
    core = full.is_core
    labels = full.physician_labels[:, core]
    refs = agr.loo_references(labels)
    slots = full.roster.student_ids
    w = question_weights(int(core.sum()), RESAMPLES, 11)
    fast = agr.per_rater(labels, refs, slots, w)
    for p, got in enumerate(fast):
        want = agr.agreement(labels[p], refs[p], slots, w)
        for m in ("kappa", "pa"):
            a, b = got.metric(m), want.metric(m)
            assert a.value == b.value
            assert a.replicates is not None and b.replicates is not None
            assert np.array_equal(a.replicates, b.replicates, equal_nan=True)
        assert got.n == want.n
        assert [s.n for s in got.slots.values()] == [s.n for s in want.slots.values()]
