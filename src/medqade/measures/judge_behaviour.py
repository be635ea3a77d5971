"""A judge's behaviour beyond agreement: position bias, caution, breakdowns, consistency, cost.

:func:`behaviour` gathers the per-judge quantities of issue 28 into one frozen
:class:`Behaviour`, stored under the score record's ``behaviour`` key (``to_json()``):

- ``position`` (:mod:`~medqade.measures.position`): when the submission carries the order the
  judge saw (per-question ``order``, or a ``position`` column), on the view's items;
- ``caution`` (:mod:`~medqade.measures.caution`): abstention by tier and its slope beside the
  physicians', on the core;
- ``breakdowns`` (:mod:`~medqade.measures.breakdown`): kappa and PA per specialty (every
  categorical column of the questions table), tier and lexical stratum, on the view's items;
- ``consistency`` (:mod:`~medqade.measures.consistency`): with two or more runs, the judge's
  intra-rater kappa and flip rates beside the physicians' re-rating kappa;
- ``cost`` (:mod:`~medqade.measures.cost`): tokens (and euros, given prices) per 1,000 answers.

The *view* is the one of the record's agreement block: all items when the submission covers an
extension item, else the core, with the same question resamples (:data:`~medqade.measures.
seeds.STREAM_ALL` or :data:`~medqade.measures.seeds.STREAM_CORE`). Nothing here enters the
headline agreement, the verdict or the rank. A record without ``behaviour`` (older) is valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import breakdown as measured_breakdown
from medqade.measures import caution as measured_caution
from medqade.measures import consistency as measured_consistency
from medqade.measures import cost as measured_cost
from medqade.measures import position as measured_position
from medqade.measures.raters import IntraRater
from medqade.measures.seeds import STREAM_RERATING, question_weights

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
FloatWeights = npt.NDArray[np.float64]


class Run(Protocol):
    """One run of a judge (:class:`medqade.scoring.intake.submission.JudgeRun` is one)."""

    @property
    def run(self) -> str: ...
    @property
    def labels(self) -> Codes: ...
    @property
    def present(self) -> npt.NDArray[np.bool_]: ...
    @property
    def positions(self) -> Codes: ...


@dataclass(frozen=True, eq=False)
class Behaviour:
    """Everything :func:`behaviour` measured (``None`` where the data are not there)."""

    split: str
    position: measured_position.PositionBias | None
    caution: measured_caution.Caution | None
    breakdowns: measured_breakdown.Breakdowns
    consistency: measured_consistency.Consistency | None
    cost: measured_cost.Cost | None

    def to_json(self) -> dict[str, Any]:
        return {
            "split": self.split,
            "position": None if self.position is None else self.position.to_json(),
            "caution": None if self.caution is None else self.caution.to_json(),
            "breakdowns": self.breakdowns.to_json(),
            "consistency": None if self.consistency is None else self.consistency.to_json(),
            "cost": None if self.cost is None else self.cost.to_json(),
        }


_PHYSICIANS_INTRA: dict[tuple[str, int, int], tuple[list[str], IntraRater | None]] = {}


def physicians_rerated(
    release: Release, resamples: int, seed: int
) -> tuple[list[str], FloatWeights | None, IntraRater | None]:
    """The re-rated question ids (sorted, as in the panel report), their re-rating resamples
    and the physicians' mean intra-rater result there (cached per release, resamples, seed)."""
    key = (release.data_hash, resamples, seed)
    ratings = release.ratings
    ids = sorted(set(ratings.loc[ratings["round"] == vocab.RERATING, "question_id"]))
    w = (
        question_weights(len(ids), resamples, seed, STREAM_RERATING).astype(np.float64)
        if ids and resamples
        else None
    )
    if key not in _PHYSICIANS_INTRA:
        found = measured_consistency.physicians_intra(
            ratings, release.roster.physicians, ids, release.roster.student_ids, w
        )
        _PHYSICIANS_INTRA.clear()  # one release at a time: the cache stays small
        _PHYSICIANS_INTRA[key] = (ids, found)
    return ids, w, _PHYSICIANS_INTRA[key][1]


def behaviour(
    release: Release,
    labels: Codes,
    present: npt.NDArray[np.bool_],
    *,
    positions: Codes | None = None,
    runs: Sequence[Run] = (),
    usage: Mapping[str, Any] | None = None,
    deterministic: bool = False,
    w_core: FloatWeights | None = None,
    w_all: FloatWeights | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> Behaviour:
    """The judge's behaviour (module docstring) for ``labels`` / ``present`` (items, 5) of
    the release; ``w_core`` / ``w_all`` the record's core and all-items weights (``w_all``
    ``None`` when the judge covers no extension item); ``deterministic``: the runs were decoded
    deterministically, so their self-consistency is not informative
    (:data:`medqade.measures.consistency.DETERMINISTIC`)."""
    core = np.asarray(release.is_core, dtype=bool)
    has_ext = bool(present[~core].any())
    items = np.ones(release.n_items, dtype=bool) if has_ext else core
    w_items = w_all if has_ext else w_core
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)
    consensus = release.consensus
    pos = None
    if positions is not None:
        pos = measured_position.position_bias(
            shown[items], positions[items], consensus[items], w_items, seed=seed
        )
    found_caution = measured_caution.caution(
        labels[core],
        present[core],
        release.physician_labels[:, core],
        release.roster.physicians,
        release.tier[core],
        w_core,
    )
    dims = measured_breakdown.dimensions(
        release.questions[items].reset_index(drop=True), release.tier[items], release.lexical[items]
    )
    parts = measured_breakdown.breakdowns(
        shown[items], consensus[items], dims, release.roster.student_ids, w_items
    )
    found_consistency = None
    if len(runs) >= 2:
        ids, w_re, phys = physicians_rerated(release, resamples, seed)
        view_index = {str(q): k for k, q in enumerate(release.item_ids[items])}
        rerated = np.array([view_index[q] for q in ids if q in view_index], dtype=np.int64)
        if len(rerated) != len(ids):  # re-rated questions outside the view: not comparable
            rerated, w_re = np.zeros(0, dtype=np.int64), None
        found_consistency = measured_consistency.consistency(
            [np.where(r.present, r.labels, vocab.MISSING_CODE)[items] for r in runs],
            [r.positions[items] for r in runs],
            tuple(r.run for r in runs),
            w_items,
            rerated,
            w_re,
            phys,
            deterministic=deterministic,
        )
    answers = sum(int(r.present.sum()) for r in runs) if runs else int(present.sum())
    return Behaviour(
        split="all" if has_ext else "core",
        position=pos,
        caution=found_caution,
        breakdowns=parts,
        consistency=found_consistency,
        cost=measured_cost.cost(usage, answers),
    )
