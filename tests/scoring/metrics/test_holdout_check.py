"""The contamination section of a judge record scored with held-out labels (issue 35)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from medqade.dataset.holdout import HoldOut, choose
from medqade.dataset.release import Release
from medqade.measures import (
    CONTAMINATION,
    CONTAMINATION_ALPHA,
    CONTAMINATION_SPLITS,
    contamination,
    holdout_strata,
    permuted_splits,
    physician_side,
)
from medqade.scoring import leaderboard, parse_submission, score
from medqade.scoring.intake import Settings
from medqade.scoring.metrics import context
from medqade.scoring.metrics.holdout_check import applies, contamination_check
from medqade.scoring.policy import flag_sentence
from medqade.scoring.record import summary

from ..helpers import codes_to_rows

RESAMPLES = 50
HELD = HoldOut(1140)  # the default release's hold-out (seed 35)


def restored(release: Release, hold_out: HoldOut = HELD) -> Release:
    """``release`` as a build with ``hold_out`` reads once its private part is restored: the
    same labels (tests/dataset/test_holdout.py checks a real build gives them back) with the
    build's held-out mask."""
    held = choose(release.questions, hold_out)
    return dataclasses.replace(
        release, questions=release.questions.assign(held_out=held), restored=True
    )


@pytest.fixture(scope="module")
def held(full: Release) -> Release:
    return restored(full)


def copied(release: Release, labels: np.ndarray, share: float, seed: int = 1) -> np.ndarray:
    """``labels`` with the published consensus copied onto ``share`` of the 1,000 core answers,
    where the judge disagrees with it on a public item (the attack of bench/contamination.py)."""
    out = labels.copy()
    public_core = release.is_core & ~release.held_out
    wrong = public_core[:, None] & (release.consensus >= 0) & (labels != release.consensus)
    pick = np.random.default_rng(seed).permutation(np.flatnonzero(wrong.ravel()))
    pick = pick[: round(share * 1000)]
    out.ravel()[pick] = release.consensus.ravel()[pick]
    return out


def _score(release: Release, labels: np.ndarray, meta: dict[str, Any]) -> Any:
    sub = parse_submission(codes_to_rows(release, labels).encode(), "j.csv", release)
    return score(release, sub, meta, Settings(resamples=RESAMPLES))


def test_only_a_release_with_restored_held_out_labels_gets_the_check(
    full: Release, held: Release
) -> None:
    lab = full.evaluator_labels[0]
    present = np.ones(lab.shape, dtype=bool)
    assert not applies(full)
    assert contamination_check(full, lab, present, Settings(resamples=0)) is None
    public = dataclasses.replace(held, restored=False)  # a public build without its private part
    assert public.withholds and not applies(public)
    assert applies(held)
    assert "contamination" not in _score(full, lab, {"name": "j"}).to_json()


def test_each_scope_is_the_measure_on_that_scope(held: Release) -> None:
    """The section is :func:`medqade.measures.contamination` on the core and on all items, each
    with its own stratified re-draws (seeded by the record's seed) and the record's question
    resamples; the combined p value is the Bonferroni of the two."""
    settings = Settings(resamples=RESAMPLES)
    lab = held.evaluator_labels[2]
    present = np.ones(lab.shape, dtype=bool)
    check = contamination_check(held, lab, present, settings)
    assert check is not None and [s.scope for s in check.scopes or ()] == ["core", "all"]
    strata = holdout_strata(held.is_core, held.tier)
    for scope, items in (("core", held.is_core), ("all", np.ones(held.n_items, dtype=bool))):
        h = held.held_out[items]
        splits = permuted_splits(h, strata[items], CONTAMINATION_SPLITS, seed=settings.seed)
        w = context.float_weights(held, scope, RESAMPLES, settings.seed)
        args = (held.physician_labels[:, items], held.consensus[items], h)
        slots = held.roster.student_ids
        side = physician_side(*args, slots, w, splits)
        want = contamination(lab[items], *args, slots, w, physicians=side, splits=splits)
        got = check.scope(scope)
        assert got is not None
        assert got.excess == pytest.approx(want.excess.value, abs=1e-12)
        assert got.judge_held_out == pytest.approx(want.judge_held_out.value, abs=1e-12)
        assert got.p_value == pytest.approx(want.p_value, abs=1e-12)
        assert got.n_held_out == int(h.sum()) and got.n_splits == CONTAMINATION_SPLITS
    ps = [s.p_value for s in check.scopes or ()]
    assert check.p_value == pytest.approx(min(1.0, 2 * min(ps)))
    assert check.flagged is (check.p_value <= CONTAMINATION_ALPHA)
    assert check.n_held_out == int(held.held_out.sum())


def test_a_judge_covering_only_the_core_is_checked_on_the_core(held: Release) -> None:
    lab = held.evaluator_labels[2]
    present = np.zeros(lab.shape, dtype=bool)
    present[held.is_core] = True
    check = contamination_check(held, lab, present, Settings(resamples=0))
    assert check is not None and [s.scope for s in check.scopes or ()] == ["core"]
    assert check.p_value == check.scopes[0].p_value  # one scope: no correction


@pytest.mark.parametrize("share", [0.05, 0.25])
def test_copying_the_published_consensus_is_flagged_unranked_and_without_verdict(
    held: Release, share: float
) -> None:
    """Issue 35's attack: the published consensus copied onto 5% (25%) of the core answers of
    the weakest paper judge. Flagged; no verdict; never ranked, even when marked verified."""
    k = held.roster.evaluator_ids.index("gemini-2.5-flash-lite")
    honest = _score(held, held.evaluator_labels[k], {"name": "honest", "verified": True})
    cheat_labels = copied(held, held.evaluator_labels[k], share)
    cheat = _score(held, cheat_labels, {"name": "cheat", "verified": True})
    assert honest.contamination is not None and honest.contamination.flagged is False
    assert cheat.contamination is not None and cheat.contamination.flagged is True
    assert cheat.verdict is None and CONTAMINATION in (cheat.flags or ())
    assert cheat.headline is not None and cheat.headline.decided_on is None
    assert (cheat.core.kappa or 0) > (honest.core.kappa or 0)  # the copy did raise its kappa
    board = leaderboard([honest, cheat])
    rows = {r.name: r for r in board.judges}
    assert rows["cheat"].status == CONTAMINATION and rows["cheat"].rank is None
    assert rows["cheat"].verdict is None
    assert rows["honest"].rank == 1
    text = summary(cheat)
    assert "flagged contamination" in text and "no verdict and no rank" in text
    assert "not flagged" in summary(honest)
    assert "no verdict and no rank" in flag_sentence(cheat) and flag_sentence(honest) == ""


def test_held_out_answers_are_counted_but_never_listed(full: Release, held: Release) -> None:
    """A record lists the answers where the judge contradicts a unanimous panel; with a
    hold-out the held-out ones are counted, not listed (the id beside the judge's own label
    would give their consensus away)."""
    lab = held.evaluator_labels[0]
    with_hold = _score(held, lab, {"name": "j"}).disagreements
    without = _score(full, lab, {"name": "j"}).disagreements
    assert with_hold is not None and without is not None
    held_ids = set(held.item_ids[held.held_out])
    listed = with_hold["answer_ids"]
    assert not any(a.split("/", 1)[0] in held_ids for a in listed)
    assert "held_out_not_listed" not in without
    hidden = [a for a in without["answer_ids"] if a.split("/", 1)[0] in held_ids]
    assert hidden and with_hold["held_out_not_listed"] == len(hidden)
    assert with_hold["n"] == without["n"] == len(listed) + len(hidden)


def test_the_nine_paper_judges_are_not_flagged_on_the_default_hold_out(held: Release) -> None:
    """Issue 35: the honest paper judges pass the check on the default release's hold-out (a
    single draw; bench/contamination.py measures the rate over draws, about 5%)."""
    settings = Settings(resamples=0)
    for k, judge in enumerate(held.roster.evaluator_ids):
        lab = held.evaluator_labels[k]
        check = contamination_check(held, lab, np.ones(lab.shape, dtype=bool), settings)
        assert check is not None and check.flagged is False, judge
        assert check.p_value is not None and check.p_value > CONTAMINATION_ALPHA
