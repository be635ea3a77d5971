"""The input checks every statistic shares (:mod:`medqade.stats._validation`): a bad array is
refused with its name, the shape or value found, and what is expected."""

from __future__ import annotations

import re

import numpy as np
import pytest

from medqade.stats import _validation as v


def test_check_codes() -> None:
    codes = v.check_codes([[0, 1, -1], [2, 0, 1]], name="ratings", ndim=2, k=3)
    assert codes.dtype == np.int64 and codes.shape == (2, 3)
    with pytest.raises(ValueError, match=r"`ratings` must have shape \(units,\)"):
        v.check_codes([[0]], name="ratings", ndim=1, k=2)
    with pytest.raises(ValueError, match="integer category codes with MISSING = -1; got dtype"):
        v.check_codes([0.5, 1.0], name="x", ndim=1, k=2)
    out_of_range = re.escape("codes 0..1 or MISSING (-1); found the value 2")
    with pytest.raises(ValueError, match=out_of_range):
        v.check_codes([0, 2], name="x", ndim=1, k=2)
    with pytest.raises(ValueError, match="found the value -2"):
        v.check_codes([0, -2], name="x", ndim=1, k=None)
    with pytest.raises(ValueError, match="zero raters"):
        v.check_codes(np.zeros((0, 3), dtype=int), name="x", ndim=2, k=2)
    with pytest.raises(ValueError, match="zero units"):
        v.check_codes(np.zeros(0, dtype=int), name="x", ndim=1, k=2)


def test_check_n_categories() -> None:
    assert v.check_n_categories(np.int64(3), minimum=2) == 3
    for bad in (1, True, 2.0):
        with pytest.raises(ValueError, match="`k` must be an integer of at least 2"):
            v.check_n_categories(bad, minimum=2)  # type: ignore[arg-type]


def test_check_weights() -> None:
    w = v.check_weights([[1, 0, 2], [0.5, 1, 1]], 3)
    assert w.dtype == np.float64 and w.shape == (2, 3)
    with pytest.raises(ValueError, match=r"shape \(R, 3\) to match the units"):
        v.check_weights([[1, 1]], 3)
    with pytest.raises(ValueError, match="zero resamples"):
        v.check_weights(np.zeros((0, 3)), 3)
    with pytest.raises(ValueError, match="finite and non-negative"):
        v.check_weights([[1, -1, 0]], 3)
    with pytest.raises(ValueError, match="finite and non-negative"):
        v.check_weights([[1, np.inf, 0]], 3)


def test_row_chunks_cover_every_row_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v, "MEMORY_BUDGET_BYTES", 100)
    chunks = list(v.row_chunks(25, 10))
    assert chunks == [slice(0, 10), slice(10, 20), slice(20, 25)]
    assert list(v.row_chunks(3, 10_000)) == [slice(0, 1), slice(1, 2), slice(2, 3)]
    assert list(v.row_chunks(0, 10)) == []


def test_safe_divide_and_nanmean_without_warnings() -> None:
    with np.errstate(all="raise"):
        out = v.safe_divide([1.0, 2.0, 0.0], [2.0, 0.0, 0.0])
    np.testing.assert_array_equal(out, [0.5, np.nan, np.nan])
    means = v.nanmean_last(np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]]))
    np.testing.assert_array_equal(means, [2.0, np.nan])
