"""SpaceState's own behaviour (the rest of the Space's state is covered through its tabs)."""

from __future__ import annotations

from pathlib import Path

from medqade.app.config import SpaceConfig
from medqade.app.state import SpaceState


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


def test_compare_goes_through_the_kept_comparisons(sample_release, tmp_path: Path) -> None:
    """The Space's compare handlers read :mod:`medqade.app.comparisons`: one store, one event."""
    config = SpaceConfig(results_dir=tmp_path, resamples=30)
    state = SpaceState(sample_release, tmp_path, config, background=False, analyses=False)
    assert state.compared is state.comparisons.compared and state.compared.is_set()
    assert state.compare_choices() == state.comparisons.choices()
    a, b = sample_release.roster.evaluator_ids[:2]
    assert state.compare(a, b, "core") is state.comparisons.get(a, b, "core")
