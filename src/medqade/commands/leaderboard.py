"""``medqade leaderboard``: the Space's judge and model tables, in the terminal."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import pandas as pd

from medqade.commands._board import add_board_arguments, open_board
from medqade.measures import Resolution
from medqade.scoring import csv_text, leaderboard
from medqade.scoring.board import Interval, JudgeRow, ModelRow, resolution_note, rows

Row = JudgeRow | ModelRow

NAME = "leaderboard"
HELP = (
    "Print the leaderboard's judge and model tables (same rows, ranks and verdicts as the Space)."
)

EPILOG = """\
Rank "best-worst": best = 1 + the number of ranked rows significantly better, worst = K - the
number significantly worse (K ranked rows), from simultaneous 95% intervals over all ranked
pairs, each pair in its own bootstrap standard error (studentized max-T on the shared
resamples); the note under each table gives the smallest difference the board can resolve.
The string-matching baselines are shown but not ranked. Verdict = the paired difference
judge - physicians against the non-inferiority margin. See docs/statistics.md.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_board_arguments(p)
    p.add_argument("--metric", choices=("kappa", "pa", "pabak"), default="kappa")
    p.add_argument("--format", choices=("md", "csv", "json"), default="md", dest="fmt")
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _cell(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _rank(row: Row) -> str:
    """The rank interval, ``"1-4"`` (one number when best and worst agree; empty: not ranked)."""
    best, worst = _cell(row.rank), _cell(row.rank_worst)
    return best if not best or not worst or best == worst else f"{best}-{worst}"


def _ci(interval: Interval, digits: int = 3) -> str:
    value = _cell(interval.value, digits)
    lo, hi = _cell(interval.low, digits), _cell(interval.high, digits)
    return f"{value} [{lo}, {hi}]" if value and lo and hi else value


def _alt(row: JudgeRow) -> str:
    """The alt-test cell: pass or fail with the winning rate omega and the average advantage
    probability rho (evidence beside the verdict, not a verdict)."""
    passed = row.alt_test_passed
    if passed is None or _cell(row.alt_test_winning_rate) == "":
        return ""
    omega, rho = _cell(row.alt_test_winning_rate, 2), _cell(row.alt_test_rho, 2)
    return f"{'pass' if passed else 'fail'} (omega {omega}, rho {rho or 'n/a'})"


def _rated(row: JudgeRow, metric: str) -> str:
    """The row's agreement when rated with the answers it rests on (``0.712 (n=340)``)."""
    value = _cell(getattr(row, f"{metric}_rated"))
    n = row.n_rated
    return f"{value} (n={n:,})" if value and n is not None else value


def markdown(
    judges: Sequence[JudgeRow],
    models: Sequence[ModelRow],
    view: str,
    metric: str,
    notes: tuple[str, str] = ("", ""),
) -> str:
    """A board's rows as two Markdown tables, each followed by its note (``notes``: judges,
    models; an empty note is left out); the agreement when rated is shown with the answers
    it rests on (the row's ``n_rated``)."""
    lines = [f"## Judges ({view} view, ranked on {metric})", ""]
    lines.append(
        f"| rank | judge | source | status | {metric} [95% CI] | verdict | kappa d vs "
        f"physicians [95% CI] | decided on | core d | extension d | {metric} when rated | "
        "abstention | alt-test |"
    )
    lines.append("|---|---|---|---|---:|---|---:|---|---:|---:|---:|---:|---|")
    for r in judges:
        lines.append(
            f"| {_rank(r)} | {r.name} | {r.source} | {r.status} | "
            f"{_ci(getattr(r, metric))} | "
            f"{_cell(r.verdict)} | {_ci(r.d)} | "
            f"{_cell(r.decided_on)} | {_cell(r.d_physicians.value)} | "
            f"{_cell(r.d_extension.value)} | {_rated(r, metric)} | "
            f"{_cell(r.abstention)} | {_alt(r)} |"
        )
    lines += [
        "",
        "alt-test: the alternative annotator test on the core (answers as instances, epsilon "
        "0.2), omega = winning rate, rho = average advantage probability; evidence beside the "
        "verdict, not a verdict.",
    ]
    if notes[0]:
        lines += ["", notes[0]]
    lines += ["", f"## Models ({view} view, anchored accuracy)", ""]
    lines.append("| rank | model | source | status | accuracy [95% CI] | bounds |")
    lines.append("|---|---|---|---|---:|---:|")
    for m in models:
        lines.append(
            f"| {_rank(m)} | {m.name} | {m.source} | {m.status} | {_ci(m.accuracy)} | "
            f"{_cell(m.lower.value)}-{_cell(m.upper.value)} |"
        )
    if notes[1]:
        lines += ["", notes[1]]
    return "\n".join(lines) + "\n"


def _resolution(resolution: Resolution | None) -> dict[str, Any] | None:
    if resolution is None:
        return None
    return {
        k: None if isinstance(v, float) and math.isnan(v) else v
        for k, v in asdict(resolution).items()
    }


def payload(
    judges: pd.DataFrame,
    models: pd.DataFrame,
    view: str,
    resolutions: tuple[Resolution | None, Resolution | None] = (None, None),
) -> dict[str, Any]:
    """The JSON object: ``{"view", "judges": [row...], "models": [row...], "resolution":
    {"judges", "models"}}`` (NaN as null; resolution: what each ranked board can tell apart,
    :class:`~medqade.measures.ranking.Resolution`)."""
    return {
        "view": view,
        "judges": rows(judges),
        "models": rows(models),
        "resolution": {
            "judges": _resolution(resolutions[0]),
            "models": _resolution(resolutions[1]),
        },
    }


def run(args: argparse.Namespace) -> int:
    opened = open_board(args)
    board = leaderboard(opened.records, view=args.view, metric=args.metric, margin=args.margin)
    if args.fmt == "json":
        out = payload(
            board.judges_frame(),
            board.models_frame(),
            args.view,
            (board.judges_resolution, board.models_resolution),
        )
        print(json.dumps(out, ensure_ascii=False, indent=1))
    elif args.fmt == "csv":
        print(csv_text(board.judges_frame()), end="")
        print()
        print(csv_text(board.models_frame()), end="")
    else:
        notes = (
            resolution_note(board.judges_resolution, args.metric, "judges"),
            resolution_note(board.models_resolution, "accuracy", "models"),
        )
        print(markdown(board.judges, board.models, args.view, args.metric, notes), end="")
    return 0
