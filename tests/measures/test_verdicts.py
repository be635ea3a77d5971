"""measures.verdicts: one verdict computation for the scorer and the paper tables."""

from __future__ import annotations

import numpy as np
import pytest

from medqade.measures import agreement as agr
from medqade.measures import paired, verdicts
from medqade.measures.seeds import question_weights

SLOTS = ("s1", "s2")


def _panel(seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, size=(60, 2))
    flip = rng.random((6, 60, 2)) < 0.15
    phys = np.where(flip, 1 - truth, truth)
    judge = np.where(rng.random((60, 2)) < 0.2, 1 - truth, truth)
    judge[:3, 0] = 2  # a few abstentions
    return judge, phys


def test_core_verdict_is_judge_in_place_with_derived_margins() -> None:
    judge, phys = _panel()
    w = question_weights(60, 200, seed=1)
    found = verdicts.core_verdict(judge, phys, SLOTS, w, margin=0.1)
    place = agr.judge_in_place(judge, phys, SLOTS, w)
    ref = place.physicians
    assert dict(found.margins) == paired.margins(0.1, ref.pa.value, ref.kappa.value)
    for m in agr.METRICS:
        d = place.difference(m)
        assert found.differences[m].value == d.value
        assert found.differences[m].ci == d.ci
        expected = paired.derived_verdict(d.low, d.high, found.margins[m])
        assert found.verdicts[m] == expected
    assert found.verdict == found.verdicts["kappa"]
    block = found.to_dict()
    assert block["method"] == verdicts.CORE_METHOD
    assert "verdict" not in block and "n_items" not in block  # the record keeps them outside
    assert block["panel_error"]["kappa"] == place.panel_error("kappa")


def test_extension_verdict_restricts_items_and_weights() -> None:
    judge, phys = _panel(8)
    first, second = phys[0], phys[1]
    items = np.zeros(60, dtype=bool)
    items[20:] = True
    present = np.ones((60, 2), dtype=bool)
    w = question_weights(60, 100, seed=2)
    found = verdicts.extension_verdict(judge, present, (first, second, items), SLOTS, w)
    assert found is not None
    place = agr.pair_in_place(judge[20:], first[20:], second[20:], SLOTS, w[:, 20:])
    assert found.differences["kappa"].ci == place.difference("kappa").ci
    block = found.to_dict()
    assert block["n_items"] == 40
    assert block["verdict"] == found.verdicts["kappa"]
    assert block["method"] == verdicts.EXTENSION_METHOD
    # a slot without a row is a missing label: a disagreement, never a gain
    partial = present.copy()
    partial[20:30] = False
    fewer = verdicts.extension_verdict(judge, partial, (first, second, items), SLOTS, w)
    assert fewer is not None
    assert fewer.differences["pa"].value < found.differences["pa"].value
    # no extension row at all: no extension verdict
    none = np.zeros_like(present)
    none[:20] = True
    assert verdicts.extension_verdict(judge, none, (first, second, items), SLOTS, w) is None


def test_extension_pair_leaves_out_the_core() -> None:
    p = np.full((3, 4, 1), -1)
    p[0, :, 0], p[1, :, 0] = 1, 0  # physicians 0 and 1 rate every item
    p[2, 0, 0] = 1  # the adjudicator voted on item 0
    core = np.array([True, True, False, False])
    first, second, items = verdicts.extension_pair(p, 2, core)
    assert items.tolist() == [False, False, True, True]
    assert first[:, 0].tolist() == [1, 1, 1, 1] and second[:, 0].tolist() == [0, 0, 0, 0]


def test_bad_margin_is_refused() -> None:
    judge, phys = _panel()
    with pytest.raises(ValueError, match="margin"):
        verdicts.core_verdict(judge, phys, SLOTS, margin=2.0)
