"""Per-release values shared by every record (:mod:`medqade.scoring.metrics.context`): computed once
per release, read-only, the same as computing them afresh."""

from __future__ import annotations

import numpy as np
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import seeds
from medqade.scoring.metrics import context


def test_masks(sample: Release) -> None:
    core = context.mask(sample, context.CORE)
    np.testing.assert_array_equal(core, np.asarray(sample.is_core, dtype=bool))
    assert context.mask(sample, context.ALL).all() and core.sum() < sample.n_items


def test_weights_are_the_seeded_question_weights_once_per_key(sample: Release) -> None:
    context.clear(sample)
    assert context.weights(sample, context.CORE, 0, 1) is None
    w = context.weights(sample, context.CORE, 20, 3)
    assert w is not None and not w.flags.writeable
    n = int(context.mask(sample, context.CORE).sum())
    np.testing.assert_array_equal(w, seeds.question_weights(n, 20, 3, seeds.STREAM_CORE))
    assert context.weights(sample, context.CORE, 20, 3) is w
    full = context.weights(sample, context.ALL, 20, 3)
    assert full is not None and full.shape == (20, sample.n_items)


def test_derived_values_and_memo(sample: Release) -> None:
    context.clear(sample)
    richtig, falsch = context.derived(sample, "votes")
    p = sample.physician_labels
    np.testing.assert_array_equal(richtig, (p == vocab.RICHTIG_CODE).sum(axis=0))
    np.testing.assert_array_equal(falsch, (p == vocab.FALSCH_CODE).sum(axis=0))
    keys = context.derived(sample, "answer_keys")
    assert keys.shape == sample.answer_text.shape
    kappas = context.derived(sample, "evaluator_core_kappa")
    assert set(kappas) == set(sample.roster.evaluator_ids)
    with pytest.raises(KeyError):
        context.derived(sample, "nothing")
    calls: list[int] = []
    assert context.memo(sample, "k", lambda: calls.append(1) or 42) == 42
    assert context.memo(sample, "k", lambda: calls.append(1) or 0) == 42 and calls == [1]
    context.clear(sample)
    assert context.memo(sample, "k", lambda: 7) == 7  # cleared: computed again
