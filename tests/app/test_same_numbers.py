"""Done when: one file gives the same numbers in the Space, `score`, `leaderboard`, `compare`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from medqade.cli import main

from .helpers import Running, submit_args

RESAMPLES = 50


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_space_score_leaderboard_and_compare_agree(
    launch, judge_csv: Path, built_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app: Running = launch(resamples=RESAMPLES)
    client = app.client()
    status, result, _ = client.predict(*submit_args(judge_csv), api_name="/submit")
    assert status.startswith("Accepted"), status
    space = result["record"]
    data = ["--data", str(built_sample), "--resamples", str(RESAMPLES)]
    cli = _cli(capsys, "score", str(judge_csv), *data, "--json")
    for key in ("kappa", "kappa_ci", "pa", "pa_ci", "pabak_ci", "n"):
        assert cli["core"][key] == space["core"][key], key
    assert cli["physician_difference"] == space["physician_difference"]
    assert cli["verdict"] == space["verdict"]
    # the Space's own leaderboard row and `medqade leaderboard` on its results folder
    boards = app.state.boards("core")
    row = boards.judges[boards.judges["id"] == space["id"]].iloc[0]
    assert [row["kappa"], row["kappa_low"], row["kappa_high"]] == [
        space["core"]["kappa"],
        *space["core"]["kappa_ci"],
    ]
    board = _cli(capsys, "leaderboard", *data, "--results", str(app.results), "--format", "json")
    cli_row = next(r for r in board["judges"] if r["id"] == space["id"])
    assert [cli_row["kappa"], cli_row["kappa_low"], cli_row["kappa_high"]] == [
        space["core"]["kappa"],
        *space["core"]["kappa_ci"],
    ]
    for column in ("rank", "rank_worst"):
        ranks = {r["id"]: r[column] for r in board["judges"]}
        space_ranks = {
            rid: None if rank is pd.NA else int(rank)
            for rid, rank in zip(boards.judges["id"], boards.judges[column], strict=True)
        }
        assert ranks == space_ranks
    # compare: the Space's API and the CLI give the same paired difference
    evaluator = "gemini-2.5-flash"
    api = client.predict(evaluator, space["id"], "core", api_name="/compare")
    assert "error" not in api, api
    cmp = _cli(
        capsys,
        "compare",
        evaluator,
        space["id"][:12],
        *data,
        "--results",
        str(app.results),
        "--json",
    )
    assert api["difference"] == cmp["difference"]
    lb = next(r for r in board["judges"] if r["model_id"] == evaluator)
    assert cmp["difference"]["kappa"] == lb["kappa"] - cli_row["kappa"]
    refused = client.predict("physicians", evaluator, "full", api_name="/compare")
    assert "only on the core" in refused["error"]


def test_space_boards_follow_metric_and_margin(launch) -> None:
    """The Space's rank metric and margin reach the library, which decides ranks and verdicts."""
    app: Running = launch(resamples=RESAMPLES)
    by_pa = app.state.boards("core", "pa", 1.0).judges
    ranked = by_pa[by_pa["status"] == "verified"]
    assert list(ranked["pa"]) == sorted(ranked["pa"], reverse=True)
    assert set(by_pa[by_pa["source"] == "paper"]["verdict"].dropna()) <= {"non-inferior"}
    strict = app.state.boards("core", "kappa", 0.0).judges
    assert "non-inferior" not in set(strict["verdict"].dropna())  # m = 0: above or not
