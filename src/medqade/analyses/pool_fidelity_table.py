"""Supplementary table S9: ranking fidelity on the whole item pool (``reproduce``).

Present when the release publishes pool judgments: one row per evaluator with pool labels, in
roster order (:func:`medqade.measures.pool_ranking.pool_fidelity`). Per evaluator, each
student's pool accuracy as the evaluator labels it (judge-only, Table S5's column) against the
physician-calibrated one (PPI, Table S5's estimate): Kendall's tau-b between the two orders, the
largest absolute error and its student, the probability that the evaluator's best student is
the physicians', and each student's error. The intervals come from one seeded stratified
bootstrap of the physician-labelled items (stream ``STREAM_POOL`` of the reproduce seed), the
same resamples for every evaluator.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from medqade import vocab
from medqade.analyses.cells import NA, Cell, Table, est, est_csv, pct, points
from medqade.dataset.pool_data import load_pool_labels, pool_evaluators
from medqade.measures import PoolFidelity, pool_fidelity, pool_resamples

NAME = "table_s9_pool_fidelity"


def pool_fidelity_report(
    folder: Path, roster: vocab.Roster, resamples: int, seed: int
) -> dict[str, PoolFidelity] | None:
    """S9 for the build ``folder``: every roster evaluator with pool labels, on the same
    ``resamples`` stratified resamples of ``seed``; ``None`` without pool judgments."""
    judges = set(pool_evaluators(folder))
    found = [e for e in roster.evaluator_ids if e in judges]
    if not found:
        return None
    out: dict[str, PoolFidelity] = {}
    indices = None
    for judge in found:
        labels = load_pool_labels(folder, judge)
        if indices is None:  # the labelled items and their strata are the release's
            lexical = np.asarray(labels.lexical_pool)[np.asarray(labels.labelled, dtype=bool)]
            indices = pool_resamples(lexical, resamples, seed)
        out[judge] = pool_fidelity(labels, indices)
    return out


def _names(ids: tuple[str, ...], roster: vocab.Roster) -> str:
    return ", ".join(roster.name(s) for s in ids) if ids else NA


def pool_fidelity_table(fidelity: Mapping[str, PoolFidelity], roster: vocab.Roster) -> Table:
    """S9 from :func:`pool_fidelity_report`."""
    students = roster.student_ids
    header = (
        "Evaluator",
        "Kendall tau-b",
        "Largest error",
        "on",
        "P(picks best)",
        "Evaluator's best",
        *(f"{roster.name(s)} error (pp)" for s in students),
    )
    csv_header = (
        "evaluator",
        *(f"kendall_tau_b{x}" for x in ("", "_low", "_high")),
        *(f"largest_error{x}" for x in ("", "_low", "_high")),
        "largest_error_student",
        "picks_best",
        "probability_best",
        "judge_best",
        "physicians_best",
        *(
            f"{part}_{s}{x}"
            for s in students
            for part, x in (
                ("judge", ""),
                ("physicians", ""),
                ("error", ""),
                ("error", "_low"),
                ("error", "_high"),
            )
        ),
        "n_pool",
        "n_labelled",
    )
    rows: list[tuple[str, ...]] = []
    csv_rows: list[tuple[Cell, ...]] = []
    for ev, f in fidelity.items():
        by_student = {s.student: s for s in f.students}
        worst = f.largest_error_student
        rows.append(
            (
                roster.name(ev),
                est(f.tau),
                est(f.largest_error),
                roster.name(worst) if worst else NA,
                pct(f.probability_best),
                _names(f.judge_best, roster),
                *(points(by_student[s].difference) if s in by_student else NA for s in students),
            )
        )
        per_student: list[Cell] = []
        for s in students:
            row = by_student.get(s)
            if row is None:
                per_student.extend([None] * 5)
            else:
                per_student.extend((row.judge, row.physicians.value, *est_csv(row.difference)))
        csv_rows.append(
            (
                ev,
                *est_csv(f.tau),
                *est_csv(f.largest_error),
                worst,
                f.picks_best.value,
                f.probability_best,
                ";".join(f.judge_best),
                ";".join(f.physicians_best),
                *per_student,
                f.n_pool,
                f.n_labelled,
            )
        )
    first = next(iter(fidelity.values()), None)
    size = (
        "" if first is None else f" ({first.n_pool} items; physicians labelled {first.n_labelled})"
    )
    best = NA if first is None else _names(first.physicians_best, roster)
    note = (
        "Would the evaluator, labelling the whole pool, rank the five student models as the "
        "physicians would? Per student, the evaluator's pool accuracy (judge-only: its share of "
        "Richtig among its verdicts on every pool answer, as in Table S5) against the "
        "physician-calibrated pool accuracy (PPI, Table S5's estimate with this evaluator's "
        "pool labels); error = evaluator minus physicians, in percentage points. Kendall tau-b "
        "between the two orders; largest error: the largest absolute error (a proportion) and "
        "its student; P(picks best): the share of resamples on which the evaluator's best "
        f"student is the physicians' best (physicians' best on the data, first evaluator: "
        f"{best}). 95% intervals from a stratified bootstrap of the physician-labelled items "
        "within their lexical strata, PPI recomputed on each resample, the evaluator's pool "
        "accuracy fixed (it labelled the whole pool); the same resamples for every evaluator. "
        "Without the finite-population correction the intervals are slightly conservative; the "
        "largest error's is descriptive; a tau interval of one value means the physicians' "
        "order did not change in any resample. See docs/statistics.md."
    )
    return Table(
        NAME,
        f"Table S9. Ranking fidelity on the whole pool{size}",
        header,
        tuple(rows),
        csv_header,
        tuple(csv_rows),
        note,
    )
