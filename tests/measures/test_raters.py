"""Per-physician measures against independent implementations (scikit-learn, statsmodels)."""

from __future__ import annotations

import math

import numpy as np

from analyses.helpers import kappa, pa, statsmodels_fleiss
from medqade.measures.physician_reference import leave_one_out, loo_references
from medqade.measures.raters import (
    ABOVE_PANEL,
    CONSISTENT,
    OUTLIER,
    adjusted_level,
    intra_rater,
    kappa_gap,
    outlier_verdict,
    panel_fleiss,
    partner_references,
    quantile_mc_se,
    tier_abstention,
)
from medqade.measures.reference_agreement import agreement
from medqade.measures.seeds import question_weights

SLOTS = ("a", "b", "c")


def _panel(rng: np.random.Generator, n_items: int = 120, noisy: int | None = None) -> np.ndarray:
    """Ten raters who mostly agree with a latent truth; ``noisy`` labels at random."""
    truth = rng.integers(0, 2, size=(n_items, len(SLOTS)))
    x = np.where(rng.random((10, n_items, len(SLOTS))) < 0.9, truth, 1 - truth)
    if noisy is not None:
        x[noisy] = rng.integers(0, 2, size=(n_items, len(SLOTS)))
    return x.astype(np.int8)


def test_panel_fleiss_equals_statsmodels_mean_over_slots() -> None:
    x = _panel(np.random.default_rng(1))
    value, reps = panel_fleiss(x)
    oracle = np.mean([statsmodels_fleiss(x[:, :, s]) for s in range(len(SLOTS))])
    assert math.isclose(value, oracle, rel_tol=1e-12)
    assert reps is None


def test_panel_fleiss_without_a_rater_equals_statsmodels_on_the_rest() -> None:
    x = _panel(np.random.default_rng(2))
    rest = np.delete(x, 3, axis=0)
    value, _ = panel_fleiss(rest)
    oracle = np.mean([statsmodels_fleiss(rest[:, :, s]) for s in range(len(SLOTS))])
    assert math.isclose(value, oracle, rel_tol=1e-12)


def test_panel_fleiss_replicates_equal_statsmodels_on_resampled_items() -> None:
    x = _panel(np.random.default_rng(3), n_items=40)
    w = question_weights(40, 5, seed=7)
    _, reps = panel_fleiss(x, w)
    assert reps is not None
    for r in range(5):
        rows = np.repeat(np.arange(40), w[r])
        oracle = np.mean([statsmodels_fleiss(x[:, rows, s]) for s in range(len(SLOTS))])
        assert math.isclose(reps[r], oracle, rel_tol=1e-9)


def test_core_terms_average_to_the_ceiling() -> None:
    x = _panel(np.random.default_rng(4))
    refs = loo_references(x)
    per = [agreement(x[p], refs[p], SLOTS) for p in range(10)]
    ceiling = leave_one_out(x, SLOTS)
    assert math.isclose(np.mean([a.kappa.value for a in per]), ceiling.kappa.value)
    for s, slot in enumerate(SLOTS):
        assert math.isclose(per[0].slots[slot].kappa.value, kappa(x[0, :, s], refs[0, :, s]))


def test_kappa_gap_flags_a_random_rater_as_outlier() -> None:
    x = _panel(np.random.default_rng(5), noisy=6)
    refs = loo_references(x)
    w = question_weights(x.shape[1], 400, seed=11)
    core = [agreement(x[p], refs[p], SLOTS, w) for p in range(10)]
    level = adjusted_level(10)
    verdicts = [outlier_verdict(*kappa_gap(core, p, level)[1]) for p in range(10)]
    assert verdicts[6] == OUTLIER
    assert verdicts.count(OUTLIER) == 1
    gap, _ = kappa_gap(core, 6, level)
    others = np.mean([core[q].kappa.value for q in range(10) if q != 6])
    assert math.isclose(gap.value, core[6].kappa.value - others)


def test_outlier_verdict_reads_the_adjusted_bounds() -> None:
    assert outlier_verdict(-0.2, -0.01) == OUTLIER
    assert outlier_verdict(0.01, 0.2) == ABOVE_PANEL
    assert outlier_verdict(-0.01, 0.01) == CONSISTENT
    assert outlier_verdict(math.nan, 0.1) is None
    assert math.isclose(adjusted_level(10), 0.995)


def test_kappa_gap_without_replicates_has_no_bounds() -> None:
    x = _panel(np.random.default_rng(6))
    refs = loo_references(x)
    core = [agreement(x[p], refs[p], SLOTS) for p in range(10)]
    gap, bounds = kappa_gap(core, 0, 0.995)
    assert gap.defined and all(math.isnan(b) for b in bounds)


def test_intra_rater_equals_sklearn_averaged_per_slot() -> None:
    """Like the inter-rater kappa: per slot, then the mean over the slots (issue 24)."""
    rng = np.random.default_rng(8)
    first = rng.integers(0, 3, size=200)
    again = np.where(rng.random(200) < 0.85, first, rng.integers(0, 3, size=200))
    items = np.repeat(np.arange(40), 5)
    slots = np.tile(np.arange(5), 40)
    w = question_weights(40, 50, seed=3)
    est = intra_rater(first, again, items, slots, w)
    per_k = [kappa(first[slots == s], again[slots == s]) for s in range(5)]
    per_p = [pa(first[slots == s], again[slots == s]) for s in range(5)]
    assert math.isclose(est.kappa.value, float(np.mean(per_k)), rel_tol=1e-12)
    assert math.isclose(est.pa.value, float(np.mean(per_p)), rel_tol=1e-12)
    assert not math.isclose(est.kappa.value, kappa(first, again), rel_tol=1e-6)  # not pooled
    ok = (first < 2) & (again < 2)
    assert est.n == int(ok.sum())
    assert est.kappa.replicates is not None
    rows = np.repeat(np.arange(40), w[0])
    answers = np.concatenate([np.arange(5 * i, 5 * i + 5) for i in rows])
    f, g, sl = first[answers], again[answers], slots[answers]
    oracle = np.mean([kappa(f[sl == s], g[sl == s]) for s in range(5)])
    assert math.isclose(est.kappa.replicates[0], oracle, rel_tol=1e-9)


def test_quantile_mc_se_matches_the_normal_theory_value() -> None:
    """For normal replicates the s.e. of the q-quantile is sqrt(q(1-q)/B) / phi(z_q)."""
    rng = np.random.default_rng(21)
    b, q = 20_000, 0.0025
    x = rng.normal(size=b)
    z_q = -2.807033768343811
    phi = math.exp(-(z_q**2) / 2) / math.sqrt(2 * math.pi)
    theory = math.sqrt(q * (1 - q) / b) / phi
    assert math.isclose(quantile_mc_se(x, q), theory, rel_tol=0.35)
    assert math.isnan(quantile_mc_se(x[:100], q))  # 0.25 replicates per tail: no bracket
    assert math.isnan(quantile_mc_se([math.nan], 0.5))


def test_partner_references_take_the_other_primary_rater() -> None:
    x = np.full((4, 3, 2), -1, dtype=np.int8)  # raters 0-2 primary, 3 the adjudicator
    x[0, 0] = [1, 0]
    x[1, 0] = [0, 0]
    x[1, 1] = [1, 1]
    x[2, 1] = [1, 0]
    x[3, 1] = [0, 0]  # the adjudicator is never a partner
    x[0, 2] = [1, 1]  # a single primary rater: no partner
    refs = partner_references(x, (0, 1, 2))
    assert refs[0, 0].tolist() == [0, 0] and refs[1, 0].tolist() == [1, 0]
    assert refs[1, 1].tolist() == [1, 0] and refs[2, 1].tolist() == [1, 1]
    assert (refs[0, 2] == -1).all() and (refs[3] == -1).all()


def test_tier_abstention_counts_abstentions_over_rated_answers() -> None:
    x = np.array([[[2, 1], [0, -1], [2, 2]]], dtype=np.int8)  # one rater, 3 items
    tiers = np.array([1, 1, 4])
    out = tier_abstention(x, tiers)
    assert out[0][1] == (1, 3) and out[0][4] == (2, 2) and out[0][2] == (0, 0)
