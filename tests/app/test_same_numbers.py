"""Done when: one file gives the same numbers in the Space, `score`, `leaderboard`, `compare`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from medqade.cli import main
from medqade.measures import paired

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
    for key in ("physician_difference", "extension_difference", "alt_test", "headline"):
        assert cli[key] == space[key], key
    # the Space's own leaderboard row and `medqade leaderboard` on its results folder
    judges = app.state.boards("core").board.judges_frame()
    row = judges[judges["id"] == space["id"]].iloc[0]
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
    assert cli_row["verdict"] == row["verdict"] == space["verdict"]
    assert cli_row["decided_on"] == row["decided_on"] == space["headline"]["decided_on"]
    assert [cli_row["d"], cli_row["d_low"], cli_row["d_high"]] == [
        space["headline"]["kappa"],
        *space["headline"]["kappa_ci"],
    ]
    assert cli_row["alt_test_passed"] == space["alt_test"]["passed"]
    assert cli_row["abstention"] == space["core"]["abstention"]
    for column in ("rank", "rank_worst"):
        ranks = {r["id"]: r[column] for r in board["judges"]}
        space_ranks = {
            rid: None if rank is pd.NA else int(rank)
            for rid, rank in zip(judges["id"], judges[column], strict=True)
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
    # one verdict word: compare against the physicians says the record's word too
    versus = client.predict("physicians", space["id"], "core", api_name="/compare")
    assert "error" not in versus, versus
    assert versus["versus_physicians"]["verdict"] == space["verdict"]
    assert versus["versus_physicians"]["headline"] == space["headline"]
    cmp_vs = _cli(
        capsys,
        "compare",
        space["id"][:12],
        "physicians",
        *data,
        "--results",
        str(app.results),
        "--json",
    )
    assert cmp_vs["versus_physicians"]["verdict"] == space["verdict"]
    refused = client.predict("physicians", evaluator, "full", api_name="/compare")
    assert "only on the core" in refused["error"]


def test_space_boards_follow_metric_and_margin(launch) -> None:
    """The Space's rank metric and margin reach the library, which decides ranks and verdicts."""
    app: Running = launch(resamples=RESAMPLES)
    by_pa = app.state.boards("core", "pa", 1.0).board.judges_frame()
    ranked = by_pa[by_pa["status"] == "verified"]
    assert list(ranked["pa"]) == sorted(ranked["pa"], reverse=True)
    # the margin is on kappa and the verdict is decided on kappa: within a margin of 1 every
    # paper judge is non-inferior (or above), and the PA board shows the same words
    by_kappa = app.state.boards("core", "kappa", 1.0).board.judges_frame()
    within = {paired.ABOVE, paired.NON_INFERIOR, paired.NON_INFERIOR_BELOW}
    assert set(by_kappa[by_kappa["source"] == "paper"]["verdict"].dropna()) <= within
    assert (by_pa["margin"].dropna() == 1.0).all()
    words = dict(zip(by_kappa["id"], by_kappa["verdict"], strict=True))
    assert dict(zip(by_pa["id"], by_pa["verdict"], strict=True)) == words
    strict = app.state.boards("core", "kappa", 0.0).board.judges_frame()
    # m = 0: nothing is non-inferior without being above
    assert not {paired.NON_INFERIOR, paired.NON_INFERIOR_BELOW} & set(strict["verdict"].dropna())
