"""The Leaderboard tab's pool panel (medqade.app.pool_view)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from medqade.app.config import SpaceConfig
from medqade.app.pool_view import PoolView, pool_view
from medqade.commands.pool_estimate import estimate
from medqade.dataset.build import build
from medqade.dataset.release import Release, load_release


def test_pool_view_rows_match_pool_estimate(synthetic_build: Path, synthetic: Release) -> None:
    view = PoolView(synthetic_build, synthetic)
    assert view.judges == synthetic.roster.evaluator_ids
    note, table = view.table("qwen3:4b")
    assert "26598 items, 3800 of them rated by physicians" in note
    _labels, direct = estimate(str(synthetic_build), "qwen3:4b")
    first = direct[synthetic.roster.student_ids[0]]
    assert table["pool accuracy (PPI) %"].iloc[0] == pytest.approx(
        100 * first.ppi.estimate, abs=0.05
    )
    assert table["95% CI low"].iloc[0] == pytest.approx(100 * first.ppi.low, abs=0.05)
    assert view.table("qwen3:4b")[1] is table  # computed once per judge


def test_pool_view_absent_without_pool(sample_release: Release) -> None:
    assert pool_view(None, sample_release) is None


def test_pool_panel_in_the_leaderboard_tab(
    pool_sample: Callable[..., Path], tmp_path: Path
) -> None:
    from medqade.app.ui import build_app

    folder = tmp_path / "built"
    build(pool_sample(), folder)
    release = load_release(folder)
    config = SpaceConfig(results_dir=tmp_path / "results", rate_limit=0, data=str(folder))
    demo = build_app(release, tmp_path / "results", config, background=False, analyses=False)
    ids = {c.get("props", {}).get("elem_id") for c in demo.config["components"]}
    assert {"mq-pool", "mq-pool-judge"} <= ids
    table = next(c for c in demo.config["components"] if c["props"].get("elem_id") == "mq-pool")
    assert len(table["props"]["value"]["data"]) == 5
