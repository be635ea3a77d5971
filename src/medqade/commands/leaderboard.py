"""``medqade leaderboard``: the Space's judge and model tables, in the terminal."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from medqade.commands._board import add_board_arguments, open_board
from medqade.scoring import csv_text, leaderboard
from medqade.scoring.board_rows import rated_n
from medqade.scoring.leaderboard import rows

NAME = "leaderboard"
HELP = (
    "Print the leaderboard's judge and model tables (same rows, ranks and verdicts as the Space)."
)

EPILOG = """\
Rank "best-worst": best = 1 + the number of ranked rows significantly better, worst = K - the
number significantly worse (K ranked rows), from simultaneous 95% intervals over all ranked
pairs (max-T bootstrap on the shared resamples); verdict = the paired difference judge -
physicians against the non-inferiority margin. See docs/statistics.md.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_board_arguments(p)
    p.add_argument("--metric", choices=("kappa", "pa", "pabak"), default="kappa")
    p.add_argument("--format", choices=("md", "csv", "json"), default="md", dest="fmt")
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _cell(value: Any, digits: int = 3) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _rank(row: Any) -> str:
    """The rank interval, ``"1-4"`` (one number when best and worst agree; empty: not ranked)."""
    best, worst = _cell(row["rank"]), _cell(row["rank_worst"])
    return best if not best or not worst or best == worst else f"{best}-{worst}"


def _ci(row: Any, key: str, low: str, high: str, digits: int = 3) -> str:
    value = _cell(row[key], digits)
    lo, hi = _cell(row[low], digits), _cell(row[high], digits)
    return f"{value} [{lo}, {hi}]" if value and lo and hi else value


def _alt(row: Any) -> str:
    """The alt-test cell: pass or fail with the winning rate omega and the average advantage
    probability rho (evidence beside the verdict, not a verdict)."""
    passed = row["alt_test_passed"]
    if passed is None or passed is pd.NA or _cell(row["alt_test_winning_rate"]) == "":
        return ""
    omega, rho = _cell(row["alt_test_winning_rate"], 2), _cell(row["alt_test_rho"], 2)
    return f"{'pass' if passed else 'fail'} (omega {omega}, rho {rho or 'n/a'})"


def _rated(row: Any, metric: str, rated: Mapping[str, int | None]) -> str:
    """The row's agreement when rated with the answers it rests on (``0.712 (n=340)``)."""
    value = _cell(row[f"{metric}_rated"])
    n = rated.get(str(row["id"]))
    return f"{value} (n={n:,})" if value and n is not None else value


def markdown(
    judges: pd.DataFrame,
    models: pd.DataFrame,
    view: str,
    metric: str,
    rated: Mapping[str, int | None] | None = None,
) -> str:
    """The two tables in Markdown; ``rated``: per record id the answers its agreement when
    rated rests on (:func:`medqade.scoring.board_rows.rated_n`), shown beside it."""
    rated = rated or {}
    lines = [f"## Judges ({view} view, ranked on {metric})", ""]
    lines.append(
        f"| rank | judge | source | status | {metric} [95% CI] | verdict | kappa d vs "
        f"physicians [95% CI] | decided on | core d | extension d | {metric} when rated | "
        "abstention | alt-test |"
    )
    lines.append("|---|---|---|---|---:|---|---:|---|---:|---:|---:|---:|---|")
    for _, r in judges.iterrows():
        lines.append(
            f"| {_rank(r)} | {r['name']} | {r['source']} | {r['status']} | "
            f"{_ci(r, metric, f'{metric}_low', f'{metric}_high')} | "
            f"{_cell(r['verdict'])} | {_ci(r, 'd', 'd_low', 'd_high')} | "
            f"{_cell(r['decided_on'])} | {_cell(r['d_physicians'])} | "
            f"{_cell(r['d_extension'])} | {_rated(r, metric, rated)} | "
            f"{_cell(r['abstention'])} | {_alt(r)} |"
        )
    lines += [
        "",
        "alt-test: the alternative annotator test on the core (answers as instances, epsilon "
        "0.2), omega = winning rate, rho = average advantage probability; evidence beside the "
        "verdict, not a verdict.",
    ]
    lines += ["", f"## Models ({view} view, anchored accuracy)", ""]
    lines.append("| rank | model | source | status | accuracy [95% CI] | bounds |")
    lines.append("|---|---|---|---|---:|---:|")
    for _, r in models.iterrows():
        lines.append(
            f"| {_rank(r)} | {r['name']} | {r['source']} | {r['status']} | "
            f"{_ci(r, 'accuracy', 'accuracy_low', 'accuracy_high')} | "
            f"{_cell(r['lower'])}-{_cell(r['upper'])} |"
        )
    return "\n".join(lines) + "\n"


def payload(judges: pd.DataFrame, models: pd.DataFrame, view: str) -> dict[str, Any]:
    """The JSON object: ``{"view", "judges": [row...], "models": [row...]}`` (NaN as null)."""
    return {
        "view": view,
        "judges": rows(judges),
        "models": rows(models),
    }


def run(args: argparse.Namespace) -> int:
    board = open_board(args)
    judges, models = leaderboard(
        board.records, view=args.view, metric=args.metric, margin=args.margin
    )
    if args.fmt == "json":
        print(json.dumps(payload(judges, models, args.view), ensure_ascii=False, indent=1))
    elif args.fmt == "csv":
        print(csv_text(judges), end="")
        print()
        print(csv_text(models), end="")
    else:
        by_id = {str(rec.id): rec for rec in board.records}
        rated = {
            str(i): rated_n(by_id.get(str(i)), str(s)) for i, s in judges[["id", "scope"]].values
        }
        print(markdown(judges, models, args.view, args.metric, rated), end="")
    return 0
