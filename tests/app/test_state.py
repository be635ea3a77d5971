"""SpaceState's own behaviour (the rest of the Space's state is covered through its tabs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.dataset.release import Release
from medqade.scoring import compare as compare_mod


def same(x: Any, y: Any) -> bool:
    """Equal as JSON (NaN written as NaN on both sides)."""
    return json.dumps(x.to_dict(), sort_keys=True) == json.dumps(y.to_dict(), sort_keys=True)


def test_compare_is_kept_until_the_board_changes(sample_release, tmp_path: Path) -> None:
    """A repeated comparison answers from the kept one (issue 27: a Compare run under 300 ms);
    it equals a fresh computation (seeded), and a change of the board computes anew."""
    config = SpaceConfig(results_dir=tmp_path, resamples=30)
    state = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    a, b = sample_release.roster.evaluator_ids[:2]
    first = state.compare(a, b, "core")
    assert state.compare(a, b, "core") is first
    assert state.compare(b, a, "core") is not first
    fresh = state._compare(a, b, "core")
    assert fresh is not first
    assert same(fresh, first)
    other = state.compare(a, compare_mod.PHYSICIANS, "core")
    state.store.version += 1  # what a stored submission does
    again = state.compare(a, compare_mod.PHYSICIANS, "core")
    assert again is not other and same(again, other)


def test_boards_kept_are_bounded_and_least_recent_dropped(sample_release, tmp_path: Path) -> None:
    """A visitor asking for many margins keeps at most BOARDS_KEPT boards in memory (issue 38:
    400 margins grew the Space by 180 MB); a board asked for again is kept longest."""
    from medqade.app.state import BOARDS_KEPT

    config = SpaceConfig(results_dir=tmp_path, resamples=30)
    state = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    default = state.boards("core")
    for k in range(BOARDS_KEPT + 10):
        state.boards("core", "kappa", k / 100)
        assert state.boards("core") is default  # asked for on every visit: stays
    assert len(state._boards) == BOARDS_KEPT
    assert state.boards("core", "kappa", 0.01) is not None
    assert len(state._boards) == BOARDS_KEPT


def test_every_board_judge_is_compared_with_the_physicians_ahead(
    sample_release: Release, tmp_path: Path
) -> None:
    """Issue 39: a judge against the physicians at the Space's resamples took 840 ms; after the
    start-up work every judge row's comparison with the physicians (core) is kept, equal to a
    fresh one, answered without computing, and replaced when the board changes."""
    config = SpaceConfig(results_dir=tmp_path, resamples=30)
    state = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    assert state.compared.is_set()
    judges = [t for _, t in state.compare_choices() if t != compare_mod.PHYSICIANS]
    assert len(state._versus) == len(judges) > 2
    kept = {a: state.compare(a, compare_mod.PHYSICIANS, "core") for a in judges}
    board = (compare_mod.PHYSICIANS, "core", state.store.version, True)
    assert all(kept[a] is state._versus[(a, *board)] for a in judges)
    assert same(kept[judges[0]], state._compare(judges[0], compare_mod.PHYSICIANS, "core"))
    assert not state._comparisons  # none of them was computed on request
    state.store.version += 1  # what a stored submission does
    state.warm_comparisons()
    assert len(state._versus) == len(judges)
    again = state.compare(judges[1], compare_mod.PHYSICIANS, "core")
    assert again is not kept[judges[1]] and same(again, kept[judges[1]])
