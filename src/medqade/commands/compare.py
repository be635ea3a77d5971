"""``medqade compare A B``: two labellers on the same questions, with paired intervals."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from medqade.commands._board import OpenBoard, add_board_arguments, open_board
from medqade.scoring.board import (
    CompareError,
    Comparison,
    Difference,
    Side,
    compare,
    leaderboard,
    resolve,
    submission_side,
)
from medqade.scoring.intake import JUDGE, parse_submission
from medqade.scoring.record import alt_test_text, jsonable

NAME = "compare"
LOCAL_FILE = "a judge submission file that exists"
HELP = "Compare two judges (or a judge and the physicians) on the same questions, paired."

EPILOG = """\
A and B: a paper evaluator id (e.g. gemini-3-flash-preview), 'physicians' (the leave-one-out
reference, core view only), a baseline id or name, a record id (or a prefix of 8+ characters)
from the results folder, or a judge submission file. A row id is looked up first; an argument
that names no row and is an existing file is read here, on your machine, as a judge submission
(the Space takes row ids only). Differences are A minus B with paired 95% percentile intervals
over the same question resamples. For two judges ranked on the leaderboard it also says
whether the board's simultaneous intervals (all ranked pairs at once) separate them.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="first side")
    p.add_argument("b", help="second side")
    add_board_arguments(p)
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.add_argument("--limit", type=int, default=500, help="disagreements to list (default 500)")
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _ci_pair(ci: Any) -> str:
    """``[low, high]`` of a stored interval (``n/a`` bounds when missing)."""
    low, high = (ci or (math.nan, math.nan))[:2]
    return "[" + ", ".join(_f(math.nan if x is None else float(x)) for x in (low, high)) + "]"


def _f(x: float, signed: bool = True) -> str:
    if x != x:  # NaN
        return "n/a"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def _diff(d: Difference, metric: str) -> str:
    e = getattr(d, metric)
    star = " *" if e.excludes_zero() else ""
    return f"{_f(e.value)} [{_f(e.low)}, {_f(e.high)}]{star}"


def text(c: Comparison, names: dict[str, str], shown: int = 20) -> str:
    """The comparison as text; ``names`` maps student ids to display names."""
    a, b = c.a.name, c.b.name
    lines = [
        f"A = {a} ({c.a.source}), B = {b} ({c.b.source}); {c.view} view, {c.n_items:,} items, "
        f"{c.resamples:,} paired question resamples (seed {c.seed})",
        "",
        f"{'':12} {'A':>8} {'B':>8}   A - B [95% paired CI]",
    ]
    for m in ("kappa", "pa", "pabak"):
        lines.append(
            f"{m:12} {_f(c.overall.a.metric(m).value, False):>8} "
            f"{_f(c.overall.b.metric(m).value, False):>8}   {_diff(c.overall, m)}"
        )
    lines += fidelity_lines(c)
    judge = c.judge_side
    if judge is not None:
        lines += in_place_lines(c, judge)
    better = {
        "a": f"A ({a}) is better",
        "b": f"B ({b}) is better",
        None: "no significant kappa difference",
    }
    fixed = (
        "; these intervals hold the ten physicians fixed, the verdict's below is over "
        "questions and physicians"
        if c.versus_physicians is not None
        else ""
    )
    lines += ["", f"difference: {better[c.better]} (paired 95% CI of the kappa difference{fixed})"]
    if c.board is not None:
        lines.append(c.board.text())
    vs = c.versus_physicians
    if vs is not None:
        lines.append(
            "the judge in each physician's place (abstentions as disagreements): "
            f"verdict vs physicians {vs['verdict'] or 'n/a'} (kappa d "
            f"{_f(vs['headline']['kappa'], True)} {_ci_pair(vs['headline']['kappa_ci'])}, over "
            f"questions and physicians, margin {vs['headline']['margin']:g}, decided on "
            f"{vs['headline']['decided_on']}: the same as score and the leaderboard)"
        )
        if vs["alt_test"] is not None:
            lines.append(alt_test_text(vs["alt_test"]))
    lines.append("")
    lines.append("per slot (kappa A - B):")
    for name, d in c.slots.items():
        lines.append(f"  {names.get(name, name):24} {_diff(d, 'kappa')}")
    lines.append("per difficulty tier (kappa A - B):")
    for t, tier in c.tiers.items():
        lines.append(f"  T{t:<23} {'n/a' if tier is None else _diff(tier, 'kappa')}")
    for dim, groups in (c.breakdowns or {}).items():
        lines.append(f"per {dim} (kappa A - B):")
        for g, part in groups.items():
            lines.append(f"  {g[:23]:24} {'n/a' if part is None else _diff(part, 'kappa')}")
    lines += [
        "",
        f"different substantive labels on {c.n_disagreements:,} of {c.n_both:,} answers both "
        "labelled" + (":" if c.disagreements else ""),
    ]
    for row in c.disagreements[:shown]:
        lines.append(
            f"  {row['answer_id']}: A {row['a']}, B {row['b']}, consensus {row['consensus']}"
        )
    if c.n_disagreements > shown:
        lines.append(f"  ... {c.n_disagreements - shown:,} more (--json lists up to --limit)")
    lines.append("* the paired 95% interval excludes 0")
    return "\n".join(lines) + "\n"


def fidelity_lines(c: Comparison) -> list[str]:
    """Each judge side's ranking fidelity: Kendall's tau-b between the student accuracies it
    gives and the physicians' (95% interval), and for two judges the paired difference."""
    cells = []
    for side, found in zip("AB", c.fidelity, strict=True):
        if found is None:
            cells.append(f"{side} the physicians' own order (the reference)")
            continue
        t = found.tau
        cells.append(f"{side} {_f(t.value, False)} [{_f(t.low, False)}, {_f(t.high, False)}]")
    out = [
        "ranking fidelity (Kendall tau-b, the students ordered by the judge's accuracy vs "
        "the physicians'): " + ", ".join(cells)
    ]
    d = c.tau_difference
    if d is not None:
        star = " *" if d.excludes_zero() else ""
        out.append(f"{'tau':12} A - B {_f(d.value)} [{_f(d.low)}, {_f(d.high)}]{star}")
    return out


def in_place_lines(c: Comparison, judge: str) -> list[str]:
    """Against the physicians: which quantity the judge's column holds, and the judge's
    agreement with the consensus of all ten as the leaderboard shows it, both labelled."""
    place = c.overall.a if judge == "a" else c.overall.b
    side = judge.upper()
    out = [
        f"{side}'s column: its agreement in each physician's place (against the majority of "
        "the other nine each physician faced, averaged over the ten): kappa "
        f"{_f(place.kappa.value, False)} in each physician's place"
    ]
    cons = c.against_consensus
    if cons is not None:
        out.append(
            f"{side} against the consensus of all ten (as on the leaderboard and in score): "
            f"kappa {_f(cons.kappa.value, False)}, PA {_f(cons.pa.value, False)}, PABAK "
            f"{_f(cons.pabak.value, False)}"
        )
    return out


def _local_file(arg: str) -> Path | None:
    """``arg`` as an existing file of this machine, else ``None`` (also for a name the file
    system refuses, e.g. one too long)."""
    path = Path(arg)
    try:
        return path if path.is_file() else None
    except (OSError, ValueError):
        return None


def side(board: OpenBoard, arg: str) -> Side:
    """The side ``arg`` names: a row of the board (:func:`resolve`), else a judge file the
    local user named, parsed here (the library never opens a path a token names)."""
    try:
        return resolve(board.release, arg, board.records, board.uploads, also=LOCAL_FILE)
    except CompareError:
        path = _local_file(arg)
        if path is None:
            raise
    sub = parse_submission(path.read_bytes(), path.name, board.release, JUDGE)
    return submission_side(arg, sub, str(sub.meta.get("name") or path.name))


def run(args: argparse.Namespace) -> int:
    board = open_board(args)
    side_a, side_b = side(board, args.a), side(board, args.b)
    tables = leaderboard(board.records, view=args.view, margin=args.margin)
    result = compare(
        board.release,
        side_a,
        side_b,
        args.view,
        args.resamples,
        args.seed,
        args.limit,
        ranked=tables.judges_board,
        records=board.records,
    )
    if args.json:
        out: dict[str, Any] = jsonable(result.to_dict())
        print(json.dumps(out, ensure_ascii=False, indent=1, allow_nan=False))
    else:
        names = {m.id: m.name for m in board.release.roster.students}
        print(text(result, names), end="")
    return 0
