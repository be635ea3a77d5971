"""The latent model's draws (:mod:`medqade.synthetic.draws`), each on its own: identical texts
share their draws, the strata have the paper's exact margins, items are distinct, the
extension pairs are balanced, difficulty ratings land in the target tier, and labels are
codes of the right shape."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from medqade import vocab
from medqade.synthetic import draws
from medqade.synthetic.facts import load_facts
from medqade.synthetic.parameters import CORE_EXACT, N_CORE, TIER_EXACT, TIER_ITEMS


def test_same_text_and_tie_copy_the_first_identical_slot() -> None:
    same = draws.same_text([["a", "b", "a", "c", "b"], ["x", "y", "z", "u", "v"]])
    assert same.tolist() == [[0, 1, 0, 3, 1], [0, 1, 2, 3, 4]]
    x = np.arange(20.0).reshape(2, 2, 5)  # (raters, items, slots)
    tied = draws.tie(x, same)
    assert tied[0, 0].tolist() == [0.0, 1.0, 0.0, 3.0, 1.0]
    assert tied[1, 1].tolist() == x[1, 1].tolist()


def test_assign_strata_has_the_exact_margins() -> None:
    tiers, exact, core = draws.assign_strata(np.random.default_rng(0))
    assert Counter(tiers.tolist()) == {t + 1: n for t, n in enumerate(TIER_ITEMS)}
    for t, e in enumerate(TIER_EXACT, start=1):
        assert int(exact[tiers == t].sum()) == e
    assert int(core.sum()) == N_CORE and int((core & exact).sum()) == CORE_EXACT
    assert core[:N_CORE].all() and not core[N_CORE:].any()  # core items first


def test_choose_items_are_distinct_and_refuse_too_few_facts() -> None:
    facts = load_facts()
    items = draws.choose_items(facts, 300, np.random.default_rng(1))
    assert len({q for _f, q in items}) == 300
    assert max(Counter(f.fact_id for f, _q in items).values()) <= 5
    with pytest.raises(ValueError, match="items need more facts"):
        draws.choose_items(facts[:2], 11, np.random.default_rng(1))


def test_extension_pairs_are_two_different_raters_balanced() -> None:
    pairs = draws.extension_pairs(3600)
    assert (pairs[:, 0] != pairs[:, 1]).all() and pairs.max() == 8 and pairs.min() == 0
    assert np.bincount(pairs.ravel(), minlength=9).tolist() == [800] * 9


def test_draw_difficulty_lands_every_item_in_its_tier() -> None:
    rng = np.random.default_rng(2)
    tiers = np.array([1, 2, 3, 4, 1, 4], dtype=np.int8)
    d = np.array([0.2, 0.85, 1.35, 1.85, 1.9, 0.1])  # the last two drawn far from their tier
    raters = np.ones((10, 6), dtype=bool)
    raters[2:, 1] = False  # item 1: two raters only
    scores = draws.draw_difficulty(d, tiers, raters, rng)
    assert (scores[~raters] == -1).all() and scores[raters].min() >= 0
    for i, t in enumerate(tiers):
        col = scores[:, i]
        assert vocab.tier_of(col[col >= 0].mean()) == t


def test_labels_have_the_codes_and_shapes() -> None:
    rng = np.random.default_rng(3)
    n = 40
    tiers = np.repeat(np.array([1, 2, 3, 4], dtype=np.int8), 10)
    core = np.arange(n) < 10
    z = rng.normal(0.0, 2.0, size=(n, 5))
    same = np.tile(np.arange(5), (n, 1))
    primary, labels, adjudicate = draws.draw_physician_labels(z, tiers, core, same, rng)
    assert primary.shape == labels.shape == (10, n, 5) and adjudicate.shape == (n,)
    assert set(np.unique(labels)) <= {-1, 0, 1, 2}
    assert (primary[:, core] == labels[:, core]).all()  # core: all ten as drawn
    ext_rated = (primary[:9, ~core] >= 0).any(axis=2).sum(axis=0)
    assert (ext_rated <= 2).all()  # two primary raters per extension item
    assert not adjudicate[core].any()
    ev, diff = draws.draw_evaluators(z, tiers, np.full(n, 1.0), same, rng)
    assert ev.shape == (9, n, 5) and diff.shape == (9, n)
    assert set(np.unique(ev)) <= {-1, 0, 1, 2} and set(np.unique(diff)) <= {0, 1, 2}
    # the best judge (no shared weak error, little noise) follows the merit's sign
    agree = np.mean((ev[0] == 1) == (z > 0))
    assert agree > 0.7
