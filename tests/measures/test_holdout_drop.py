"""The contamination check against an explicit loop: each resample materialised as the list of
drawn questions (a question drawn twice counts twice), kappa per slot from scikit-learn's
``cohen_kappa_score`` on the drawn answers of each set, the mean over slots, the physicians'
drops averaged over physicians, the flag read from the 5th percentile of the excess."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade.measures.holdout_drop import (
    ALPHA,
    FLAG,
    LEVEL,
    Contamination,
    combined_p,
    contamination,
    holdout_strata,
    permuted_splits,
    physician_side,
)
from medqade.measures.seeds import question_weights

SLOTS = ("a", "b", "c", "d", "e")
R = 40


def _data(seed: int, n_items: int = 80, n_phys: int = 4, copy: float = 0.0) -> tuple:
    """Judge and physician codes (abstentions, some unrated), the consensus (a few unresolved)
    and a held-out mask; ``copy``: the share of public answers on which the judge's label is
    replaced by the consensus."""
    rng = np.random.default_rng(seed)
    truth = (rng.random((n_items, 5)) < 0.6).astype(np.int64)
    phys = np.where(rng.random((n_phys, n_items, 5)) < 0.85, truth, 1 - truth)
    phys[rng.random(phys.shape) < 0.06] = 2
    phys[rng.random(phys.shape) < 0.05] = -1
    cons = np.where(rng.random((n_items, 5)) < 0.93, truth, -1)
    judge = np.where(rng.random((n_items, 5)) < 0.75, truth, 1 - truth)
    judge[rng.random(judge.shape) < 0.05] = 2
    held = np.zeros(n_items, dtype=bool)
    held[rng.permutation(n_items)[: n_items // 4]] = True
    copied = (rng.random((n_items, 5)) < copy) & ~held[:, None] & (cons >= 0)
    judge = np.where(copied, cons, judge)
    return judge, phys, cons, held


def _kappa(lab: np.ndarray, ref: np.ndarray, penalise: bool) -> float:
    """Macro kappa over slots of ``lab`` vs ``ref`` (rows: drawn answers), by scikit-learn."""
    per = []
    for s in range(5):
        x, y = lab[:, s].copy(), ref[:, s]
        keep = y >= 0
        if penalise:
            x = np.where(np.isin(x, (0, 1)), x, 1 - y)
        else:
            keep &= np.isin(x, (0, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per.append(cohen_kappa_score(x[keep], y[keep], labels=[0, 1]))
    return float(np.mean(per))


def _loop(judge, phys, cons, held, rows: np.ndarray) -> tuple[float, float, float, float]:
    """(judge public, judge held-out, physicians' mean drop, excess) on the drawn ``rows``."""
    pub, ho = rows[~held[rows]], rows[held[rows]]
    j_pub = _kappa(judge[pub], cons[pub], True)
    j_ho = _kappa(judge[ho], cons[ho], True)
    drops = [_kappa(p[pub], cons[pub], False) - _kappa(p[ho], cons[ho], False) for p in phys]
    drops = [d for d in drops if not math.isnan(d)]
    p_drop = float(np.mean(drops)) if drops else math.nan
    return j_pub, j_ho, p_drop, (j_pub - j_ho) - p_drop


@pytest.mark.parametrize(("seed", "copy"), [(1, 0.0), (2, 0.3)])
def test_contamination_matches_an_explicit_resampling_loop(seed: int, copy: float) -> None:
    judge, phys, cons, held = _data(seed, copy=copy)
    w = question_weights(len(held), R, seed=seed)
    found = contamination(judge, phys, cons, held, SLOTS, w)
    every = np.arange(len(held))
    j_pub, j_ho, p_drop, excess = _loop(judge, phys, cons, held, every)
    assert found.judge_public.value == pytest.approx(j_pub, abs=1e-12)
    assert found.judge_held_out.value == pytest.approx(j_ho, abs=1e-12)
    assert found.judge_drop.value == pytest.approx(j_pub - j_ho, abs=1e-12)
    assert found.physicians_drop.value == pytest.approx(p_drop, abs=1e-12)
    assert found.excess.value == pytest.approx(excess, abs=1e-12)
    reps = np.array([_loop(judge, phys, cons, held, np.repeat(every, w[r])) for r in range(R)])
    assert found.judge_public.replicates is not None
    assert found.excess.replicates is not None
    np.testing.assert_allclose(found.judge_public.replicates, reps[:, 0], atol=1e-12)
    np.testing.assert_allclose(found.judge_held_out.replicates, reps[:, 1], atol=1e-12)
    np.testing.assert_allclose(found.physicians_drop.replicates, reps[:, 2], atol=1e-12)
    np.testing.assert_allclose(found.excess.replicates, reps[:, 3], atol=1e-12)
    lower = float(np.percentile(reps[:, 3], 5))  # one-sided 95%: the 5th percentile
    assert found.excess_lower == pytest.approx(lower, abs=1e-12)
    assert math.isnan(found.p_value) and not found.contamination  # no re-draws: no flag
    assert found.to_json()[FLAG] == found.contamination
    side = physician_side(phys, cons, held, SLOTS, w)
    again = contamination(judge, phys, cons, held, SLOTS, w, physicians=side)
    assert again.to_json() == found.to_json()
    assert (found.n_public, found.n_held_out) == (60, 20)


def test_permutation_p_value_matches_an_explicit_loop_over_redraws() -> None:
    """Each re-draw's excess recomputed by the loop (scikit-learn kappa on the re-drawn sets);
    p = (1 + #{re-drawn excess >= observed}) / (1 + B); the flag is p <= 0.05."""
    judge, phys, cons, held = _data(4, copy=0.2)
    strata = np.arange(len(held)) % 3
    splits = permuted_splits(held, strata, 30, seed=9)
    found = contamination(judge, phys, cons, held, SLOTS, splits=splits)
    every = np.arange(len(held))
    observed = _loop(judge, phys, cons, held, every)[3]
    null = np.array([_loop(judge, phys, cons, m, every)[3] for m in splits])
    assert found.excess.value == pytest.approx(observed, abs=1e-12)
    expected = (1 + int((null >= observed - 1e-12).sum())) / (1 + len(null))
    assert found.p_value == pytest.approx(expected, abs=1e-12)
    assert found.n_splits == 30
    assert found.contamination == (expected <= ALPHA)
    assert found.to_json()["p_value"] == found.p_value
    side = physician_side(phys, cons, held, SLOTS, None, splits)
    again = contamination(judge, phys, cons, held, SLOTS, physicians=side, splits=splits)
    assert again.to_json() == found.to_json()
    with pytest.raises(ValueError, match="without the splits"):
        contamination(
            judge,
            phys,
            cons,
            held,
            SLOTS,
            physicians=physician_side(phys, cons, held, SLOTS),
            splits=splits,
        )


def test_redraws_keep_the_count_of_every_stratum_and_vary() -> None:
    rng = np.random.default_rng(0)
    strata = holdout_strata(rng.random(300) < 0.2, rng.integers(0, 5, 300))
    held = rng.random(300) < 0.3
    splits = permuted_splits(held, strata, 200, seed=1)
    assert splits.shape == (200, 300)
    for key in np.unique(strata):
        inside = strata == key
        assert (splits[:, inside].sum(axis=1) == held[inside].sum()).all()
    # every item of a mixed stratum is held out in some re-draws and public in others
    mixed = [k for k in np.unique(strata) if 0 < held[strata == k].sum() < (strata == k).sum()]
    cols = np.isin(strata, mixed)
    share = splits[:, cols].mean(axis=0)
    assert (share > 0).all() and (share < 1).all()
    np.testing.assert_array_equal(splits, permuted_splits(held, strata, 200, seed=1))
    assert not np.array_equal(splits, permuted_splits(held, strata, 200, seed=2))
    with pytest.raises(ValueError, match="like held_out"):
        permuted_splits(held, strata[:-1])


def test_honest_judges_are_flagged_at_most_at_the_nominal_rate() -> None:
    """Under the null (a judge independent of which items were held out), the permutation p
    value is (super-)uniform: over 200 honest data sets the flag fires in about 5%; a binomial
    test (scipy) does not reject 5% against more (one-sided, 0.1%)."""
    from scipy.stats import binomtest

    flags = []
    for seed in range(200):
        judge, phys, cons, held = _data(100 + seed, n_items=60, n_phys=3)
        splits = permuted_splits(held, np.zeros(len(held)), 99, seed=seed)
        flags.append(contamination(judge, phys, cons, held, SLOTS, splits=splits).contamination)
    hits = int(np.sum(flags))
    assert binomtest(hits, len(flags), ALPHA, alternative="greater").pvalue > 0.001
    assert hits >= 1  # the p value reaches the level: the test is not vacuous


def test_combined_p_is_bonferroni_over_the_defined_values() -> None:
    assert combined_p((0.02, 0.3)) == pytest.approx(0.04)
    assert combined_p((0.02, math.nan)) == pytest.approx(0.02)
    assert combined_p((0.8, 0.9)) == 1.0
    assert math.isnan(combined_p((math.nan,)))


def test_copying_the_public_consensus_raises_the_flag_and_honest_labels_do_not() -> None:
    honest = _data(5, n_items=400)
    copied = _data(5, n_items=400, copy=0.5)
    w = question_weights(400, 300, seed=3)
    splits = permuted_splits(honest[3], np.zeros(400), 199, seed=3)
    clean = contamination(*honest, SLOTS, w, splits=splits)
    cheat = contamination(*copied, SLOTS, w, splits=splits)
    assert not clean.contamination and clean.excess_lower < 0 and clean.p_value > ALPHA
    assert cheat.contamination and cheat.excess.value > 0.2 and cheat.p_value == 1 / 200
    # copying changes nothing on the held-out items: the judge's held-out agreement is equal
    assert cheat.judge_held_out.value == clean.judge_held_out.value
    assert cheat.judge_public.value > clean.judge_public.value


def test_without_weights_no_interval_and_no_flag() -> None:
    found = contamination(*_data(2, copy=0.5), SLOTS)
    assert isinstance(found, Contamination)
    assert math.isnan(found.excess_lower) and not found.contamination
    assert math.isnan(found.excess.low) and found.excess.defined
    assert found.level == LEVEL == 0.95


def test_refuses_a_release_without_both_sets() -> None:
    judge, phys, cons, held = _data(1)
    with pytest.raises(ValueError, match="public and held-out"):
        contamination(judge, phys, cons, np.zeros_like(held), SLOTS)
    with pytest.raises(ValueError, match="physicians, items, slots"):
        contamination(judge, phys[:, :-1], cons, held, SLOTS)


def test_worked_example_of_the_docs() -> None:
    """The numbers of the worked example in docs/statistics.md (contamination)."""
    r, f = 1, 0
    consensus = np.array([[r], [f], [r], [f], [r], [f], [r], [f]])
    held = np.array([False] * 4 + [True] * 4)
    judge = np.array([[r], [f], [r], [f], [r], [f], [f], [f]])  # one miss, held out
    p1 = consensus.copy()
    p2 = judge.copy()  # the same miss
    p3 = np.array([[r], [f], [f], [f], [r], [f], [r], [f]])  # one miss, public
    found = contamination(judge, np.stack([p1, p2, p3]), consensus, held, ("x",))
    assert found.judge_public.value == pytest.approx(1.0)
    assert found.judge_held_out.value == pytest.approx(0.5)
    assert found.judge_drop.value == pytest.approx(0.5)
    assert found.physicians_drop.value == pytest.approx((0 + 0.5 - 0.5) / 3)
    assert found.excess.value == pytest.approx(0.5)
