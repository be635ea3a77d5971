"""The result types of a comparison: a paired difference and its JSON, which side is better."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.dataset.release import Release
from medqade.measures import reference_agreement as measured
from medqade.scoring.board.compare_results import METRICS, Comparison, Difference
from medqade.scoring.board.compare_sides import Side
from medqade.scoring.metrics import context

from ..conftest import RESAMPLES

A, B = "gemini-2.5-flash", "gemma3:4b"


def _agreements(full: Release) -> tuple[measured.Agreement, measured.Agreement]:
    items = context.mask(full, context.CORE)
    w = context.weights(full, context.CORE, RESAMPLES, 7)
    slots = full.roster.student_ids
    out = []
    for e in (A, B):
        lab = full.evaluator_labels[full.roster.evaluator_ids.index(e)][items]
        out.append(measured.agreement(lab, full.consensus[items], slots, w, abstain_disagrees=True))
    return out[0], out[1]


def test_difference_is_the_replicate_difference(full: Release) -> None:
    """Value a - b; interval the 2.5/97.5 percentiles of the paired replicate differences
    (numpy's percentile as the oracle)."""
    a, b = _agreements(full)
    d = Difference.of(a, b)
    for m in METRICS:
        x, y, est = a.metric(m), b.metric(m), getattr(d, m)
        assert est.value == x.value - y.value
        assert x.replicates is not None and y.replicates is not None
        diffs = x.replicates - y.replicates
        low, high = np.percentile(diffs[~np.isnan(diffs)], [2.5, 97.5])
        assert (est.low, est.high) == pytest.approx((low, high), abs=1e-12)


def test_difference_json_names_each_metric_and_both_sides(full: Release) -> None:
    a, b = _agreements(full)
    out = Difference.of(a, b).to_dict()
    for m in METRICS:
        est = getattr(Difference.of(a, b), m)
        assert out[m] == est.value and out[f"{m}_ci"] == [est.low, est.high]
        assert out[f"{m}_significant"] == (est.low > 0 or est.high < 0)
    assert out["a"]["n"] == a.n and out["b"]["kappa"] == b.kappa.value
    same = Difference.of(a, a).to_dict()
    assert same["kappa"] == 0.0 and same["kappa_significant"] is False


def test_side_json_and_physicians() -> None:
    side = Side("tok", "Name", "paper", np.zeros((2, 3), dtype=np.int8))
    assert side.to_dict() == {"token": "tok", "name": "Name", "source": "paper"}
    assert not side.is_physicians
    assert Side("physicians", "P", "physicians", None).is_physicians


def _comparison(a: Side, b: Side, overall: Difference) -> Comparison:
    return Comparison(a, b, "core", 200, RESAMPLES, 7, overall, {}, {}, (), 0, 0)


def test_better_and_judge_side(full: Release) -> None:
    """``better`` is the side whose kappa is significantly higher, by the sign of the paired
    interval; ``judge_side`` is the judge when one side is the physicians."""
    x, y = _agreements(full)
    judge = Side(A, A, "paper", np.zeros((1, 1), dtype=np.int8))
    phys = Side("physicians", "P", "physicians", None)
    for first, second in ((x, y), (y, x)):
        d = Difference.of(first, second)
        c = _comparison(judge, judge, d)
        expected = None if not d.kappa.excludes_zero() else ("a" if d.kappa.low > 0 else "b")
        assert c.better == expected and c.judge_side is None
    assert _comparison(phys, judge, Difference.of(x, x)).judge_side == "b"
    assert _comparison(judge, phys, Difference.of(x, x)).judge_side == "a"
    assert _comparison(judge, phys, Difference.of(x, x)).better is None
    out = _comparison(judge, phys, Difference.of(x, y)).to_dict()
    assert out["better"] == _comparison(judge, phys, Difference.of(x, y)).better
    assert out["versus_physicians"] is None and out["judge_against_consensus"] is None
    assert out["settings"] == {"resamples": RESAMPLES, "seed": 7, "confidence": 0.95}
