"""Self-consistency (medqade.measures.consistency) against scikit-learn and direct counts."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures.consistency import DETERMINISTIC, IDENTICAL, consistency, physicians_intra
from medqade.measures.seeds import question_weights

R, F, A = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE


def _runs(n: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    first = rng.choice([R, F, A], size=(n, 5), p=[0.45, 0.5, 0.05]).astype(np.int8)
    again = np.where(rng.random((n, 5)) < 0.1, 1 - np.clip(first, 0, 1), first).astype(np.int8)
    pos = [np.stack([rng.permutation(5) + 1 for _ in range(n)]).astype(np.int8) for _ in "ab"]
    return [first, again], pos


def test_intra_kappa_and_flip_rates_equal_sklearn_and_counts() -> None:
    labels, positions = _runs(80, 4)
    w = question_weights(80, 25, 2)
    found = consistency(labels, positions, ("1", "2"), w)
    assert found is not None
    a, b = labels
    both = (a != A) & (b != A)
    kappas = [cohen_kappa_score(a[both[:, s], s], b[both[:, s], s]) for s in range(5)]
    assert found.intra.kappa.value == pytest.approx(np.mean(kappas))
    moved = both & (positions[0] != positions[1])
    same = both & (positions[0] == positions[1])
    assert found.flip_moved.value == pytest.approx((a != b)[moved].mean())
    assert found.flip_same.value == pytest.approx((a != b)[same].mean())
    assert found.n_moved == int(moved.sum())
    assert consistency(labels[:1], positions[:1], ("1",), w) is None


def test_three_runs_average_the_three_pairs() -> None:
    labels, positions = _runs(60, 5)
    third = labels[0].copy()
    third[:5] = 1 - np.clip(third[:5], 0, 1)
    found = consistency([*labels, third], [*positions, positions[0]], ("1", "2", "3"), None)
    assert found is not None
    pairs = [(labels[0], labels[1]), (labels[0], third), (labels[1], third)]
    expected = []
    for a, b in pairs:
        both = (a != A) & (b != A)
        expected.append(
            np.mean([cohen_kappa_score(a[both[:, s], s], b[both[:, s], s]) for s in range(5)])
        )
    assert found.intra.kappa.value == pytest.approx(np.mean(expected))


def test_physicians_intra_equals_sklearn_on_the_rerating_table(full: Release) -> None:
    r = full.ratings
    ids = sorted(set(r.loc[r["round"] == vocab.RERATING, "question_id"]))
    found = physicians_intra(r, full.roster.physicians, ids, full.roster.student_ids, None)
    assert found is not None
    code = dict(vocab.LABEL_CODES)
    per_physician = []
    for p in full.roster.physicians:
        mine = r[r["rater"] == p]
        merged = mine[mine["round"] == vocab.RERATING].merge(
            mine[mine["round"] != vocab.RERATING], on=["question_id", "model"]
        )
        if merged.empty:
            continue
        x = merged["label_y"].map(code).to_numpy()
        y = merged["label_x"].map(code).to_numpy()
        ok = (x < A) & (y < A) & (x >= 0) & (y >= 0)
        slots = [
            cohen_kappa_score(
                x[ok & (merged["model"] == m).to_numpy()], y[ok & (merged["model"] == m).to_numpy()]
            )
            for m in full.roster.student_ids
            if (ok & (merged["model"] == m).to_numpy()).any()
        ]
        per_physician.append(np.nanmean(slots))
    assert found.kappa.value == pytest.approx(np.mean(per_physician))


def test_deterministic_or_identical_runs_withhold_the_agreement() -> None:
    """A judge decoded at temperature 0, or one file given twice, agrees with itself by
    construction: the intra-rater values are None with the reason, the flip rates stay."""
    labels, positions = _runs(50, 6)
    w = question_weights(50, 20, 1)
    sampled = consistency(labels, positions, ("1", "2"), w, np.arange(10), w[:, :10])
    assert sampled is not None and sampled.not_informative is None
    out = sampled.to_json()
    assert out["not_informative"] is None and out["kappa"] == sampled.intra.kappa.value
    greedy = consistency(
        labels, positions, ("1", "2"), w, np.arange(10), w[:, :10], deterministic=True
    )
    assert greedy is not None and greedy.not_informative == DETERMINISTIC
    out = greedy.to_json()
    assert out["not_informative"] == "not informative: deterministic decoding"
    for key in ("kappa", "pa", "pabak"):
        assert out[key] is None and out[f"{key}_ci"] == [None, None]
        assert out["rerated"][key] is None
    assert out["n"] == sampled.intra.n  # what it would rest on stays
    assert out["flip_rate_moved"] == pytest.approx(sampled.flip_moved.value)  # order effect
    # one run given twice: identical labels at identical positions
    twice = consistency([labels[0], labels[0]], [positions[0], positions[0]], ("1", "2"), w)
    assert twice is not None and twice.intra.kappa.value == pytest.approx(1.0)
    assert twice.not_informative == IDENTICAL and twice.to_json()["kappa"] is None
    # the same labels at other positions: perfect consistency under reshuffling is a finding
    moved = consistency([labels[0], labels[0]], positions, ("1", "2"), w)
    assert moved is not None and moved.not_informative is None
    assert moved.to_json()["kappa"] == pytest.approx(1.0)
