"""Breakdowns: a judge's agreement with the consensus within groups of questions.

For every categorical column of the questions table (``specialty`` on the synthetic release;
:func:`categorical_columns` says which), for the difficulty tier and for the lexical stratum
(the reference answer appears verbatim in the answer, or not): kappa and PA against the
consensus in each group, macro over the five slots, an abstention or missing label counting as
a disagreement (as in the headline), with 95% percentile intervals from the view's question
resamples (a group's statistic is recomputed on the group within every resample of all
questions, so its interval is paired with the headline:
:func:`medqade.measures.reference_agreement.grouped_agreement`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from medqade import vocab
from medqade.measures.reference_agreement import grouped_agreement
from medqade.measures.slots import Agreement, AnyWeights

NOT_CATEGORICAL: Final = frozenset(
    {"question_id", "question", "reference_answer", "canary", "split", "fact_id"}
)
"""Text and id columns of the questions table that are never a breakdown."""
MAX_GROUPS: Final = 50
"""A column with more distinct values is not treated as categorical."""
TIER: Final = "tier"
LEXICAL: Final = "lexical"


def categorical_columns(questions: pd.DataFrame) -> tuple[str, ...]:
    """Text columns of ``questions`` with 2 to :data:`MAX_GROUPS` distinct values (fewer than
    half the rows), ids and free text excluded (:data:`NOT_CATEGORICAL`)."""
    out = []
    for column in questions.columns:
        if column in NOT_CATEGORICAL:
            continue
        values = questions[column]
        if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
            continue
        k = values.nunique(dropna=True)
        if 2 <= k <= MAX_GROUPS and k < 0.5 * len(values):
            out.append(str(column))
    return tuple(out)


@dataclass(frozen=True, eq=False)
class Breakdowns:
    """Agreement per group, by dimension (``specialty``, ``tier``, ``lexical``, ...)."""

    groups: Mapping[str, Mapping[str, Agreement | None]]

    def to_json(self) -> dict[str, Any]:
        def block(a: Agreement | None) -> dict[str, Any] | None:
            if a is None:
                return None
            return {
                **a.kappa.to_dict("kappa"),
                **a.pa.to_dict("pa"),
                "n": a.n,
                "n_items": a.n_items,
            }

        return {dim: {g: block(a) for g, a in found.items()} for dim, found in self.groups.items()}


def dimensions(
    questions: pd.DataFrame, tiers: npt.ArrayLike, lexical: npt.ArrayLike
) -> dict[str, npt.NDArray[np.object_]]:
    """The group of every question (items,) per dimension: each categorical column, ``tier``
    (``T1``..``T4``) and ``lexical`` (``exact_match`` / ``no_match``)."""
    out: dict[str, npt.NDArray[np.object_]] = {
        c: questions[c].astype(object).where(questions[c].notna(), None).to_numpy(dtype=object)
        for c in categorical_columns(questions)
    }
    out[TIER] = np.array([f"T{int(t)}" for t in np.asarray(tiers)], dtype=object)
    out[LEXICAL] = np.where(np.asarray(lexical, dtype=bool), "exact_match", "no_match").astype(
        object
    )
    return out


def breakdowns(
    labels: npt.ArrayLike,
    consensus: npt.ArrayLike,
    dims: Mapping[str, npt.NDArray[np.object_]],
    slots: tuple[str, ...] = (),
    weights: AnyWeights | None = None,
) -> Breakdowns:
    """Agreement of ``labels`` (items, 5) with ``consensus`` in every group of every dimension
    (each an (items,) array of group names, ``None`` for no group), abstentions as
    disagreements, groups in sorted order."""
    names = slots or tuple(f"slot{s + 1}" for s in range(vocab.N_SLOTS))
    out: dict[str, dict[str, Agreement | None]] = {}
    for dim, values in dims.items():
        keys = sorted({str(v) for v in values if v is not None})
        groups = {k: np.array([v is not None and str(v) == k for v in values]) for k in keys}
        found = grouped_agreement(labels, consensus, groups, names, weights, abstain_disagrees=True)
        out[dim] = dict(found)
    return Breakdowns(out)
