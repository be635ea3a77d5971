"""Supplementary table S7: position bias of every reference evaluator (``reproduce``).

Per evaluator, from the ``judgments`` table's ``position`` column on all items
(:func:`medqade.measures.position.position_bias`): the share of ``Richtig`` among its
substantive labels at each presentation position 1-5 with 95% intervals (the all-items question
resamples that judge scoring uses), the chi-square of position x label, Cramér's V and the
p-value of the permutation test within questions. The same function scores the order a
submission carries (``behaviour.position`` of a score record).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.analyses.cells import NA, Cell, Table, est_pct, num
from medqade.dataset.release import Release
from medqade.measures import N_POSITIONS, PERMUTATIONS, PositionBias, release_positions
from medqade.measures import position_bias as measure

NAME = "table_s7_position"


def paper_positions(
    release: Release,
    all_weights: npt.NDArray[np.int64] | None,
    seed: int,
    permutations: int = PERMUTATIONS,
) -> dict[str, PositionBias]:
    """Position bias of every reference evaluator with a complete order on some question."""
    roster = release.roster
    pos = release_positions(
        release.judgments, release.slot_index, roster.evaluator_ids, release.n_items
    )
    w = None if all_weights is None else np.asarray(all_weights, dtype=np.float64)
    out = {}
    for e, ev in enumerate(roster.evaluator_ids):
        found = measure(
            release.evaluator_labels[e], pos[e], release.consensus, w, permutations, seed
        )
        if found is not None:
            out[ev] = found
    return out


def _p(p: float) -> str:
    if p != p:  # NaN
        return NA
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def position_table(positions: Mapping[str, PositionBias], roster: vocab.Roster) -> Table:
    """S7 from :func:`paper_positions`."""
    header = (
        "Evaluator",
        *(f"Richtig at {k}" for k in range(1, N_POSITIONS + 1)),
        "Chi-square",
        "Cramér's V",
        "p (permutation)",
    )
    csv_header = (
        "evaluator",
        *(f"richtig_{k}{s}" for k in range(1, N_POSITIONS + 1) for s in ("", "_low", "_high")),
        *(f"agreement_{k}" for k in range(1, N_POSITIONS + 1)),
        "chi2",
        "cramers_v",
        "p_value",
        "permutations",
        "n_items",
    )
    rows: list[tuple[str, ...]] = []
    csv_rows: list[tuple[Cell, ...]] = []
    for ev, b in positions.items():
        rows.append(
            (
                roster.name(ev),
                *(est_pct(e) for e in b.richtig),
                num(b.chi2, 2),
                num(b.cramers_v, 3),
                _p(b.p_value),
            )
        )
        csv_rows.append(
            (
                ev,
                *(x for e in b.richtig for x in (e.value, e.low, e.high)),
                *(e.value for e in b.agreement),
                b.chi2,
                b.cramers_v,
                b.p_value,
                b.permutations,
                b.n_items,
            )
        )
    first = next(iter(positions.values()), None)
    n_perm = 0 if first is None else first.permutations
    note = (
        "Share of Richtig among each evaluator's Richtig/Falsch labels by the position (1-5) "
        "at which the answer was shown, all items, 95% CIs from the all-items question "
        "resamples. Chi-square of the 5 x 2 table position x label; Cramér's V = "
        "sqrt(chi2 / N). p: permutation test that reshuffles the five positions within every "
        f"question ({n_perm:,} permutations), so the answers keep their labels and only the "
        "order moves. The same statistic as `behaviour.position` of `medqade score`."
    )
    return Table(
        NAME,
        "Table S7. Position bias of the evaluators",
        header,
        tuple(rows),
        csv_header,
        tuple(csv_rows),
        note,
    )
