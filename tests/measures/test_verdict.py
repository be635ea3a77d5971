"""The verdict's pieces against independent implementations: abstention as disagreement,
one margin, the judge in each physician's place and its two tests (the alt-test:
tests/measures/test_aat.py)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade.consensus import majority_of_codes
from medqade.dataset.release import Release
from medqade.measures import in_place, physician_reference
from medqade.measures import reference_agreement as agr
from medqade.measures.paired import VERDICTS, verdict_of_bounds
from medqade.measures.seeds import question_weights

from .conftest import RESAMPLES


def _macro_sklearn(x: np.ndarray, ref: np.ndarray, penalise: bool) -> tuple[float, float]:
    """Macro PA and kappa by scikit-learn, abstentions (2) and missing (-1) of ``x`` on a
    resolved ``ref`` answer as the opposite label (``penalise``) or dropped."""
    pas, kappas = [], []
    for s in range(x.shape[1]):
        a, b = x[:, s].astype(int), ref[:, s].astype(int)
        keep = (b == 0) | (b == 1)
        a, b = a[keep], b[keep]
        if penalise:
            a = np.where((a == 0) | (a == 1), a, 1 - b)
        else:
            ok = (a == 0) | (a == 1)
            a, b = a[ok], b[ok]
        pas.append(float(np.mean(a == b)))
        kappas.append(float(cohen_kappa_score(a, b)))
    return float(np.mean(pas)), float(np.mean(kappas))


# --- abstention as disagreement ----------------------------------------------------------------


def test_agreement_with_abstention_as_disagreement_equals_sklearn(full: Release) -> None:
    core = full.is_core
    labels = full.evaluator_labels[-1][core]  # a paper evaluator that abstains
    assert (labels == 2).any()
    ref = full.consensus[core]
    got = agr.agreement(labels, ref, full.roster.student_ids, abstain_disagrees=True)
    pa, kappa = _macro_sklearn(labels, ref, penalise=True)
    assert got.pa.value == pytest.approx(pa, abs=1e-12)
    assert got.kappa.value == pytest.approx(kappa, abs=1e-12)
    rated = agr.agreement(labels, ref, full.roster.student_ids)
    assert rated.kappa.value == pytest.approx(_macro_sklearn(labels, ref, False)[1], abs=1e-12)
    assert got.kappa.value < rated.kappa.value


def test_abstaining_never_raises_agreement(full: Release) -> None:
    """Turning any label into an abstention lowers (or keeps) PA and kappa on every resample."""
    core = full.is_core
    rng = np.random.default_rng(3)
    labels = full.evaluator_labels[0][core].copy()
    w = question_weights(int(core.sum()), RESAMPLES)
    ref = full.consensus[core]
    slots = full.roster.student_ids
    before = agr.agreement(labels, ref, slots, w, abstain_disagrees=True)
    labels[rng.random(labels.shape) < 0.2] = 2
    after = agr.agreement(labels, ref, slots, w, abstain_disagrees=True)
    for m in ("pa", "kappa"):
        b, a = before.metric(m), after.metric(m)
        assert a.value < b.value
        assert a.replicates is not None and b.replicates is not None
        assert np.all(a.replicates <= b.replicates + 1e-12)


# --- one margin ------------------------------------------------------------------------------


def test_verdict_words_are_ordered_and_monotone() -> None:
    """Lower bounds (both ends) never give a better word (VERDICTS is best first)."""
    grid = np.linspace(-0.3, 0.3, 61)
    for low in grid:
        for high in grid[grid >= low]:
            v = VERDICTS.index(str(verdict_of_bounds(low, high, 0.05)))
            for shift in (0.01, 0.05, 0.2):
                w = VERDICTS.index(str(verdict_of_bounds(low - shift, high - shift, 0.05)))
                assert w >= v


# --- like for like ------------------------------------------------------------------------------


def test_judge_in_place_equals_a_loop_over_physicians(full: Release) -> None:
    core = full.is_core
    phys = full.physician_labels[:, core]
    judge = full.evaluator_labels[-1][core]
    place = in_place.judge_in_place(judge, phys, full.roster.student_ids)
    terms_k, terms_pa = [], []
    own_k = []
    for r in range(phys.shape[0]):
        others = np.where((phys == 0) | (phys == 1), phys, -1)
        ref = majority_of_codes(np.delete(others, r, axis=0), axis=0).astype(int)
        # both on the answers physician r rated: r's abstentions leave both sides
        ref = np.where((phys[r] == 0) | (phys[r] == 1), ref, -1)
        jpa, jk = _macro_sklearn(judge, ref, penalise=True)
        ppa, pk = _macro_sklearn(phys[r], ref, penalise=False)
        terms_k.append(jk - pk)
        terms_pa.append(jpa - ppa)
        own_k.append(pk)
    assert place.difference("kappa").value == pytest.approx(np.mean(terms_k), abs=1e-12)
    assert place.difference("pa").value == pytest.approx(np.mean(terms_pa), abs=1e-12)
    assert place.difference("pabak").value == pytest.approx(2 * np.mean(terms_pa), abs=1e-12)
    assert place.physicians.kappa.value == pytest.approx(np.mean(own_k), abs=1e-12)
    assert np.allclose(place.terms["kappa"], terms_k)
    assert place.panel_error("kappa") == pytest.approx(np.std(terms_k, ddof=1) / np.sqrt(10))


def test_judge_in_place_replicates_equal_the_statistic_on_resampled_items(full: Release) -> None:
    core = full.is_core
    phys = full.physician_labels[:, core]
    judge = full.evaluator_labels[0][core]
    w = question_weights(int(core.sum()), 5)
    place = in_place.judge_in_place(judge, phys, full.roster.student_ids, w)
    d = place.difference("kappa")
    assert d.replicates is not None
    for r in range(5):
        idx = np.repeat(np.arange(w.shape[1]), w[r])
        again = in_place.judge_in_place(judge[idx], phys[:, idx], full.roster.student_ids)
        assert d.replicates[r] == pytest.approx(again.difference("kappa").value, abs=1e-12)


def test_a_physician_in_place_of_itself_has_d_zero_term(full: Release) -> None:
    """The judge that copies physician 0 has a zero term for physician 0."""
    core = full.is_core
    phys = full.physician_labels[:, core]
    place = in_place.judge_in_place(phys[0], phys, full.roster.student_ids)
    assert place.terms["kappa"][0] == pytest.approx(0.0, abs=1e-12)


def test_primaries_in_place_by_hand() -> None:
    """Two primary physicians (0 and 1) rating every item: physician 0's term is judge vs 1
    minus 0 vs 1 on the answers 0 rated, physician 1's judge vs 0 minus 1 vs 0."""
    primary = np.array([[[1], [0], [1], [2]], [[1], [0], [0], [1]]])
    judge = np.array([[1], [0], [1], [1]])
    roles = (np.zeros(4, dtype=int), np.ones(4, dtype=int))
    place = in_place.primaries_in_place(judge, primary, roles, ("s",))
    # 0 abstained on the last answer, so it leaves both sides: judge vs 1 on the answers 0
    # rated: 2/3; 0 vs 1: 2/3; judge vs 0 (on the answers 1 rated and 0 did): 3/3; 1 vs 0: 2/3
    assert place.judge.pa.value == pytest.approx((2 / 3 + 1.0) / 2)
    assert place.physicians.pa.value == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert place.terms["pa"].tolist() == pytest.approx([0.0, 1 / 3])


def test_primaries_in_place_judge_abstention_disagrees() -> None:
    primary = np.array([[[1], [0], [1]], [[1], [0], [0]]])
    judge = np.array([[2], [0], [-1]])  # abstains, right, missing
    roles = (np.zeros(3, dtype=int), np.ones(3, dtype=int))
    place = in_place.primaries_in_place(judge, primary, roles, ("s",))
    # judge vs 1: 1/3 (abstention and missing count as wrong); judge vs 0: 1/3
    assert place.judge.pa.value == pytest.approx(1 / 3)


def test_primaries_in_place_rotating_pairs_one_term_per_physician() -> None:
    """Pairs that rotate over three physicians: each physician's term uses only the items it
    rated, against the other rater of each item (a loop with scikit-learn)."""
    rng = np.random.default_rng(11)
    n = 90
    truth = rng.integers(0, 2, size=(n, 2))
    primary = np.full((3, n, 2), -1)
    first = np.arange(n) % 3
    second = (first + 1 + (np.arange(n) // 3) % 2) % 3
    for i in range(n):
        for p in (first[i], second[i]):
            primary[p, i] = np.where(rng.random(2) < 0.15, 1 - truth[i], truth[i])
    judge = np.where(rng.random((n, 2)) < 0.2, 1 - truth, truth)
    place = in_place.primaries_in_place(judge, primary, (first, second), ("a", "b"))
    for p in range(3):
        mine = (first == p) | (second == p)
        other = np.where(first == p, second, first)[mine]
        ref = primary[other, np.nonzero(mine)[0]]
        own = primary[p, mine]
        kj = np.mean([cohen_kappa_score(judge[mine][:, s], ref[:, s]) for s in range(2)])
        kp = np.mean([cohen_kappa_score(own[:, s], ref[:, s]) for s in range(2)])
        assert place.terms["kappa"][p] == pytest.approx(kj - kp, abs=1e-12)


def test_judge_in_place_physician_abstention_is_not_a_disagreement() -> None:
    """A physician's abstention leaves that physician's term (on both sides); the judge's
    label there is never read, so abstaining where a physician abstains changes nothing."""
    rng = np.random.default_rng(3)
    phys = rng.integers(0, 2, size=(5, 40, 2))
    phys[0, :10] = 2  # physician 0 abstains on the first ten questions
    judge = rng.integers(0, 2, size=(40, 2))
    slots = ("s1", "s2")
    place = in_place.judge_in_place(judge, phys, slots)
    again = judge.copy()
    again[:10] = 2  # abstain exactly where physician 0 did
    moved = in_place.judge_in_place(again, phys, slots)
    assert moved.terms["kappa"][0] == pytest.approx(place.terms["kappa"][0], abs=1e-12)
    assert place.physicians.kappa.value == pytest.approx(
        physician_reference.leave_one_out(phys, slots).kappa.value, abs=1e-12
    )


def test_primary_pair_leaves_out_the_adjudicator() -> None:
    p = np.full((4, 3, 1), -1)
    p[0, 0], p[1, 0] = 1, 0  # item 0: physicians 0 and 1
    p[2, 1], p[3, 1], p[1, 1] = 1, 2, 0  # item 1: 2 and 3, adjudicator 1 voted too
    p[3, 2] = 1  # item 2: one primary rater only
    first, second, two = in_place.primary_pair(p, adjudicator=1)
    assert two.tolist() == [False, True, False]  # item 0 has one primary rater besides adj
    assert first[1, 0] == 1 and second[1, 0] == 2


def test_docs_use_the_verdict_words() -> None:
    """docs/statistics.md and the README name every verdict word of the one tuple."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for doc in ("docs/statistics.md", "README.md"):
        text = (root / doc).read_text(encoding="utf-8")
        for word in VERDICTS:
            assert f"`{word}`" in text, (doc, word)
