"""One definition of a unanimous group (:func:`medqade.consensus.unanimous`) behind the
leaderboard's disagreement list, the review queues and the Space's Browse tags (issue 25)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from medqade import consensus, vocab
from medqade.app import browse
from medqade.dataset.release import Release
from medqade.dataset.sources import open_release
from medqade.labelstudio import review_queue as review
from medqade.scoring.metrics import context
from medqade.scoring.metrics.breakdowns import disagreements, unanimous_panel


@pytest.fixture(scope="module")
def default_release() -> Release:
    return open_release(None)


def _browse_before(richtig: int, falsch: int, abstained: int) -> str:
    """:func:`medqade.app.browse.agreement` as it was written before it used the library."""
    if richtig and falsch:
        return browse.SPLIT
    if not (richtig or falsch):
        return browse.NOBODY if not abstained else "all k.A."
    return browse.UNANIMOUS if not abstained else browse.ABSTAINED_ONLY


def test_unanimous_counts() -> None:
    r = np.array([0, 1, 2, 3, 0, 0, 2, 1])
    f = np.array([0, 0, 0, 0, 2, 3, 1, 1])
    m, R, F = vocab.MISSING_CODE, vocab.RICHTIG_CODE, vocab.FALSCH_CODE
    assert consensus.unanimous(r, f).tolist() == [m, m, R, R, F, F, m, m]
    assert consensus.unanimous(r, f, 3).tolist() == [m, m, m, R, m, F, m, m]
    assert consensus.unanimous(r, f, 1).tolist() == [m, R, R, R, F, F, m, m]
    with pytest.raises(ValueError):
        consensus.unanimous(r, f, 0)


def test_browse_agreement_unchanged_and_unanimous_by_the_library_rule() -> None:
    for r, f, k in itertools.product(range(5), repeat=3):
        assert browse.agreement(r, f, k) == _browse_before(r, f, k), (r, f, k)
        agreed = consensus.unanimous(r, f, 1) != vocab.MISSING_CODE and not k
        assert (browse.agreement(r, f, k) == browse.UNANIMOUS) == agreed


def test_unanimous_panel_leaderboard_review_and_browse_agree_on_the_default_release(
    default_release: Release,
) -> None:
    rel = default_release
    r, f = context.derived(rel, "votes")
    mask, label = unanimous_panel(rel)
    group = consensus.unanimous(r, f, consensus.PANEL_MIN_VOTES)
    assert mask.any() and (~mask).any()
    np.testing.assert_array_equal(mask, group != vocab.MISSING_CODE)
    np.testing.assert_array_equal(label[mask], group[mask])
    # the review queue (every evaluator against a panel of at least 2) lists exactly the
    # answers where some evaluator contradicts the leaderboard's unanimous panel
    queue = review.select_queue(rel, min_votes=consensus.PANEL_MIN_VOTES)
    everywhere = np.ones(rel.physician_labels.shape[1:], dtype=bool)
    items = np.ones(rel.n_items, dtype=bool)
    expected: set[str] = set()
    for labels in rel.evaluator_labels:
        expected.update(disagreements(rel, labels, everywhere, items).answer_ids or ())
    # a record lists no held-out answer (the default holds items out): the queue, a
    # maintainers' tool on every label, lists them too
    held = set(rel.item_ids[rel.held_out])
    assert held and any(row.question_id in held for row in queue)
    assert expected and {row.answer_id for row in queue if row.question_id not in held} == expected
    for row in queue:
        i = int(np.flatnonzero(rel.item_ids == row.question_id)[0])
        s = rel.roster.student_ids.index(row.model)
        assert mask[i, s] and vocab.CODE_LABELS[int(label[i, s])] == row.unanimous
    # Browse's tag: "unanimous" with two votes or more is the panel's unanimity without k.A.
    a = rel.answers
    votes = a[["votes_richtig", "votes_falsch", "votes_keine_angabe"]].to_numpy()
    tags = np.array([browse.agreement(int(x), int(y), int(z)) for x, y, z in votes])
    tagged = (tags == browse.UNANIMOUS) & (votes[:, 0] + votes[:, 1] >= 2)
    rows = a["question_id"].map({q: i for i, q in enumerate(rel.item_ids)}).to_numpy()
    slots = a["model"].map({m: k for k, m in enumerate(rel.roster.student_ids)}).to_numpy()
    np.testing.assert_array_equal(votes[:, 0], r[rows, slots])  # the same votes
    np.testing.assert_array_equal(tagged, mask[rows, slots] & (votes[:, 2] == 0))
