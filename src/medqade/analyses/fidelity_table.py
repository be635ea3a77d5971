"""Supplementary table S8: ranking fidelity of every reference evaluator (``reproduce``).

Per evaluator, from its labels in the release (``judgments``) on all items
(:func:`medqade.measures.fidelity.ranking_fidelity`): Kendall's tau-b between the five students
ordered by the evaluator's accuracy and by the physician consensus', the largest absolute
error of a student's accuracy and its student, the probability that the evaluator picks the
physicians' best student, and each student's error. Intervals come from the all-items
question resamples that judge scoring uses for a full submission, so an evaluator's row equals
the ``ranking_fidelity`` section of its score record (same resamples and seed).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.analyses.cells import NA, Cell, Table, est, pct
from medqade.dataset.release import Release
from medqade.measures import RankingFidelity, ranking_fidelity

NAME = "table_s8_fidelity"


def paper_fidelity(
    release: Release, all_weights: npt.NDArray[np.int64] | None
) -> dict[str, RankingFidelity]:
    """Ranking fidelity of every reference evaluator on all items (module docstring)."""
    w = None if all_weights is None else np.asarray(all_weights, dtype=np.float64)
    students = tuple(release.roster.student_ids)
    return {
        ev: ranking_fidelity(release.evaluator_labels[e], release.consensus, students, w)
        for e, ev in enumerate(release.roster.evaluator_ids)
    }


def _names(ids: tuple[str, ...], roster: vocab.Roster) -> str:
    return ", ".join(roster.name(s) for s in ids) if ids else NA


def fidelity_table(fidelity: Mapping[str, RankingFidelity], roster: vocab.Roster) -> Table:
    """S8 from :func:`paper_fidelity`."""
    students = roster.student_ids
    header = (
        "Evaluator",
        "Kendall tau-b",
        "Largest error",
        "on",
        "P(picks best)",
        "Evaluator's best",
    )
    csv_header = (
        "evaluator",
        "kendall_tau_b",
        "kendall_tau_b_low",
        "kendall_tau_b_high",
        "largest_error",
        "largest_error_low",
        "largest_error_high",
        "largest_error_student",
        "picks_best",
        "probability_best",
        "judge_best",
        "physicians_best",
        *(f"error_{s}" for s in students),
        "n_items",
    )
    rows: list[tuple[str, ...]] = []
    csv_rows: list[tuple[Cell, ...]] = []
    for ev, f in fidelity.items():
        worst = f.largest_error_student
        rows.append(
            (
                roster.name(ev),
                est(f.tau),
                est(f.largest_error),
                roster.name(worst) if worst else NA,
                pct(f.probability_best),
                _names(f.judge_best, roster),
            )
        )
        errors = {s.student: s.difference.value for s in f.students}
        csv_rows.append(
            (
                ev,
                f.tau.value,
                f.tau.low,
                f.tau.high,
                f.largest_error.value,
                f.largest_error.low,
                f.largest_error.high,
                worst,
                f.picks_best.value,
                f.probability_best,
                ";".join(f.judge_best),
                ";".join(f.physicians_best),
                *(errors.get(s, float("nan")) for s in students),
                f.n_items,
            )
        )
    first = next(iter(fidelity.values()), None)
    best = NA if first is None else _names(first.physicians_best, roster)
    note = (
        "Would the evaluator rank the five student models as the physicians do? Per student, "
        "accuracy as the evaluator labels it and as the physician consensus labels it, on the "
        "answers with a resolved consensus (an abstention is not Richtig); all items. Kendall "
        "tau-b between the two orders (1: the physicians' order); largest error: the largest "
        "absolute difference of a student's accuracy, evaluator minus physicians, and its "
        "student; P(picks best): the share of question resamples on which the evaluator's "
        f"best student is the physicians' best (physicians' best on the data: {best}). 95% "
        "intervals from the all-items question resamples, as in judge scoring; the largest "
        "error's interval is descriptive (a maximum is biased upwards)."
    )
    return Table(
        NAME,
        "Table S8. Ranking fidelity of the evaluators",
        header,
        tuple(rows),
        csv_header,
        tuple(csv_rows),
        note,
    )
