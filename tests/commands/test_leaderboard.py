"""``medqade leaderboard``'s Markdown shows each row's rank interval."""

from __future__ import annotations

import pandas as pd

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


def test_markdown_shows_the_alt_test_with_rho_beside_omega_as_evidence() -> None:
    judges = _frame(
        JUDGE_COLUMNS,
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
    text = markdown(judges, _frame(MODEL_COLUMNS, []), "core", "kappa")
    assert "| pass (omega 0.90, rho 0.81) |" in text
    assert "evidence beside the verdict, not a verdict" in text


def test_markdown_shows_the_n_beside_the_agreement_when_rated() -> None:
    """A partial submission's kappa when rated rests on few answers: the n is beside it."""
    judges = _frame(
        JUDGE_COLUMNS,
        [
            {"name": "P", "status": "partial", "kappa_rated": 0.81234, "id": "p1"},
            {"name": "F", "status": "verified", "kappa_rated": 0.7, "id": "f1"},
        ],
    )
    models = _frame(MODEL_COLUMNS, [])
    text = markdown(judges, models, "core", "kappa", {"p1": 165, "f1": None})
    assert "| 0.812 (n=165) |" in text
    assert "| 0.700 |" in text  # no count known: the value alone
