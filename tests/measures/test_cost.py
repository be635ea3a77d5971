"""Cost per 1,000 answers (medqade.measures.cost), by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from medqade.measures.cost import cost, pareto_frontier, price_note


def test_tokens_and_euros_per_thousand_answers() -> None:
    found = cost(
        {"input_tokens": 2_000_000, "output_tokens": 50_000, "price_in": 0.5, "price_out": 2.0},
        4000,
    )
    assert found is not None
    assert found.input_per_1000 == pytest.approx(500_000)
    assert found.output_per_1000 == pytest.approx(12_500)
    assert found.eur_per_1000 == pytest.approx(500_000 * 0.5 / 1e6 + 12_500 * 2.0 / 1e6)
    assert found.eur_total == pytest.approx(2.0 * 0.5 + 0.05 * 2.0)
    assert found.to_json()["eur_per_1000"] == found.eur_per_1000


def test_without_counts_or_prices() -> None:
    assert cost(None, 10) is None
    assert cost({"price_in": 1.0}, 10) is None
    only = cost({"input_tokens": 100, "output_tokens": 10}, 10)
    assert only is not None and only.eur_per_1000 is None and only.input_per_1000 == 10_000


KEYS = ("input_tokens", "output_tokens", "price_in", "price_out")


def test_price_note_exactly_when_a_price_gives_no_cost() -> None:
    """Every subset of the four usage keys (and bad values for the missing ones): a note
    exactly when some price is given and :func:`cost` computes no euros, naming what is
    missing."""
    for n in range(len(KEYS) + 1):
        for given in itertools.combinations(KEYS, n):
            for filler in (None, -1.0, math.nan):
                usage = {k: (7.0 if k in given else filler) for k in KEYS}
                note = price_note(usage)
                found = cost(usage, 30)
                priced = {"price_in", "price_out"} & set(given)
                euros = found is not None and found.eur_per_1000 is not None
                assert (note is not None) == (bool(priced) and not euros), usage
                if note is not None:
                    named = note.split("has no ", 1)[1].split(";", 1)[0].split(", ")
                    assert named == [k for k in KEYS if k not in given], note
    assert price_note(None) is None and price_note({}) is None
    assert "Inspect log" in str(price_note({"price_in": 1.0, "price_out": 1.0}))
    assert price_note({**dict.fromkeys(KEYS[:2], 5), "price_in": 1}) == (
        "prices kept but no cost computed: the usage has no price_out; give both prices"
    )


def _dominated_brute(kappa: list[float], costs: list[float], i: int) -> bool:
    """O(n^2): some other judge at least as good on both and strictly better on one."""
    return any(
        kappa[j] >= kappa[i]
        and costs[j] <= costs[i]
        and (kappa[j] > kappa[i] or costs[j] < costs[i])
        for j in range(len(kappa))
        if j != i and math.isfinite(kappa[j]) and math.isfinite(costs[j])
    )


def test_pareto_frontier_equals_the_brute_force_check() -> None:
    rng = np.random.default_rng(37)
    for trial in range(300):
        n = int(rng.integers(0, 12))
        # a coarse grid makes ties in cost, in kappa and in both frequent
        kappa = [float(x) for x in rng.integers(0, 5, n) / 4]
        costs = [float(x) for x in rng.integers(0, 5, n) * 0.5]
        if trial % 3 == 0 and n:
            kappa[int(rng.integers(n))] = math.nan
        found = pareto_frontier(kappa, costs)
        expected = {
            i for i in range(n) if math.isfinite(kappa[i]) and not _dominated_brute(kappa, costs, i)
        }
        assert set(found) == expected
        assert list(found) == sorted(found, key=lambda i: (costs[i], i))
        assert all(kappa[a] <= kappa[b] for a, b in itertools.pairwise(found))


def test_pareto_frontier_by_hand() -> None:
    # A cheap and weak, B dearer and better, C dearer than B and worse: C is dominated;
    # D the same point as B: both stay
    kappa = [0.5, 0.7, 0.6, 0.7]
    costs = [0.1, 1.0, 2.0, 1.0]
    assert pareto_frontier(kappa, costs) == (0, 1, 3)
    assert pareto_frontier([], []) == ()
    with pytest.raises(ValueError, match="kappas"):
        pareto_frontier([0.1], [])
