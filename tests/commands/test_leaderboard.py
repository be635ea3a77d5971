"""``medqade leaderboard``'s Markdown shows each row's rank interval and, under each table,
what the board can resolve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medqade.cli import main
from medqade.commands.leaderboard import markdown
from medqade.scoring import JUDGE_COLUMNS, MODEL_COLUMNS, JudgeRow, ModelRow


def _judges(rows: list[dict[str, object]]) -> list[JudgeRow]:
    return [JudgeRow.from_json({c: None for c in JUDGE_COLUMNS} | r) for r in rows]


def _models(rows: list[dict[str, object]]) -> list[ModelRow]:
    return [ModelRow.from_json({c: None for c in MODEL_COLUMNS} | r) for r in rows]


def test_markdown_rank_column_is_the_interval() -> None:
    judges = _judges(
        [
            {"rank": 1, "rank_worst": 1, "name": "A", "source": "paper", "status": "verified"},
            {"rank": 2, "rank_worst": 4, "name": "B", "source": "paper", "status": "verified"},
            {"rank": None, "rank_worst": None, "name": "C", "source": "x", "status": "reference"},
        ],
    )
    models = _models([{"rank": 1, "rank_worst": 2, "name": "M", "source": "s"}])
    text = markdown(judges, models, "core", "kappa")
    assert "| 1 | A |" in text
    assert "| 2-4 | B |" in text
    assert "|  | C |" in text
    assert "| 1-2 | M |" in text


def test_markdown_shows_the_alt_test_with_rho_beside_omega_as_evidence() -> None:
    judges = _judges(
        [
            {
                "rank": 1,
                "rank_worst": 1,
                "name": "A",
                "source": "paper",
                "status": "verified",
                "alt_test_passed": True,
                "alt_test_winning_rate": 0.9,
                "alt_test_rho": 0.8123,
            },
            {"rank": 2, "rank_worst": 2, "name": "B", "source": "paper", "status": "verified"},
        ],
    )
    text = markdown(judges, _models([]), "core", "kappa")
    assert "| pass (omega 0.90, rho 0.81) |" in text
    assert "evidence beside the verdict, not a verdict" in text


def test_markdown_shows_the_n_beside_the_agreement_when_rated() -> None:
    """A partial submission's kappa when rated rests on few answers: the n is beside it."""
    judges = _judges(
        [
            {"name": "P", "status": "partial", "kappa_rated": 0.81234, "n_rated": 165},
            {"name": "F", "status": "verified", "kappa_rated": 0.7, "n_rated": None},
        ],
    )
    models = _models([])
    text = markdown(judges, models, "core", "kappa")
    assert "| 0.812 (n=165) |" in text
    assert "| 0.700 |" in text  # no count known: the value alone


def test_markdown_puts_each_note_under_its_table() -> None:
    judges = _judges([{"rank": 1, "rank_worst": 1, "name": "A", "source": "paper"}])
    models = _models([{"rank": 1, "rank_worst": 1, "name": "M", "source": "s"}])
    text = markdown(judges, models, "core", "kappa", notes=("judges note", "models note"))
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
