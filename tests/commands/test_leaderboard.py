"""``medqade leaderboard``'s Markdown shows each row's rank interval and, under each table,
what the board can resolve."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from medqade.cli import main
from medqade.commands.leaderboard import markdown
from medqade.scoring import JUDGE_COLUMNS, MODEL_COLUMNS


def _frame(columns: tuple[str, ...], rows: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame([{c: None for c in columns} | r for r in rows], columns=list(columns))
    for c in ("rank", "rank_worst"):
        frame[c] = pd.array(frame[c].tolist(), dtype="Int64")
    return frame


def test_markdown_rank_column_is_the_interval() -> None:
    judges = _frame(
        JUDGE_COLUMNS,
        [
            {"rank": 1, "rank_worst": 1, "name": "A", "source": "paper", "status": "verified"},
            {"rank": 2, "rank_worst": 4, "name": "B", "source": "paper", "status": "verified"},
            {"rank": None, "rank_worst": None, "name": "C", "source": "x", "status": "reference"},
        ],
    )
    models = _frame(MODEL_COLUMNS, [{"rank": 1, "rank_worst": 2, "name": "M", "source": "s"}])
    text = markdown(judges, models, "core", "kappa")
    assert "| 1 | A |" in text
    assert "| 2-4 | B |" in text
    assert "|  | C |" in text
    assert "| 1-2 | M |" in text


def test_markdown_puts_each_note_under_its_table() -> None:
    judges = _frame(JUDGE_COLUMNS, [{"rank": 1, "rank_worst": 1, "name": "A", "source": "paper"}])
    models = _frame(MODEL_COLUMNS, [{"rank": 1, "rank_worst": 1, "name": "M", "source": "s"}])
    text = markdown(judges, models, "core", "kappa", ("judges note", "models note"))
    assert text.index("| 1 | A |") < text.index("judges note") < text.index("## Models")
    assert text.index("| 1 | M |") < text.index("models note")
    assert "note" not in markdown(judges, models, "core", "kappa")


def test_leaderboard_cli_says_the_smallest_resolvable_difference(
    sample_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    board = ["--data", str(sample_dir), "--results", str(results), "--resamples", "40"]
    assert main(["leaderboard", *board, "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    res = found["resolution"]["judges"]
    assert set(res) == {"critical", "smallest_resolvable", "median_resolvable", "rows", "pairs"}
    ranked = [r for r in found["judges"] if r["rank"] is not None]
    assert res["rows"] == len(ranked) and all(r["source"] != "baseline" for r in ranked)
    assert main(["leaderboard", *board]) == 0
    text = capsys.readouterr().out
    judges_part = text.split("## Models")[0]
    if res["smallest_resolvable"] is not None:
        assert f"can resolve is {res['smallest_resolvable']:.3f}" in judges_part
        assert f"needs {res['median_resolvable']:.3f}" in judges_part
