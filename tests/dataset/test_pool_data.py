"""The pool arrays the pool estimate reads (:mod:`medqade.dataset.pool_data`), from a build
with a pool: one judge's labels over every pool item, aligned with the physician consensus."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from medqade import vocab
from medqade.dataset.build import build
from medqade.dataset.pool_data import load_pool_labels, pool_evaluators

JUDGE = "gemini-3-flash-preview"


def test_a_published_judge_s_pool_labels(pool_sample: Callable[..., Path], tmp_path: Path) -> None:
    out = tmp_path / "build"
    build(pool_sample(), out)
    assert pool_evaluators(out) == (JUDGE,)
    labels = load_pool_labels(out, JUDGE)
    n = labels.judge_pool.shape[0]
    assert labels.judge == JUDGE and labels.judge_pool.shape == (n, vocab.N_SLOTS)
    assert labels.lexical_pool.shape == labels.labelled.shape == (n,)
    assert labels.labelled.sum() == 6 and n == 8  # the sample's six items and two new ones
    assert labels.consensus.shape == (6, vocab.N_SLOTS)
    # the stub judge says Richtig to the first student only
    first = labels.students.index("gemini-2.5-flash")
    assert (labels.judge_pool[:, first] == vocab.RICHTIG_CODE).all()
    others = np.delete(labels.judge_pool, first, axis=1)
    assert (others == vocab.FALSCH_CODE).all() and labels.n_missing == 0
    with pytest.raises(ValueError, match="neither a judgments file nor a judge with pool"):
        load_pool_labels(out, "nobody")


def test_a_build_without_a_pool_is_named(built_sample: Path) -> None:
    with pytest.raises(FileNotFoundError, match="this release has no 'pool' config"):
        load_pool_labels(built_sample, JUDGE)
