"""Breakdowns (medqade.measures.breakdown) against scikit-learn's Cohen's kappa per slot."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures.breakdown import breakdowns, categorical_columns, dimensions
from medqade.measures.seeds import question_weights


def test_specialty_is_the_categorical_column(full: Release) -> None:
    assert categorical_columns(full.questions) == ("specialty",)


def test_group_kappa_and_pa_equal_sklearn(full: Release) -> None:
    labels = full.evaluator_labels[2]
    dims = dimensions(full.questions, full.tier, full.lexical)
    w = question_weights(full.n_items, 20, 1)
    found = breakdowns(labels, full.consensus, dims, full.roster.student_ids, w)
    assert set(found.groups) == {"specialty", "tier", "lexical"}
    assert list(found.groups["tier"]) == ["T1", "T2", "T3", "T4"]
    group = sorted(set(full.questions["specialty"]))[3]
    mask = (full.questions["specialty"] == group).to_numpy()
    kappas, pas = [], []
    for s in range(vocab.N_SLOTS):
        ref = full.consensus[mask, s]
        lab = labels[mask, s]
        ok = ref >= 0
        # an abstention or missing label counts as the label opposite to the consensus
        judged = np.where((lab == vocab.RICHTIG_CODE) | (lab == vocab.FALSCH_CODE), lab, 1 - ref)
        kappas.append(cohen_kappa_score(judged[ok], ref[ok]))
        pas.append(float((judged[ok] == ref[ok]).mean()))
    got = found.groups["specialty"][group]
    assert got is not None
    assert got.kappa.value == pytest.approx(np.mean(kappas))
    assert got.pa.value == pytest.approx(np.mean(pas))
    assert got.n_items == int(mask.sum())
    assert got.kappa.low <= got.kappa.value <= got.kappa.high
    block = found.to_json()["specialty"][group]
    assert block["kappa"] == got.kappa.value and block["n_items"] == int(mask.sum())
