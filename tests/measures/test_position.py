"""Position bias (medqade.measures.position) against independent computations: scipy's
chi-square, a loop over bootstrap resamples, and the exact permutation distribution by brute
force over every joint order of two questions."""

from __future__ import annotations

import hashlib
import itertools
import math
from functools import cache

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import position as P
from medqade.measures.seeds import STREAM_ALL, question_weights

R, F, A, M = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE, vocab.MISSING_CODE


def _random(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.choice([R, F, A], size=(n, 5), p=[0.45, 0.5, 0.05]).astype(np.int8)
    positions = np.stack([rng.permutation(5) + 1 for _ in range(n)]).astype(np.int8)
    consensus = rng.choice([R, F, M], size=(n, 5), p=[0.45, 0.5, 0.05]).astype(np.int8)
    return labels, positions, consensus


def test_chi_square_equals_scipy() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        r = rng.integers(1, 60, 5)
        f = rng.integers(1, 60, 5)
        expected = chi2_contingency(np.stack([r, f], axis=1), correction=False).statistic
        assert P.chi_square(r, f) == pytest.approx(expected, rel=1e-12)


def test_shares_and_intervals_equal_a_loop_over_positions_and_resamples() -> None:
    labels, positions, consensus = _random(60, 1)
    w = question_weights(60, 40, 7).astype(np.float64)
    found = P.position_bias(labels, positions, consensus, w, permutations=0)
    assert found is not None
    # position k of question i: the slot s with positions[i, s] == k
    for k in range(1, 6):
        slot = [int(np.flatnonzero(positions[i] == k)[0]) for i in range(60)]
        lab = labels[np.arange(60), slot]
        ref = consensus[np.arange(60), slot]
        sub = (lab == R) | (lab == F)
        assert found.richtig[k - 1].value == pytest.approx((lab == R).sum() / sub.sum())
        assert found.agreement[k - 1].value == pytest.approx(
            ((lab == ref) & (ref >= 0)).sum() / (ref >= 0).sum()
        )
        for b in range(5):
            idx = np.repeat(np.arange(60), w[b].astype(int))
            rep = (lab[idx] == R).sum() / sub[idx].sum()
            reps = found.richtig[k - 1].replicates
            assert reps is not None and reps[b] == pytest.approx(rep)
    r_k = [(labels[positions == k] == R).sum() for k in range(1, 6)]
    f_k = [(labels[positions == k] == F).sum() for k in range(1, 6)]
    table = np.stack([r_k, f_k], axis=1)
    assert found.chi2 == pytest.approx(chi2_contingency(table, correction=False).statistic)
    assert found.cramers_v == pytest.approx(math.sqrt(found.chi2 / table.sum()))


def _chi2_loop(r: tuple[int, ...], f: tuple[int, ...]) -> float:
    n = sum(r) + sum(f)
    out = 0.0
    for k in range(5):
        row = r[k] + f[k]
        for obs, col in ((r[k], sum(r)), (f[k], sum(f))):
            e = row * col / n
            if e > 0:
                out += (obs - e) ** 2 / e
    return out


def test_permutation_p_value_matches_the_exact_distribution_of_two_questions() -> None:
    """Every joint order of two questions (120 x 120), enumerated: the exact permutation
    p-value; the Monte-Carlo p-value of 20,000 permutations lies within 4 standard errors."""
    labels = np.array([[R, R, R, F, F], [R, F, F, F, A]], dtype=np.int8)
    positions = np.array([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], dtype=np.int8)
    consensus = np.full((2, 5), R, dtype=np.int8)
    found = P.position_bias(labels, positions, consensus, None, permutations=20_000, seed=5)
    assert found is not None

    @cache
    def stat(o1: tuple[int, ...], o2: tuple[int, ...]) -> float:
        shown = [labels[0][list(o1)], labels[1][list(o2)]]
        r = tuple(int(sum(q[k] == R for q in shown)) for k in range(5))
        f = tuple(int(sum(q[k] == F for q in shown)) for k in range(5))
        return _chi2_loop(r, f)

    observed = stat(tuple(range(5)), tuple(range(5)))
    assert found.chi2 == pytest.approx(observed)
    orders = list(itertools.permutations(range(5)))
    exact = np.mean([stat(a, b) >= observed - 1e-9 for a in orders for b in orders])
    se = math.sqrt(exact * (1 - exact) / 20_000)
    assert abs(found.p_value - exact) < 4 * se + 1e-4


def test_a_judge_that_favours_position_one_is_detected_and_the_test_is_seeded() -> None:
    rng = np.random.default_rng(11)
    n = 300
    positions = np.stack([rng.permutation(5) + 1 for _ in range(n)]).astype(np.int8)
    base = rng.random((n, 5)) < 0.4
    biased = np.where(positions == 1, rng.random((n, 5)) < 0.8, base)
    consensus = np.where(base, R, F).astype(np.int8)
    fair = P.position_bias(np.where(base, R, F), positions, consensus, None, 500, seed=1)
    unfair = P.position_bias(np.where(biased, R, F), positions, consensus, None, 500, seed=1)
    assert fair is not None and unfair is not None
    assert unfair.p_value == pytest.approx(1 / 501)
    assert unfair.richtig[0].value > 0.7 > unfair.richtig[1].value
    again = P.position_bias(np.where(base, R, F), positions, consensus, None, 500, seed=1)
    assert again is not None and again.p_value == fair.p_value
    assert fair.p_value > 0.01


def test_incomplete_questions_are_left_out_and_none_without_any() -> None:
    labels, positions, consensus = _random(30, 2)
    partial = positions.copy()
    partial[:10, 0] = 0
    found = P.position_bias(labels, partial, consensus, None, 0)
    assert found is not None and found.n_items == 20
    assert P.position_bias(labels, np.zeros_like(positions), consensus) is None


def test_release_positions_read_the_judgments_table(full: Release) -> None:
    pos = P.release_positions(
        full.judgments, full.slot_index, full.roster.evaluator_ids, full.n_items
    )
    assert P.complete(pos[0]).all()
    j = full.judgments.iloc[123]
    e = full.roster.evaluator_ids.index(j["evaluator"])
    i, s = full.slot_index[j["answer_id"]]
    assert pos[e, i, s] == j["position"]
    w = question_weights(full.n_items, 20, stream=STREAM_ALL).astype(np.float64)
    found = P.position_bias(full.evaluator_labels[e], pos[e], full.consensus, w, 200)
    assert found is not None and found.n_items == full.n_items
    assert 0 < found.p_value <= 1


def test_each_judge_has_its_own_permutation_stream_and_the_same_input_the_same_test() -> None:
    """Two judges whose labels differ only in which question carries which labels have the same
    chi-square; on one shared permutation stream they got the same p-value by construction
    (the draws depend only on the multisets of labels). Each judge's stream is keyed by its
    own input, so their permutations and p-values differ; the same input gives the same."""
    rng = np.random.default_rng(21)
    n = 400
    labels = rng.choice([R, F], size=(n, 5), p=[0.45, 0.55]).astype(np.int8)
    positions = np.stack([rng.permutation(5) + 1 for _ in range(n)]).astype(np.int8)
    consensus = np.full((n, 5), R, dtype=np.int8)
    order = rng.permutation(n)
    a = P.position_bias(labels, positions, consensus, None, 1000, seed=3)
    b = P.position_bias(labels[order], positions[order], consensus, None, 1000, seed=3)
    assert a is not None and b is not None
    assert a.chi2 == pytest.approx(b.chi2, rel=1e-12)
    assert 0.05 < a.p_value < 0.99  # a null-like judge: the p-value is not at its floor
    assert a.permutation_key != b.permutation_key
    assert a.p_value != b.p_value  # different permutations
    again = P.position_bias(labels, positions, consensus, None, 1000, seed=3)
    assert again is not None
    assert (again.p_value, again.permutation_key) == (a.p_value, a.permutation_key)
    # the key is the first 64 bits of SHA-256 over the test's input (shape, then int8 codes)
    codes = np.where(P.by_position(labels, positions) == R, 1, 2).astype("<i1")
    data = np.asarray(codes.shape, dtype="<i8").tobytes() + codes.tobytes()
    assert a.permutation_key == hashlib.sha256(data).hexdigest()[:16]
    assert a.to_json()["permutation_key"] == a.permutation_key
