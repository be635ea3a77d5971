"""The one-sided t-test and the Benjamini-Yekutieli procedure against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from medqade import stats


def test_t_test_greater_equals_scipy() -> None:
    x = np.random.default_rng(2).normal(0.1, 1.0, 50)
    t, p = stats.t_test_greater(x, -0.2)
    ref = sps.ttest_1samp(x, -0.2, alternative="greater")
    assert t == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    assert stats.t_test_greater([1.0, 1.0], 0.0) == (math.inf, 0.0)


def test_benjamini_yekutieli_equals_scipy() -> None:
    rng = np.random.default_rng(8)
    for _ in range(50):
        p = rng.uniform(0, 0.05, 10) ** rng.uniform(0.5, 2)
        adjusted = sps.false_discovery_control(p, method="by")
        assert stats.benjamini_yekutieli(p, 0.05).tolist() == (adjusted <= 0.05).tolist()


def test_benjamini_yekutieli_by_hand() -> None:
    # m = 3, c(3) = 1 + 1/2 + 1/3 = 11/6; thresholds k q / (m c) = k * 0.05 / 5.5
    p = [0.0090, 0.0181, 0.5]
    assert stats.benjamini_yekutieli(p, 0.05).tolist() == [True, True, False]
    assert stats.benjamini_yekutieli([0.0092, 0.5, 0.6], 0.05).tolist() == [False] * 3
    assert stats.benjamini_yekutieli([math.nan, 0.001], 0.05).tolist() == [False, True]


def test_few_units_factor_is_the_t_interval_over_the_bootstrap_one() -> None:
    """For n units the bootstrap's SD of a mean is s sqrt((n - 1) / n) / sqrt(n); the factor
    makes a normal-quantile interval of it as wide as the t interval s t_{n-1} / sqrt(n)."""
    from scipy import stats as sps

    from medqade.stats import few_units_factor

    for n in (2, 9, 10, 30):
        boot_sd = np.sqrt((n - 1) / n)  # relative to s / sqrt(n)
        t_half = sps.t.ppf(0.975, n - 1)
        assert few_units_factor(n) * boot_sd * sps.norm.ppf(0.975) == pytest.approx(t_half)
    assert few_units_factor(10) == pytest.approx(1.2167, abs=1e-4)
    assert np.isnan(few_units_factor(1))
