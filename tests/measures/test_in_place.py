"""measures.in_place: the like-for-like difference and its two-way interval over questions
and physicians, against a loop that resamples both by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from medqade.dataset.release import Release
from medqade.measures import in_place
from medqade.measures.seeds import physician_weights, question_weights


def test_two_way_replicates_equal_a_loop_over_resampled_questions_and_physicians(
    full: Release,
) -> None:
    core = np.asarray(full.is_core, dtype=bool)
    phys = full.physician_labels[:, core]
    judge = full.evaluator_labels[1][core]
    slots = full.roster.student_ids
    w = question_weights(int(core.sum()), 6, seed=9)
    v = physician_weights(phys.shape[0], 6, seed=9)
    place = in_place.judge_in_place(judge, phys, slots, w)
    reps = place.replicates("kappa", v)
    assert reps is not None
    for b in range(6):
        idx = np.repeat(np.arange(w.shape[1]), w[b])
        again = in_place.judge_in_place(judge[idx], phys[:, idx], slots)
        drawn = np.repeat(np.arange(phys.shape[0]), v[b])  # physicians, with repetition
        terms = again.terms["kappa"]
        q = float(np.mean(terms))  # the question-only replicate
        n = terms.size  # the physician part widened like a t interval over n physicians
        k = np.sqrt(n / (n - 1)) * sps.t.ppf(0.975, n - 1) / sps.norm.ppf(0.975)
        expected = q + k * (float(np.mean(terms[drawn])) - q)
        assert reps[b] == pytest.approx(expected, abs=1e-12)


def test_physician_weights_are_seeded_counts() -> None:
    v = physician_weights(10, 50, seed=4)
    assert v.shape == (50, 10) and (v.sum(axis=1) == 10).all()
    assert (v == physician_weights(10, 50, seed=4)).all()
    assert not (v == physician_weights(10, 50, seed=5)).all()


def test_the_panel_widens_the_interval_beyond_given_this_panel(full: Release) -> None:
    core = np.asarray(full.is_core, dtype=bool)
    phys = full.physician_labels[:, core]
    slots = full.roster.student_ids
    w = question_weights(int(core.sum()), 300, seed=2)
    v = physician_weights(phys.shape[0], 300, seed=2)
    place = in_place.judge_in_place(full.evaluator_labels[0][core], phys, slots, w)
    fixed, both = place.difference("kappa"), place.difference("kappa", v)
    assert both.value == fixed.value
    assert both.high - both.low > fixed.high - fixed.low


def test_over_physicians_skips_undefined_terms_and_checks_shapes() -> None:
    terms = np.array([[0.1, np.nan], [0.3, 0.5]])  # (P=2, R=2)
    v = np.array([[1, 1], [2, 0]])
    got = in_place.over_physicians(terms, v)
    k = np.sqrt(2) * sps.t.ppf(0.975, 1) / sps.norm.ppf(0.975)
    assert got[0] == pytest.approx(0.2)  # both drawn once: the plain mean
    assert np.isnan(got[1])  # only physician 0 drawn, whose term is undefined there
    again = in_place.over_physicians(np.array([[0.1, 0.2], [0.3, 0.5]]), v)
    assert again[1] == pytest.approx(0.35 + k * (0.2 - 0.35))  # only the first drawn
    with pytest.raises(ValueError, match="physician weights"):
        in_place.over_physicians(terms, np.ones((3, 2)))


def test_primary_roles_and_pair_agree() -> None:
    p = np.full((4, 3, 1), -1)
    p[0, 0], p[2, 0] = 1, 0
    p[2, 1], p[3, 1], p[1, 1] = 1, 2, 0
    first, second, two = in_place.primary_roles(p, adjudicator=1)
    a, b, two_again = in_place.primary_pair(p, adjudicator=1)
    assert two.tolist() == two_again.tolist() == [True, True, False]
    assert first[1] == 1 and second[1] == 2  # indices without the adjudicator
    assert a[1, 0] == 1 and b[1, 0] == 2
