"""The re-run's agreement with stored labels (medqade.measures.reproduction) against
scikit-learn, a bootstrap written out by hand, and direct counts of the sample's draw."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade import stats, vocab
from medqade.measures.estimate import Estimate
from medqade.measures.reproduction import (
    NO_REPLY,
    REFERENCE_PA,
    reproduces,
    rerun_agreement,
    sample,
)
from medqade.measures.seeds import STREAM_VERIFY

R, F, A = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE
MISSING = vocab.MISSING_CODE


def _labels(n: int, seed: int, changed: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    stored = rng.choice([R, F, A], size=(n, 5), p=[0.45, 0.5, 0.05])
    again = np.where(rng.random((n, 5)) < changed, (stored + 1) % 3, stored)
    return stored, again


def test_kappa_and_pa_equal_sklearn_with_no_reply_as_a_fourth_category() -> None:
    stored, again = _labels(30, 1, 0.15)
    stored[0, 0] = MISSING  # not labelled in the record: left out
    again[1, :2] = MISSING  # no usable reply: a disagreement
    strata = np.array(["core"] * 10 + ["extension"] * 20)
    found = rerun_agreement(stored, again, strata, 0, 3)
    mask = stored >= 0
    a = stored[mask]
    b = np.where(again >= 0, again, NO_REPLY)[mask]
    assert found.kappa.value == pytest.approx(cohen_kappa_score(a, b))
    assert found.pa.value == pytest.approx(float(np.mean(a == b)))
    assert (found.n, found.n_items, found.no_reply) == (149, 30, 2)
    assert np.isnan(found.pa.low)  # no resamples, no interval


def test_the_interval_resamples_questions_within_their_split() -> None:
    stored, again = _labels(24, 2, 0.1)
    strata = np.array([0] * 8 + [1] * 16)
    found = rerun_agreement(stored, again, strata, 200, 7)
    rng = np.random.default_rng([7, STREAM_VERIFY])  # the stream of the re-run's resamples
    idx = stats.stratified_bootstrap_indices(strata, 200, rng)
    assert set(np.unique(idx[:, :8])) <= set(range(8))  # a core question stays a core one
    reps = [float(np.mean(stored[row] == again[row])) for row in idx]
    assert found.pa.replicates is not None
    np.testing.assert_allclose(found.pa.replicates, reps)
    low, high = np.percentile(reps, [2.5, 97.5])
    assert (found.pa.low, found.pa.high) == pytest.approx((low, high))
    again_found = rerun_agreement(stored, again, strata, 200, 7)
    assert again_found.pa.high == found.pa.high  # the same seed, the same interval


def test_the_rule_reads_the_upper_bound() -> None:
    assert reproduces(Estimate(0.95, 0.9, 0.99), REFERENCE_PA)
    assert not reproduces(Estimate(0.95, 0.9, 0.97), REFERENCE_PA)
    assert reproduces(Estimate(0.98, float("nan"), float("nan")), 0.98)  # no interval: value
    assert not reproduces(Estimate(0.97, float("nan"), float("nan")), 0.98)


def test_identical_labels_reproduce_and_a_tenth_changed_does_not() -> None:
    stored, _ = _labels(40, 5, 0.0)
    strata = np.array([0] * 20 + [1] * 20)
    same = rerun_agreement(stored, stored.copy(), strata, 500, 1)
    assert same.pa.value == 1.0 and reproduces(same.pa, REFERENCE_PA)
    flipped = stored.copy()
    flipped[np.arange(40), np.arange(40) % 5] = (stored[np.arange(40), np.arange(40) % 5] + 1) % 3
    changed = rerun_agreement(stored, flipped, strata, 500, 1)
    assert changed.pa.value == pytest.approx(0.8)
    assert not reproduces(changed.pa, REFERENCE_PA)


def test_the_sample_is_half_core_half_extension_and_seeded() -> None:
    core = np.zeros(400, dtype=bool)
    core[:20] = True
    eligible = np.ones(400, dtype=bool)
    eligible[5] = False
    chosen = sample(core, eligible, 40, 11)
    assert len(chosen) == 40 and list(chosen) == sorted(set(chosen))
    assert core[chosen].sum() == 19  # 20 wanted, 19 labelled core questions: one more elsewhere
    assert 5 not in chosen
    assert list(sample(core, eligible, 40, 11)) == list(chosen)
    assert list(sample(core, eligible, 40, 12)) != list(chosen)
    assert core[sample(core, eligible, 7, 0)].sum() == 4  # half rounded up from the core
    only_core = sample(core, core, 40, 1)
    assert list(only_core) == list(range(20))  # fewer than K: all of them
    with pytest.raises(ValueError, match="labelled no question"):
        sample(core, np.zeros(400, dtype=bool), 4, 0)
    with pytest.raises(ValueError, match="at least one question"):
        sample(core, eligible, 0, 0)
