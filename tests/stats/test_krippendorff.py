"""Tests of medqade.stats.krippendorff (oracle: the krippendorff package)."""

from __future__ import annotations

import tracemalloc
from typing import Literal

import krippendorff
import numpy as np
import pytest

from medqade.stats import MISSING, krippendorff_alpha

from .helpers import bootstrap_setup, random_ratings

M = MISSING
Level = Literal["nominal", "interval"]

# Krippendorff (2011): 4 raters x 12 units, values 1..5 (coded 0..4 here)
KRIPPENDORFF_2011 = (
    np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
            [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],
        ]
    )
    - 1
)

# 3 coders x 15 units of Wikipedia and the krippendorff package (values 1..4, coded 0..3)
WIKIPEDIA = (
    np.array(
        [
            [0, 0, 0, 0, 0, 3, 4, 1, 2, 1, 1, 3, 3, 0, 3],
            [1, 0, 2, 1, 3, 3, 4, 3, 0, 0, 0, 0, 0, 0, 0],
            [0, 0, 2, 1, 3, 4, 4, 0, 2, 1, 1, 3, 3, 0, 4],
        ]
    )
    - 1
)


def package_alpha(ratings: np.ndarray, level: Level) -> float:
    data = np.where(ratings == MISSING, np.nan, ratings.astype(float))
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


@pytest.mark.parametrize(
    ("data", "level", "expected"),
    [
        (KRIPPENDORFF_2011, "nominal", 0.743421),
        (KRIPPENDORFF_2011, "interval", 0.849107),
        (WIKIPEDIA, "nominal", 0.691358),
        (WIKIPEDIA, "interval", 0.810845),
    ],
)
def test_krippendorff_alpha_published_values(
    data: np.ndarray, level: Level, expected: float
) -> None:
    assert krippendorff_alpha(data, level) == pytest.approx(expected, abs=1e-6)


def test_krippendorff_alpha_published_fractions() -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, "nominal") == pytest.approx(113 / 152, abs=1e-12)
    assert krippendorff_alpha(KRIPPENDORFF_2011, "interval") == pytest.approx(951 / 1120, abs=1e-12)


def test_krippendorff_alpha_is_invariant_to_declared_k() -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, "nominal", k=9) == pytest.approx(
        113 / 152, abs=1e-12
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("level", ["nominal", "interval"])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_krippendorff_alpha_matches_package_with_missing(seed: int, level: Level, k: int) -> None:
    ratings = random_ratings(seed, raters=10, units=200, k=k, accuracy=0.5)
    got = krippendorff_alpha(ratings, level, k=k)
    assert got == pytest.approx(package_alpha(ratings, level), abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_weighted_alpha_equals_resampled_data(seed: int, level: Level) -> None:
    ratings = random_ratings(seed, raters=6, units=70, k=3, accuracy=0.6)
    idx, weights = bootstrap_setup(seed, 70, n_resamples=30)
    alpha = krippendorff_alpha(ratings, level, k=3, weights=weights)
    assert alpha.shape == (30,)
    for r in range(30):
        plain = krippendorff_alpha(ratings[:, idx[r]], level, k=3)
        assert alpha[r] == pytest.approx(plain, abs=1e-12)


def test_weighted_alpha_memory_bound_1000_resamples() -> None:
    ratings = random_ratings(0, raters=10, units=200, k=3)
    weights = np.random.default_rng(0).multinomial(200, np.full(200, 1 / 200), size=1000)
    tracemalloc.start()
    try:
        alpha = krippendorff_alpha(ratings, "interval", k=3, weights=weights)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert alpha.shape == (1000,) and np.all(np.isfinite(alpha))
    assert peak < 64 * 2**20


def test_krippendorff_alpha_single_category_is_nan() -> None:
    ratings = np.array([[1, 1, M], [1, 1, 1]])
    assert np.isnan(krippendorff_alpha(ratings))
    with pytest.raises(ValueError):  # the package raises where we return NaN
        package_alpha(ratings, "nominal")


def test_krippendorff_alpha_without_pairable_unit_is_nan() -> None:
    ratings = np.array([[0, M, 1], [M, 1, M]])
    assert np.isnan(krippendorff_alpha(ratings, "interval"))
    assert np.isnan(krippendorff_alpha(np.full((3, 4), M)))


def test_krippendorff_alpha_single_unit_matches_package() -> None:
    ratings = np.array([[0], [1]])
    assert krippendorff_alpha(ratings) == pytest.approx(package_alpha(ratings, "nominal"))


def test_krippendorff_alpha_weighted_degenerate_replicate_is_nan() -> None:
    ratings = np.array([[0, 1, 1], [0, 1, 0]])
    alpha = krippendorff_alpha(ratings, weights=np.array([[3, 0, 0], [1, 1, 1]]))
    assert np.isnan(alpha[0]) and alpha[1] == pytest.approx(krippendorff_alpha(ratings))


def test_krippendorff_alpha_rejects_bad_level() -> None:
    with pytest.raises(ValueError, match='`level` must be "nominal" or "interval"'):
        krippendorff_alpha(KRIPPENDORFF_2011, "ordinal")  # type: ignore[call-overload]


def test_krippendorff_alpha_rejects_bad_k() -> None:
    with pytest.raises(ValueError, match="`k` must be an integer of at least 1"):
        krippendorff_alpha(KRIPPENDORFF_2011, k=0)


def test_krippendorff_alpha_rejects_codes_above_k() -> None:
    with pytest.raises(ValueError, match=r"codes 0\.\.2 or MISSING"):
        krippendorff_alpha(KRIPPENDORFF_2011, k=3)


def test_krippendorff_alpha_rejects_codes_below_missing() -> None:
    with pytest.raises(ValueError, match="non-negative codes or MISSING"):
        krippendorff_alpha(np.array([[0, -2], [1, 1]]))


def test_krippendorff_alpha_rejects_one_dimensional_input() -> None:
    with pytest.raises(ValueError, match=r"must have shape \(raters, units\)"):
        krippendorff_alpha(np.array([0, 1, 1]))


def test_krippendorff_alpha_rejects_zero_units() -> None:
    with pytest.raises(ValueError, match="`ratings` has zero units"):
        krippendorff_alpha(np.zeros((3, 0), dtype=int))
