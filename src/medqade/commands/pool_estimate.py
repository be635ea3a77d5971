"""``medqade pool-estimate``: physician-calibrated student accuracy on the whole item pool."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from medqade.commands._args import add_data_argument
from medqade.dataset.pool_data import PoolLabels, load_pool_labels
from medqade.dataset.sources import resolve_data
from medqade.measures import StudentPoolEstimate, estimate_pool

NAME = "pool-estimate"
HELP = (
    "Estimate each student's accuracy on the whole item pool from a judge's pool labels and "
    "the physicians' benchmark labels (prediction-powered inference)."
)
EPILOG = """\
LABELS is a judge with published pool labels (e.g. gemini-3-flash-preview) or a judgments
file over the pool (`medqade judge --split pool --out FILE.jsonl`). Estimates, per student:
physician-only (design-weighted benchmark mean), judge-only (the judge's own pool accuracy;
biased, for contrast only) and PPI (power-tuned prediction-powered estimate), each with a 95%
CI; ESS gain = var(physician-only) / var(PPI). Unresolved consensus and judge abstentions are
missing, as in the paper's accuracy. See docs/pool.md.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("labels", metavar="LABELS", help="judge id or judgments file (see below)")
    add_data_argument(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def as_json(labels: PoolLabels, estimates: dict[str, StudentPoolEstimate]) -> dict[str, Any]:
    """``{"judge", "students": {model: {"physician_only", "judge_only", "ppi", "ess_gain"}}}``
    (accuracy as a fraction, CI as ``[low, high]``, NaN as null)."""

    def clean(v: Any) -> Any:
        if isinstance(v, float):
            return _num(v)
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    return {
        "judge": labels.judge,
        "students": {m: clean(e.to_dict()) for m, e in estimates.items()},
    }


def _pct(x: float) -> str:
    return "" if math.isnan(x) else f"{100 * x:.1f}"


def table(labels: PoolLabels, estimates: dict[str, StudentPoolEstimate]) -> str:
    """A Markdown table of the three estimates per student (accuracy in percent)."""
    n_pool, n_lab = len(labels.judge_pool), int(labels.labelled.sum())
    lines = [
        f"Pool accuracy by physician consensus, judge {labels.judge}: {n_pool} pool items, "
        f"{n_lab} labelled by physicians" + (" (synthetic release)" if labels.synthetic else ""),
        "",
        "| student | physician-only % [95% CI] | judge-only % (biased) | PPI % [95% CI] "
        "| lambda (exact, no match) | ESS gain |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for model, e in estimates.items():
        lam = ", ".join(f"{x:.2f}" for x in e.ppi.lam)
        lines.append(
            f"| {model} | {_pct(e.physician_only.estimate)} [{_pct(e.physician_only.low)}, "
            f"{_pct(e.physician_only.high)}] | {_pct(e.judge_only.estimate)} | "
            f"{_pct(e.ppi.estimate)} [{_pct(e.ppi.low)}, {_pct(e.ppi.high)}] | {lam} | "
            f"{e.ess_gain:.2f} |"
        )
    if labels.n_missing:
        lines += ["", f"{labels.n_missing} pool answers have no label from this judge (missing)."]
    return "\n".join(lines)


def estimate(data: str | None, labels: str) -> tuple[PoolLabels, dict[str, StudentPoolEstimate]]:
    """Load the pool of ``--data`` with the judge ``labels`` and estimate (the command's core)."""
    pl = load_pool_labels(resolve_data(data), labels)
    est = estimate_pool(pl)
    return pl, est


def run(args: argparse.Namespace) -> int:
    pl, est = estimate(args.data, args.labels)
    if args.json:
        print(json.dumps(as_json(pl, est), ensure_ascii=False, indent=1, allow_nan=False))
    else:
        print(table(pl, est))
    return 0
