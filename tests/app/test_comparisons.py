"""Compare's answers kept until the board changes: the last ones asked for (bounded) and every
board judge against the physicians, computed ahead."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from medqade.app import comparisons
from medqade.app.comparisons import Comparisons
from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState
from medqade.dataset.release import Release
from medqade.scoring.board import comparison as compare_mod


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
    fresh = state.comparisons.fresh(a, b, "core")
    assert fresh is not first
    assert same(fresh, first)
    other = state.compare(a, compare_mod.PHYSICIANS, "core")
    state.store.version += 1  # what a stored submission does
    again = state.compare(a, compare_mod.PHYSICIANS, "core")
    assert again is not other and same(again, other)


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
    assert len(state.comparisons.ahead) == len(judges) > 2
    kept = {a: state.compare(a, compare_mod.PHYSICIANS, "core") for a in judges}
    board = (compare_mod.PHYSICIANS, "core", state.store.version, True)
    assert all(kept[a] is state.comparisons.ahead[(a, *board)] for a in judges)
    assert same(kept[judges[0]], state.comparisons.fresh(judges[0], compare_mod.PHYSICIANS, "core"))
    assert not state.comparisons.asked  # none of them was computed on request
    state.store.version += 1  # what a stored submission does
    state.warm_comparisons()
    assert len(state.comparisons.ahead) == len(judges)
    again = state.compare(judges[1], compare_mod.PHYSICIANS, "core")
    assert again is not kept[judges[1]] and same(again, kept[judges[1]])


class _Counted(Comparisons):
    """Comparisons whose computation is a counted token (no release needed)."""

    def __init__(self) -> None:
        space = SimpleNamespace(store=SimpleNamespace(version=0), references_ready=True)
        super().__init__(space)  # type: ignore[arg-type]
        self.made: list[tuple[str, str, str]] = []

    def fresh(self, a: str, b: str, view: str) -> Any:
        self.made.append((a, b, view))
        return SimpleNamespace(pair=(a, b, view), n=len(self.made))


def test_the_comparisons_asked_for_are_bounded_least_recent_dropped() -> None:
    kept = _Counted()
    first = kept.get("j0", "physicians", "core")
    for k in range(1, comparisons.COMPARISONS_KEPT + 5):
        kept.get(f"j{k}", "physicians", "core")
        assert kept.get("j0", "physicians", "core") is first  # asked for again: stays
    assert len(kept.asked) == comparisons.COMPARISONS_KEPT
    assert len(kept.made) == comparisons.COMPARISONS_KEPT + 5  # each row computed once
    kept.get("j1", "physicians", "core")  # dropped long ago: computed again
    assert len(kept.made) == comparisons.COMPARISONS_KEPT + 6
    assert ("j1", "physicians", "core", 0, True) in kept.asked


def test_a_row_token_is_checked_before_any_work() -> None:
    kept = _Counted()
    with pytest.raises(ValueError, match="at most"):
        kept.get("x" * (compare_mod.MAX_TOKEN + 1), "physicians", "core")
    assert kept.made == [] and not kept.asked
    kept.get("  j1 ", "physicians", "core")  # blanks around a token are dropped first
    assert kept.made == [("j1", "physicians", "core")]
