"""Where a judge fails: its agreement per cell (a specialty, a difficulty tier) beside the
physicians' own agreement in the same cell.

On the core (every physician rated every answer there), for every group of every dimension
(each categorical column of the questions table, e.g. ``specialty``, and the difficulty tier
``T1``..``T4``): the judge put in each physician's place
(:func:`medqade.measures.in_place.judge_in_place`), restricted to the cell's questions:

- ``judge``: the mean over physicians ``r`` of kappa(judge, majority of the other physicians)
  on the answers ``r`` rated, a judge's abstention or missing label counting as a disagreement;
- ``physicians``: the mean over ``r`` of kappa(``r``, majority of the others) on the same
  answers (the paper's leave-one-out agreement, in place);
- ``difference``: judge minus physicians, the like-for-like gap in the cell; its interval is
  the two-way one (questions and physicians, as the verdict's) when physician weights are
  given, else over questions only.

Kappa is macro over the five slots. Intervals are 95% percentile intervals from the view's
question resamples, each cell's statistic recomputed on the cell within every resample of all
questions (paired with the headline). Every cell carries its questions and the judge's answers
in it; a cell with fewer than :data:`MIN_CELL_QUESTIONS` questions is flagged
(``few_questions``): its interval is wide and its value says little.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade.measures.caution import MIN_TIER_QUESTIONS
from medqade.measures.estimate import Estimate
from medqade.measures.in_place import PanelWeights, judge_in_place, physicians_in_place
from medqade.measures.physician_reference import PerRater
from medqade.measures.slots import AnyWeights

MIN_CELL_QUESTIONS: Final = MIN_TIER_QUESTIONS
"""Below this many questions a cell is flagged (the caution code's threshold, 20)."""
METRIC: Final = "kappa"


@dataclass(frozen=True, eq=False)
class AgreementCell:
    """One cell (module docstring)."""

    dimension: str
    group: str
    judge: Estimate
    physicians: Estimate
    difference: Estimate
    n_questions: int
    n_answers: int

    @property
    def few_questions(self) -> bool:
        return self.n_questions < MIN_CELL_QUESTIONS

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "group": self.group,
            **self.judge.to_dict("judge"),
            **self.physicians.to_dict("physicians"),
            **self.difference.to_dict("difference"),
            "n_questions": self.n_questions,
            "n_answers": self.n_answers,
            "few_questions": self.few_questions,
        }


@dataclass(frozen=True, eq=False)
class CellTable:
    """Every cell of every dimension, dimensions in the given order, groups sorted."""

    cells: tuple[AgreementCell, ...]
    n_items: int
    two_way: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "split": "core",
            "metric": METRIC,
            "min_questions": MIN_CELL_QUESTIONS,
            "difference_interval": "questions and physicians" if self.two_way else "questions",
            "n_items": self.n_items,
            "cells": [c.to_json() for c in self.cells],
        }


def _groups(
    dims: Mapping[str, npt.NDArray[np.object_]],
) -> list[tuple[str, str, npt.NDArray[np.bool_]]]:
    """``(dimension, group, items mask)`` of every cell, in the table's order."""
    out = []
    for dim, values in dims.items():
        for key in sorted({str(v) for v in values if v is not None}):
            mask = np.array([v is not None and str(v) == key for v in values], dtype=bool)
            out.append((dim, key, mask))
    return out


CellPhysicians = Mapping[tuple[str, str], PerRater]
"""The physicians' side of every cell, keyed by ``(dimension, group)``."""


def cell_physicians(
    physician_labels: npt.ArrayLike,
    dims: Mapping[str, npt.NDArray[np.object_]],
    slots: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> CellPhysicians:
    """The physicians' side of :func:`cell_agreement` (it does not depend on the judge): each
    physician in place in each cell, computed once for many judges."""
    phys = np.asarray(physician_labels)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    return {
        (dim, key): physicians_in_place(phys[:, mask], slots, None if w is None else w[:, mask])
        for dim, key, mask in _groups(dims)
    }


def cell_agreement(
    labels: npt.ArrayLike,
    present: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    dims: Mapping[str, npt.NDArray[np.object_]],
    slots: tuple[str, ...],
    weights: AnyWeights | None = None,
    panel: PanelWeights | None = None,
    physicians: CellPhysicians | None = None,
) -> CellTable:
    """The cells (module docstring) of a judge's ``labels`` (items, slots) with rows
    ``present`` against ``physician_labels`` (P, items, slots) on the same items (the core),
    for the groups of ``dims`` (each an (items,) array of group names, ``None`` for none);
    ``weights`` (R, items) question resamples, ``panel`` (R, P) physician resamples;
    ``physicians``: :func:`cell_physicians` of the same arguments, when already computed."""
    lab = np.asarray(labels)
    rows = np.asarray(present, dtype=bool)
    phys = np.asarray(physician_labels)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    cells = []
    for dim, key, mask in _groups(dims):
        place = judge_in_place(
            lab[mask],
            phys[:, mask],
            slots,
            None if w is None else w[:, mask],
            physicians=None if physicians is None else physicians[dim, key],
        )
        cells.append(
            AgreementCell(
                dimension=dim,
                group=key,
                judge=place.judge.metric(METRIC),
                physicians=place.physicians.metric(METRIC),
                difference=place.difference(METRIC, panel),
                n_questions=int(mask.sum()),
                n_answers=int(rows[mask].sum()),
            )
        )
    return CellTable(tuple(cells), int(lab.shape[0]), panel is not None and w is not None)
