"""Compare's headline: who agrees better, worded right when one side is the physicians; the
judge's kappa in each physician's place labelled; whether the board separates the pair."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from medqade.app.cells import number, plain
from medqade.app.compare_views import (
    AGAINST_CONSENSUS,
    IN_PLACE,
    headline,
    headline_html,
    overall_table,
)
from medqade.dataset.release import Release
from medqade.measures.aat import alt_test
from medqade.measures.estimate import Estimate
from medqade.measures.ranking import rank_board
from medqade.scoring.board.comparison import compare, resolve
from medqade.scoring.board.simultaneous import board_pair


def _side(token: str, name: str, physicians: bool) -> Any:
    return SimpleNamespace(token=token, name=name, source="paper", is_physicians=physicians)


def _comparison(a: Any, b: Any, better: str) -> Any:
    sign = 1 if better == "a" else -1
    kappa = SimpleNamespace(value=0.1 * sign, low=0.05 * sign, high=0.15 * sign)
    return SimpleNamespace(
        a=a,
        b=b,
        better=better,
        view="core",
        n_items=200,
        resamples=1000,
        overall=SimpleNamespace(kappa=kappa),
        n_disagreements=3,
        n_both=1000,
        versus_physicians=None,
        board=None,
        judge_side=None,
        against_consensus=None,
    )


PHYS = _side("physicians", "Physicians (leave-one-out)", True)
JUDGE = _side("gpt-5.4-mini", "GPT-5.4 Mini", False)
OTHER = _side("gemini-2.5-flash", "Gemini 2.5 Flash", False)


def test_compare_headline_physicians_side_both_orders() -> None:
    """Never "Physicians (leave-one-out) agrees better with the physicians": with the
    physicians as A or as B, winning or losing, the sentence says what was compared."""
    for a, b in ((PHYS, JUDGE), (JUDGE, PHYS)):
        phys_side = "a" if a is PHYS else "b"
        judge_side = "b" if phys_side == "a" else "a"
        won = headline(_comparison(a, b, phys_side))
        assert "**the physicians agree with each other** better than GPT-5.4 Mini agrees" in won
        assert "agrees better with the physicians" not in won
        lost = headline(_comparison(a, b, judge_side))
        assert "**GPT-5.4 Mini** agrees with the physicians better than they agree with each" in (
            lost
        )
        assert "Physicians (leave-one-out) agrees" not in headline_html(_comparison(a, b, "a"))
    two_judges = headline(_comparison(JUDGE, OTHER, "b"))
    assert "**Gemini 2.5 Flash** agrees better with the physicians" in two_judges


def test_compare_headline_shows_the_alt_test_with_rho_as_evidence() -> None:
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, size=(60, 5))
    phys = np.where(rng.random((4, 60, 5)) < 0.1, 1 - truth[None], truth[None])
    alt = alt_test(truth, phys).to_dict()
    c = _comparison(JUDGE, PHYS, "a")
    c.versus_physicians = {
        "verdict": "non-inferior",
        "headline": {"kappa": -0.01, "decided_on": "pooled"},
        "alt_test": alt,
    }
    text = headline(c)
    assert f"omega {alt['omega']:.2f}" in text and f"rho {alt['rho']:.2f}" in text
    assert "not a verdict" in text and "question-clustered" in text


def test_judge_against_physicians_shows_both_kappas_labelled(sample_release: Release) -> None:
    """The judge's in-place kappa is labelled as such, and its kappa against the consensus
    (what the leaderboard shows) is shown beside it, in the judge's column."""
    judge, phys = resolve(sample_release, "gemma3:4b"), resolve(sample_release, "physicians")
    for a, b, col in ((judge, phys, "A"), (phys, judge, "B")):
        c = compare(sample_release, a, b, resamples=20)
        table = overall_table(c)
        labels = list(table[""])
        assert labels[:3] == [f"kappa, {IN_PLACE}", f"PA, {IN_PLACE}", f"PABAK, {IN_PLACE}"]
        assert labels[3] == f"kappa, {AGAINST_CONSENSUS}"
        assert c.against_consensus is not None
        assert table.loc[3, col] == number(c.against_consensus.kappa.value)
        other = "B" if col == "A" else "A"
        assert pd.isna(table.loc[3, other]) and table.loc[3, "A - B"] == ""
        text = headline(c)
        assert (
            f"Its kappa {IN_PLACE} is" in text and f"its kappa {plain(AGAINST_CONSENSUS)}" in text
        )
    two = compare(sample_release, judge, resolve(sample_release, "gemma3:27b"), resamples=20)
    assert list(overall_table(two)[""]) == ["kappa", "PA", "PABAK"]


def test_headline_says_when_the_board_does_not_separate_the_pair(
    sample_release: Release,
) -> None:
    rng = np.random.default_rng(4)
    shared = rng.normal(0, 0.03, 500)
    est = np.array([0.70, 0.66, 0.40])
    board = rank_board(["a", "b", "c"], est, est[:, None] + shared + rng.normal(0, 0.012, (3, 500)))
    a, b = resolve(sample_release, "gemma3:4b"), resolve(sample_release, "gemma3:27b")
    c = compare(sample_release, a, b, resamples=20)
    pair = board_pair(board, "a", "b", Estimate(0.04, 0.01, 0.07))
    assert pair is not None and pair.pairwise_only
    text = headline(replace(c, board=pair))
    assert "Separated pairwise, not simultaneously" in text
    assert "Separated pairwise" not in headline(c)
    with pytest.raises(AttributeError):
        pair.rows = 3  # type: ignore[misc]
