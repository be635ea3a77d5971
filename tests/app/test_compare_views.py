"""Compare's headline: who agrees better, worded right when one side is the physicians."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from medqade.app.compare_views import headline, headline_html
from medqade.measures.aat import alt_test


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
    c.versus_physicians = {"verdict": "non-inferior", "alt_test": alt}
    text = headline(c)
    assert f"omega {alt['omega']:.2f}" in text and f"rho {alt['rho']:.2f}" in text
    assert "not a verdict" in text and "question-clustered" in text
