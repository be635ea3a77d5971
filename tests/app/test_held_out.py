"""The Space's two releases (:mod:`medqade.app.held_out`): which pairs are accepted, and
Compare's answer list without a held-out label, checked against a plain loop over the
comparison computed on the restored release."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from medqade import vocab
from medqade.app.held_out import HELD_OUT, LISTED, hide_held_out, listed_limit, scoring_release
from medqade.dataset.release import Release, load_release
from medqade.scoring.board import PHYSICIANS, compare, resolve


@pytest.fixture(scope="module")
def releases(holdout_build: tuple[Path, Path]) -> tuple[Release, Release]:
    pub, priv = holdout_build
    public = load_release(pub)
    return public, public.with_private(priv)


def test_the_scoring_release_is_the_shown_build_restored_or_itself(
    releases: tuple[Release, Release], sample_release: Release
) -> None:
    public, restored = releases
    assert scoring_release(public, None) is public
    assert scoring_release(public, public) is public
    assert scoring_release(public, restored) is restored
    with pytest.raises(ValueError, match="shows the public build"):
        scoring_release(restored, restored)  # showing a restored release would leak
    with pytest.raises(ValueError, match="restored"):
        scoring_release(public, sample_release)  # another build (no hold-out)
    with pytest.raises(ValueError, match="restored"):
        scoring_release(sample_release, restored)


def _compared(restored: Release, a: str, b: str) -> object:
    sides = [resolve(restored, t) for t in (a, b)]
    return compare(restored, sides[0], sides[1], "core", 20, 1, limit=10_000)


def test_judge_against_physicians_lists_no_held_out_answer(
    releases: tuple[Release, Release],
) -> None:
    """The physicians' side of a held-out answer is its consensus: such answers are left out;
    the public answers stay as they were, in order, and every number stays."""
    public, restored = releases
    judge = restored.roster.evaluator_ids[0]
    full = _compared(restored, judge, PHYSICIANS)
    held = {str(q) for q in public.item_ids[public.held_out]}
    expected = [r for r in full.disagreements if r["answer_id"].split("/")[0] not in held]
    assert len(expected) < len(full.disagreements)  # the sample has held-out disagreements
    shown = hide_held_out(full, public)
    assert list(shown.disagreements) == expected
    assert shown.n_disagreements == full.n_disagreements and shown.overall == full.overall


def test_two_judges_list_held_out_answers_without_their_consensus(
    releases: tuple[Release, Release],
) -> None:
    """Two judges' labels are public: their held-out answers stay listed, the consensus
    replaced by "held out"; the public answers keep theirs."""
    public, restored = releases
    a, b = restored.roster.evaluator_ids[:2]
    full = _compared(restored, a, b)
    shown = hide_held_out(full, public)
    held = {str(q) for q in public.item_ids[public.held_out]}
    assert len(shown.disagreements) == len(full.disagreements)
    n_held = 0
    for before, after in zip(full.disagreements, shown.disagreements, strict=True):
        if before["answer_id"].split("/")[0] in held:
            n_held += 1
            assert after == {**before, "consensus": HELD_OUT}
        else:
            assert after == before
    assert n_held > 0


def test_the_list_is_cut_to_its_length_after_the_held_out_answers_left(
    releases: tuple[Release, Release], sample_release: Release
) -> None:
    public, restored = releases
    assert listed_limit(public) == LISTED + vocab.N_SLOTS * 3
    assert listed_limit(sample_release) == LISTED
    full = _compared(restored, restored.roster.evaluator_ids[0], PHYSICIANS)
    many = full.disagreements * (LISTED + 1)  # more public answers than are listed
    cut = hide_held_out(replace(full, disagreements=many), public)
    assert len(cut.disagreements) == LISTED
