"""Tests of medqade.stats.icc (oracle: pingouin's intraclass_corr)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pingouin as pg
import pytest

from medqade.stats import IntraclassCorrelations, intraclass_correlations

SHROUT_FLEISS = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
)

# pingouin's row labels (either naming, depending on its version) -> our field names
PINGOUIN_TYPES = {
    "ICC1": "icc1", "ICC(1,1)": "icc1",
    "ICC2": "icc2", "ICC(A,1)": "icc2",
    "ICC3": "icc3", "ICC(C,1)": "icc3",
    "ICC1k": "icc1k", "ICC(1,k)": "icc1k",
    "ICC2k": "icc2k", "ICC(A,k)": "icc2k",
    "ICC3k": "icc3k", "ICC(C,k)": "icc3k",
}  # fmt: skip


def test_intraclass_correlations_shrout_fleiss_1979() -> None:
    res = intraclass_correlations(SHROUT_FLEISS)
    assert isinstance(res, IntraclassCorrelations)
    assert res.icc1 == pytest.approx(0.165742, abs=1e-6)
    assert res.icc2 == pytest.approx(0.289764, abs=1e-6)
    assert res.icc3 == pytest.approx(0.714841, abs=1e-6)
    assert res.icc1k == pytest.approx(0.442797, abs=1e-6)
    assert res.icc2k == pytest.approx(0.620051, abs=1e-6)
    assert res.icc3k == pytest.approx(0.909316, abs=1e-6)
    assert (res.n_targets, res.n_raters) == (6, 4)


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside pingouin
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_intraclass_correlations_match_pingouin(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(40, 1)) + rng.normal(scale=0.7, size=(40, 5)) + rng.normal(size=5)
    long = pd.DataFrame(
        [(t, r, x[t, r]) for t in range(40) for r in range(5)], columns=["t", "r", "y"]
    )
    table = pg.intraclass_corr(data=long, targets="t", raters="r", ratings="y")
    res = intraclass_correlations(x)
    seen = set()
    for label, icc in zip(table["Type"], table["ICC"], strict=True):
        field = PINGOUIN_TYPES[label]
        assert getattr(res, field) == pytest.approx(icc, abs=1e-9)
        seen.add(field)
    assert seen == {"icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k"}


def test_intraclass_correlations_constant_data_is_nan() -> None:
    res = intraclass_correlations(np.ones((4, 3)))
    assert np.isnan(res.icc1) and np.isnan(res.icc3k)


def test_intraclass_correlations_rejects_nan() -> None:
    x = SHROUT_FLEISS.astype(float)
    x[2, 1] = np.nan
    with pytest.raises(ValueError, match="listwise"):
        intraclass_correlations(x)


def test_intraclass_correlations_rejects_infinite() -> None:
    x = SHROUT_FLEISS.astype(float)
    x[2, 1] = np.inf
    with pytest.raises(ValueError, match="infinite values"):
        intraclass_correlations(x)


def test_intraclass_correlations_rejects_wrong_ndim() -> None:
    with pytest.raises(ValueError, match=r"must have shape \(targets, raters\)"):
        intraclass_correlations(np.ones(5))


def test_intraclass_correlations_rejects_non_numeric() -> None:
    with pytest.raises(ValueError, match="must be a numeric array"):
        intraclass_correlations(np.array([["a", "b"], ["c", "d"]]))


def test_intraclass_correlations_rejects_empty() -> None:
    with pytest.raises(ValueError, match="`x` is empty"):
        intraclass_correlations(np.ones((0, 3)))


def test_intraclass_correlations_rejects_single_rater() -> None:
    with pytest.raises(ValueError, match="at least two targets and two raters"):
        intraclass_correlations(np.ones((5, 1)))
