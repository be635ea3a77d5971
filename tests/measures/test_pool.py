"""Tests of medqade.measures.pool: the three pool estimators per student."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.measures.pool import StudentPoolEstimate, pool_estimates

STUDENTS = ("a", "b")


def _design(seed: int) -> dict[str, np.ndarray]:
    """A pool of 2,000 items (300 exact-match), 200 + 200 of them labelled."""
    rng = np.random.default_rng(seed)
    n_pool = 2000
    lexical = np.arange(n_pool) < 300
    truth = np.where(rng.random((n_pool, 2)) < np.where(lexical, 0.8, 0.4)[:, None], 1, 0)
    truth[rng.random((n_pool, 2)) < 0.03] = -1  # unresolved
    judge = np.where(rng.random((n_pool, 2)) < 0.85, np.maximum(truth, 0), 1).astype(np.int8)
    judge[rng.random((n_pool, 2)) < 0.02] = 2  # abstains
    labelled = np.zeros(n_pool, dtype=bool)
    labelled[rng.choice(300, 200, replace=False)] = True
    labelled[300 + rng.choice(1700, 200, replace=False)] = True
    return {"truth": truth.astype(np.int8), "judge": judge, "lexical": lexical, "lab": labelled}


def _estimate(
    d: dict[str, np.ndarray], judge: np.ndarray | None = None
) -> dict[str, StudentPoolEstimate]:
    j = d["judge"] if judge is None else judge
    lab = d["lab"]
    return pool_estimates(STUDENTS, d["truth"][lab], j[lab], d["lexical"][lab], j, d["lexical"])


def test_pool_estimates_physician_only_is_design_weighted() -> None:
    d = _design(0)
    est = _estimate(d)["a"]
    y, lab, lex = d["truth"][:, 0], d["lab"], d["lexical"]
    by_hand = 0.0
    for m, weight in ((lex, 300 / 2000), (~lex, 1700 / 2000)):
        resolved = y[lab & m] >= 0
        by_hand += weight * (y[lab & m][resolved] == 1).mean()
    # the ratio's weights are the strata's resolved shares; with equal shares it is the mean
    assert est.physician_only.estimate == pytest.approx(by_hand, abs=0.01)
    assert est.physician_only.low < est.physician_only.estimate < est.physician_only.high


def test_pool_estimates_judge_only_is_judge_share_of_verdicts() -> None:
    d = _design(1)
    est = _estimate(d)["b"]
    j = d["judge"][:, 1]
    assert est.judge_only.estimate == pytest.approx((j == 1).sum() / ((j == 0) | (j == 1)).sum())


def test_pool_estimates_perfect_judge_recovers_truth() -> None:
    d = _design(2)
    est = _estimate(d, judge=d["truth"].copy())["a"]
    y = d["truth"][:, 0]
    truth = (y == 1).sum() / (y >= 0).sum()
    assert est.ppi.estimate == pytest.approx(truth, abs=1e-12)
    assert est.ppi.se == pytest.approx(0.0, abs=1e-12)
    assert est.ppi.lam == (1.0, 1.0)


def test_pool_estimates_useless_judge_falls_back_to_physicians() -> None:
    d = _design(3)
    rng = np.random.default_rng(9)
    noise = rng.integers(0, 2, size=d["judge"].shape).astype(np.int8)
    est = _estimate(d, judge=noise)["a"]
    assert max(est.ppi.lam) < 0.3
    assert est.ess_gain == pytest.approx(1.0, abs=0.1)


def test_pool_estimates_good_judge_gains_sample_size() -> None:
    est = _estimate(_design(4))["a"]
    assert est.ess_gain > 1.5
    assert est.to_dict().keys() == {"physician_only", "judge_only", "ppi", "ess_gain"}


def test_pool_estimates_rejects_mismatched_shapes() -> None:
    d = _design(5)
    with pytest.raises(ValueError, match="shapes do not match"):
        pool_estimates(
            STUDENTS, d["truth"][:10], d["judge"][:9], d["lexical"][:10], d["judge"], d["lexical"]
        )


def test_estimate_pool_is_pool_estimates_on_the_labelled_subset() -> None:
    """The one assembly the CLI, S5 and the Space call: the labelled rows of the judge's and
    the stratum's pool arrays, beside the consensus (the physicians' rows only)."""
    from dataclasses import dataclass

    from medqade.measures.pool import estimate_pool

    d = _design(7)

    @dataclass(frozen=True)
    class Sample:
        students: tuple[str, ...]
        judge_pool: np.ndarray
        lexical_pool: np.ndarray
        labelled: np.ndarray
        consensus: np.ndarray

    sample = Sample(STUDENTS, d["judge"], d["lexical"], d["lab"], d["truth"][d["lab"]])
    assert estimate_pool(sample) == _estimate(d)
    assert estimate_pool(sample, alpha=0.1)["a"].ppi.low > _estimate(d)["a"].ppi.low
