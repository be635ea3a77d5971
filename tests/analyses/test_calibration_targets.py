"""The calibration table's row type and printed table (:mod:`medqade.analyses.calibration_targets`):
each way of giving a range, the Wilson interval against statsmodels, and the plain-text table."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.proportion import proportion_confint

from medqade.analyses import calibration_targets as T


def test_near_within_exact_and_holds_give_their_ranges() -> None:
    row = T.near("RQ1", "kappa", 0.6, 0.05, 0.64)
    assert row.low == pytest.approx(0.55) and row.high == pytest.approx(0.65)
    assert row.basis == "+/- 0.05" and row.ok
    assert not T.near("RQ1", "kappa", 0.6, 0.05, 0.66).ok
    assert T.near("RQ2", "accuracy", 0.5, 0.02, 0.5, "percent").basis == "+/- 2 pt"
    inside = T.within("RQ3", "gap", 0.1, (0.02, 0.2), 0.2, "paper 95% CI")
    assert inside.ok and (inside.low, inside.high, inside.basis) == (0.02, 0.2, "paper 95% CI")
    assert T.exact("3", "slots", 19000, 19000).ok and not T.exact("3", "slots", 19000, 18999).ok
    yes, no = T.holds("RQ3", "a < b", True), T.holds("RQ3", "a < b", False, "b < a")
    assert yes.ok and not no.ok and no.note == "b < a" and no.unit == "holds"


def test_wilson_equals_statsmodels() -> None:
    for k, n in ((2770, 18000), (0, 40), (40, 40), (7, 13)):
        low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert T.wilson(k, n) == pytest.approx((low, high), abs=1e-12)


def test_argmax_argmin_and_overlap() -> None:
    values = {"a": 0.2, "b": 0.9, "c": -0.1}
    assert T.argmax(values) == "b" and T.argmin(values) == "c"
    assert T.overlap((0.0, 1.0), (1.0, 2.0)) and T.overlap((0.5, 0.6), (0.0, 1.0))
    assert not T.overlap((0.0, 0.99), (1.0, 2.0))


def test_format_table_aligns_and_marks_the_failing_rows() -> None:
    rows = [
        T.near("RQ1", "physician kappa", 0.6, 0.05, 0.61),
        T.near("RQ2", "accuracy", 0.5, 0.02, 0.45, "percent"),
        T.holds("RQ3", "best judge", False, "found gpt"),
        T.exact("3", "slots", 30, math.nan),
    ]
    lines = T.format_table(rows).splitlines()
    assert lines[0].split() == ["section", "finding", "paper", "value", "accepted", "ok"]
    assert len({len(line.rstrip("yesNO ")) for line in lines[1:]}) <= 2
    assert lines[1].endswith("yes") and "0.61" in lines[1] and "+/- 0.05" in lines[1]
    assert "45.00%" in lines[2] and "50.00%" in lines[2] and lines[2].endswith("NO")
    assert "best judge [found gpt]" in lines[3] and "fails" in lines[3]
    assert lines[4].split()[-3:] == ["-", "exact", "NO"]
