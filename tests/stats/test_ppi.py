"""Tests of medqade.stats.ppi (oracle: ppi_py, the authors' package, on the unstratified case)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from medqade.stats.ppi import (
    RatioStratum,
    plug_in_ratio,
    ppi_mean,
    resampled_points,
    stratified_ppi,
)


def _binary_sample(seed: int, n: int, big_n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold labels and a biased, noisy judge: labelled (n) and independent unlabelled (N)."""
    rng = np.random.default_rng(seed)
    merit = rng.normal(0.3, 1.5, size=n + big_n)
    gold = (merit + rng.normal(0, 0.8, size=n + big_n) > 0).astype(float)
    judge = (merit + 0.4 + rng.normal(0, 0.8, size=n + big_n) > 0).astype(float)
    return gold[:n], judge[:n], judge[n:]


@pytest.mark.parametrize("lam", [1.0, 0.0, 0.4, None])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ppi_mean_matches_ppi_py(lam: float | None, seed: int) -> None:
    y, f, f_unl = _binary_sample(seed, 400, 5000)
    ours = ppi_mean(y, f, f_unl, lam=lam, alpha=0.05)
    low, high = ppi_mean_ci(y, f, f_unl, alpha=0.05, lam=lam)
    assert ours.low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
    assert ours.high == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)
    if lam is not None:
        point = ppi_mean_pointestimate(y, f, f_unl, lam=lam)
        assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
        assert ours.lam == (lam,)


def test_ppi_mean_tuned_lambda_lies_between_and_narrows() -> None:
    y, f, f_unl = _binary_sample(3, 300, 20000)
    tuned = ppi_mean(y, f, f_unl, lam=None)
    plain = ppi_mean(y, f, f_unl, lam=1.0)
    classical = ppi_mean(y, f, f_unl, lam=0.0)
    assert 0.0 < tuned.lam[0] < 1.0
    assert tuned.se <= min(plain.se, classical.se) + 1e-12
    # lam = 0 is the classical mean of y with its CLT interval (ddof 0, as ppi_py)
    assert classical.estimate == pytest.approx(y.mean())
    assert classical.se == pytest.approx(y.std() / math.sqrt(len(y)))


def test_stratified_ppi_superpopulation_combines_ppi_py_strata() -> None:
    parts = [
        _binary_sample(10 + h, n, big_n) for h, (n, big_n) in enumerate([(200, 900), (500, 8000)])
    ]
    weights = [900.0, 8000.0]
    strata = [
        RatioStratum.make(y, f, fu, weight=w) for (y, f, fu), w in zip(parts, weights, strict=True)
    ]
    ours = stratified_ppi(strata, lam=1.0, finite=False)
    w = np.array(weights) / sum(weights)
    points, ses = [], []
    for y, f, fu in parts:
        low, high = (float(np.ravel(b)[0]) for b in ppi_mean_ci(y, f, fu, alpha=0.05, lam=1.0))
        points.append((low + high) / 2)
        ses.append((high - low) / (2 * 1.959963984540054))
    assert ours.estimate == pytest.approx(float(w @ points), abs=1e-12)
    assert ours.se == pytest.approx(math.sqrt(float(w**2 @ np.square(ses))), rel=1e-9)


def test_stratified_ppi_finite_classical_is_cochran_stratified_mean() -> None:
    rng = np.random.default_rng(4)
    strata, est, var = [], 0.0, 0.0
    sizes = [(120, 400), (300, 3000)]
    for n, big_n in sizes:
        y = (rng.random(n) < 0.6).astype(float)
        strata.append(RatioStratum.make(y, y, np.zeros(big_n)))
        wt = big_n / sum(b for _, b in sizes)
        est += wt * y.mean()
        var += wt**2 * (1 - n / big_n) * y.var(ddof=1) / n
    res = stratified_ppi(strata, lam=0.0, finite=True)
    assert res.estimate == pytest.approx(est)
    assert res.se == pytest.approx(math.sqrt(var))


def test_stratified_ppi_finite_census_has_no_error() -> None:
    rng = np.random.default_rng(5)
    y = (rng.random(50) < 0.3).astype(float)
    f = (rng.random(50) < 0.5).astype(float)
    res = stratified_ppi([RatioStratum.make(y, f, f)], lam=1.0, finite=True)
    assert res.estimate == pytest.approx(y.mean())
    assert res.se == 0.0


def test_stratified_ppi_ratio_drops_unlabelled_units() -> None:
    # two of six gold labels are missing (r = 0): the classical ratio is 3 / 4
    y = np.array([1, 1, 0, 1, 0, 0.0])
    r = np.array([1, 1, 1, 1, 0, 0.0])
    res = stratified_ppi([RatioStratum.make(y, y, np.ones(10), r=r, g=r)], lam=0.0)
    assert res.estimate == pytest.approx(0.75)


def test_stratified_ppi_ratio_unbiased_in_simulation() -> None:
    """Monte Carlo: judge-only is biased, PPI is not, and its 95% interval covers ~95%."""
    rng = np.random.default_rng(6)
    big_n, n, reps = 4000, 300, 400
    merit = rng.normal(0.2, 1.5, size=big_n)
    resolved = (rng.random(big_n) < 0.95).astype(float)
    gold = (merit + rng.normal(0, 0.7, size=big_n) > 0) * resolved
    says = rng.random(big_n) < 0.98
    judge = (merit + 0.6 + rng.normal(0, 0.7, size=big_n) > 0) * says
    truth = gold.sum() / resolved.sum()
    cover, errors = 0, []
    for _ in range(reps):
        idx = rng.choice(big_n, size=n, replace=False)
        s = RatioStratum.make(
            gold[idx], judge[idx], judge, r=resolved[idx], g=says[idx], g_pool=says
        )
        res = stratified_ppi([s], lam=None, finite=True)
        cover += res.low <= truth <= res.high
        errors.append(res.estimate - truth)
    judge_only = plug_in_ratio(judge, says)
    assert abs(judge_only.estimate - truth) > 5 * judge_only.se
    assert abs(float(np.mean(errors))) < 3 * float(np.std(errors)) / math.sqrt(reps)
    assert 0.92 <= cover / reps <= 0.98


def test_plug_in_ratio_is_share_of_verdicts() -> None:
    f = np.array([1, 0, 1, 0, 0.0])
    g = np.array([1, 1, 1, 0, 1.0])
    assert plug_in_ratio(f, g).estimate == pytest.approx(0.5)


def test_stratified_ppi_rejects_lam_outside_unit_interval() -> None:
    s = RatioStratum.make([1, 0, 1], [1, 1, 1], [1, 0])
    with pytest.raises(ValueError, match="`lam` must lie in"):
        stratified_ppi([s], lam=1.5)


def test_stratified_ppi_rejects_no_strata() -> None:
    with pytest.raises(ValueError, match="at least one stratum"):
        stratified_ppi([])


def test_ratio_stratum_rejects_length_mismatch() -> None:
    with pytest.raises(ValueError, match="one value per labelled unit"):
        RatioStratum.make([1, 0, 1], [1, 1], [1, 0])


def test_ratio_stratum_rejects_label_where_r_is_zero() -> None:
    with pytest.raises(ValueError, match="must be 0 wherever"):
        RatioStratum.make([1, 0, 1], [1, 1, 1], [1, 0], r=[0, 1, 1])


def test_ratio_stratum_rejects_nan() -> None:
    with pytest.raises(ValueError, match="NaN"):
        RatioStratum.make([1, np.nan, 1], [1, 1, 1], [1, 0])


def test_ratio_stratum_rejects_tiny_stratum() -> None:
    with pytest.raises(ValueError, match="at least 2 labelled units"):
        RatioStratum.make([1], [1], [1, 0])


def _ratio_strata(seed: int) -> list[RatioStratum]:
    """Two strata of indicator data with unresolved units and judge abstentions."""
    rng = np.random.default_rng(seed)
    out = []
    for n, big_n, p in ((40, 90, 0.8), (60, 400, 0.4)):
        r = (rng.random(n) < 0.9).astype(float)
        y = r * (rng.random(n) < p)
        g = (rng.random(n) < 0.95).astype(float)
        f = g * np.where(rng.random(n) < 0.8, y, 1 - y)
        g_pool = (rng.random(big_n) < 0.95).astype(float)
        f_pool = g_pool * (rng.random(big_n) < p)
        out.append(RatioStratum.make(y, f, f_pool, r=r, g=g, g_pool=g_pool))
    return out


@pytest.mark.parametrize("lam", [None, 0.0, 1.0, 0.4])
def test_resampled_points_equal_stratified_ppi_on_each_resample(lam: float | None) -> None:
    strata = _ratio_strata(3)
    rng = np.random.default_rng(4)
    index = [rng.integers(0, len(s.y), size=(5, len(s.y))) for s in strata]
    got = resampled_points(strata, index, lam=lam)
    for b in range(5):
        drawn = [
            RatioStratum.make(
                s.y[i[b]], s.f[i[b]], s.f_pool, r=s.r[i[b]], g=s.g[i[b]], g_pool=s.g_pool
            )
            for s, i in zip(strata, index, strict=True)
        ]
        expected = stratified_ppi(drawn, lam=lam).estimate
        assert got[b] == pytest.approx(expected, abs=1e-12)


def test_resampled_points_identity_resample_is_the_estimate() -> None:
    strata = _ratio_strata(5)
    index = [np.arange(len(s.y))[None, :].repeat(300, axis=0) for s in strata]
    got = resampled_points(strata, index)  # more rows than one block
    assert got.shape == (300,)
    assert np.allclose(got, stratified_ppi(strata).estimate, rtol=0, atol=1e-12)


def test_resampled_points_bootstrap_spread_matches_the_clt_error() -> None:
    strata = _ratio_strata(6)
    rng = np.random.default_rng(7)
    index = [rng.integers(0, len(s.y), size=(2000, len(s.y))) for s in strata]
    spread = float(np.std(resampled_points(strata, index, lam=1.0)))
    se = stratified_ppi(strata, lam=1.0, finite=False).se
    assert 0.8 * se < spread < 1.25 * se


def test_resampled_points_rejects_bad_indices() -> None:
    strata = _ratio_strata(8)
    with pytest.raises(ValueError, match="one index matrix per stratum"):
        resampled_points(strata, [np.zeros((2, 3), dtype=int)])
    with pytest.raises(ValueError, match="outside"):
        resampled_points(strata, [np.full((2, 3), 40), np.zeros((2, 3), dtype=int)])
    with pytest.raises(ValueError, match="same R"):
        resampled_points(strata, [np.zeros((2, 3), dtype=int), np.zeros((3, 3), dtype=int)])
