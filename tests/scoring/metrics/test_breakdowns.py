"""A judge's breakdowns (:mod:`medqade.scoring.metrics.breakdowns`): the confusion table against an
independent cross-tabulation, abstention shares by hand, the unanimous-panel contradictions
and the bias section's shape."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.scoring.metrics.breakdowns import (
    JUDGE_NAMES,
    REFERENCE_NAMES,
    abstention,
    bias,
    confusion,
    disagreements,
    rate,
    unanimous_panel,
)

R, F, A, M = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE, vocab.MISSING_CODE


def test_confusion_equals_a_pandas_crosstab() -> None:
    rng = np.random.default_rng(5)
    labels = rng.choice([R, F, A, M], size=(40, 5)).astype(np.int8)
    reference = rng.choice([R, F, M], size=(40, 5)).astype(np.int8)
    present = rng.random((40, 5)) < 0.8
    table = confusion(labels, present, reference)
    frame = pd.crosstab(
        pd.Series(labels[present]).map(JUDGE_NAMES),
        pd.Series(reference[present]).map(REFERENCE_NAMES),
    )
    for jn in JUDGE_NAMES.values():
        for rn in REFERENCE_NAMES.values():
            expected = int(frame.loc[jn, rn]) if jn in frame.index and rn in frame.columns else 0
            assert table[jn][rn] == expected
    assert sum(sum(row.values()) for row in table.values()) == int(present.sum())


def test_abstention_shares_by_hand() -> None:
    labels = np.array([[A, R, F, M, A], [R, R, F, F, R]], dtype=np.int8)
    present = np.array([[1, 1, 1, 1, 0], [1, 1, 1, 0, 0]], dtype=bool)
    out = abstention(labels, present, np.array([2, 3], dtype=np.int8))
    assert out.global_ == pytest.approx(1 / 7)
    assert out["global"] == out.global_  # read as its JSON too
    assert out.by_tier is not None and out.by_tier[1] == pytest.approx(1 / 4)
    assert out.by_tier[2] == 0.0 and math.isnan(out.by_tier[0])
    assert (out.n_slots, out.n_abstained, out.n_missing) == (7, 1, 1)
    assert out.answered_share == pytest.approx(5 / 6)
    assert math.isnan(rate(np.zeros(3, bool), np.zeros(3, bool)))


def test_disagreements_are_the_contradicted_unanimous_slots(sample: Release) -> None:
    unanimous, panel = unanimous_panel(sample)
    flipped = np.where(panel == R, F, R).astype(np.int8)
    everywhere = np.ones(flipped.shape, dtype=bool)
    items = np.ones(sample.n_items, dtype=bool)
    found = disagreements(sample, flipped, everywhere, items)
    assert found.n == found.n_unanimous == int(unanimous.sum())
    assert found.answer_ids is not None and len(found.answer_ids) == found.n
    agreeing = disagreements(sample, panel, everywhere, items)
    assert agreeing.n == 0 and agreeing.rate == 0.0


def test_bias_only_for_a_student_family(sample: Release) -> None:
    labels = sample.evaluator_labels[0]
    assert bias(sample, labels, None, "no such family", None) is None
    family = sample.roster.students[0].family
    found = bias(sample, labels, None, family, sample.roster.students[0].id)
    assert found is not None and found.family == family and found.targets
    kinds = {t.kind for t in found.targets}
    assert "self" in kinds
    assert found.peers is not None and all(
        m.family != family for m in sample.roster.evaluators if m.id in found.peers
    )
    assert found.to_json()["targets"][0]["student"] == found.targets[0].student
