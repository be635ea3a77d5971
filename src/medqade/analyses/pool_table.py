"""Supplementary table S5: physician-calibrated accuracy on the whole pool (``reproduce``).

Present when the release publishes pool judgments. One row per student: the pool accuracy by
physician consensus estimated physician-only (design-weighted benchmark mean), judge-only
(the judge's own pool accuracy, biased, for contrast) and by power-tuned prediction-powered
inference, each with its 95% CI, and the effective-sample-size gain of PPI
(:mod:`medqade.measures.pool`). The judge is the first of the roster's evaluators with pool
labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medqade import vocab
from medqade.analyses.cells import Cell, Table
from medqade.dataset.pool_data import load_pool_labels, pool_evaluators
from medqade.measures import StudentPoolEstimate, estimate_pool

NAME = "table_s5_pool"


@dataclass(frozen=True)
class PoolReport:
    """The S5 estimates of one judge on the pool."""

    judge: str
    n_pool: int
    n_labelled: int
    estimates: dict[str, StudentPoolEstimate]

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "n_pool": self.n_pool,
            "n_labelled": self.n_labelled,
            "students": {m: e.to_dict() for m, e in self.estimates.items()},
        }


def pool_report(folder: Path, roster: vocab.Roster) -> PoolReport | None:
    """S5 for the build ``folder``, or ``None`` when it publishes no pool judgments."""
    judges = set(pool_evaluators(folder))
    judge = next((e for e in roster.evaluator_ids if e in judges), None)
    if judge is None:
        return None
    pl = load_pool_labels(folder, judge)
    lab = pl.labelled
    est = estimate_pool(pl)
    return PoolReport(judge, len(pl.judge_pool), int(lab.sum()), est)


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}"


def pool_table(report: PoolReport, roster: vocab.Roster) -> Table:
    """The S5 table of ``report`` (accuracy in percent)."""
    rows: list[tuple[str, ...]] = []
    csv_rows: list[tuple[Cell, ...]] = []
    for model, e in report.estimates.items():
        parts = (e.physician_only, e.judge_only, e.ppi)
        rows.append(
            (
                roster.name(model),
                *(f"{_pct(p.estimate)} [{_pct(p.low)}, {_pct(p.high)}]" for p in parts),
                f"{e.ess_gain:.2f}",
            )
        )
        csv_rows.append(
            (model, *(v for p in parts for v in (p.estimate, p.low, p.high)), e.ess_gain)
        )
    return Table(
        name=NAME,
        title=(
            f"Table S5. Accuracy on the whole pool ({report.n_pool} items; physicians labelled "
            f"{report.n_labelled}), judge {roster.name(report.judge)}"
        ),
        header=(
            "Model",
            "Physician-only % [95% CI]",
            "Judge-only % (biased)",
            "PPI % [95% CI]",
            "ESS gain",
        ),
        rows=tuple(rows),
        csv_header=(
            "model",
            *(
                f"{k}{s}"
                for k in ("physician_only", "judge_only", "ppi")
                for s in ("", "_low", "_high")
            ),
            "ess_gain",
        ),
        csv_rows=tuple(csv_rows),
        note=(
            "Prediction-powered inference (PPI++, power-tuned per lexical stratum): the judge's "
            "pool accuracy corrected by the physicians' benchmark labels; unresolved consensus "
            "and judge abstentions are missing. Judge-only ignores the judge's bias and is shown "
            "for contrast only. See docs/pool.md."
        ),
    )
