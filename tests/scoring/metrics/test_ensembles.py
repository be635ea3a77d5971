"""Majority-vote ensembles (:mod:`medqade.scoring.metrics.ensembles`): the best panel is the best of
every subset by an independent kappa (scikit-learn), the judge is forced in, and the section
pairs the panels with and without it."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import reference_agreement as measured
from medqade.scoring.metrics.ensembles import ENSEMBLE_SIZES, best_index, best_panel, ensembles

R, F = vocab.RICHTIG_CODE, vocab.FALSCH_CODE


def _macro_kappa(voted: np.ndarray, reference: np.ndarray) -> float:
    return float(
        np.mean([cohen_kappa_score(voted[:, s], reference[:, s]) for s in range(voted.shape[1])])
    )


def test_best_index_skips_nan_and_breaks_ties_by_order() -> None:
    assert best_index(np.array([np.nan, 0.3, 0.3])) == 1
    assert best_index(np.array([np.nan, np.nan])) == -1
    assert best_index(np.array([])) == -1


def test_best_panel_is_the_best_subset_by_sklearn_kappa() -> None:
    rng = np.random.default_rng(11)
    reference = rng.choice([R, F], size=(60, 2)).astype(np.int8)
    noise = [0.1, 0.3, 0.45, 0.2]
    pool = np.stack(
        [np.where(rng.random(reference.shape) < p, R + F - reference, reference) for p in noise]
    ).astype(np.int8)
    found = best_panel(pool, reference, 3, None)
    assert found is not None
    members, voted = found
    scores = {
        c: _macro_kappa(measured.ensemble_vote(pool[list(c)]), reference)
        for c in combinations(range(4), 3)
    }
    assert np.isclose(_macro_kappa(voted, reference), max(scores.values()))
    assert scores[members] == max(scores.values())
    judge = reference.copy()
    forced = best_panel(pool, reference, 3, judge)
    assert forced is not None and len(forced[0]) == 2
    assert best_panel(pool, reference, 7, None) is None  # more members than the pool


def test_the_section_pairs_panels_with_and_without_the_judge(sample: Release) -> None:
    core = np.asarray(sample.is_core, dtype=bool)
    labels = sample.consensus[core].copy()
    found = ensembles(sample, labels, None, None)
    assert found.split == "core" and found.selected_by == "kappa" and found.panels
    assert {p.size for p in found.panels} <= set(ENSEMBLE_SIZES)
    for panel in found.panels:
        assert panel.with_ is not None and panel.with_.members is not None
        assert panel.with_.members[0] == "submission"
        if panel.without is not None:
            assert panel.kappa_gain == panel.with_.kappa - panel.without.kappa  # type: ignore[operator]
            assert panel.helps == (panel.kappa_gain > 0)  # type: ignore[operator]
    written = found.to_json()
    assert written["panels"][0]["with"]["members"][0] == "submission"
