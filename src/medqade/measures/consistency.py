"""Self-consistency: the same judge run twice or more on the same answers, reshuffled.

Between two runs of a judge (two label files, or two values of the ``run`` column such as two
Inspect epochs) the answers are the same and only the order shown (and the sampling) changes.
Per pair of runs ``(a, b)``, on the answers both runs labelled substantively:

- **intra-rater kappa and PA**: the statistic of the physicians' re-ratings
  (:func:`medqade.measures.raters.intra_rater`): Cohen's kappa and PA of run ``a`` against run
  ``b``, per slot, then the unweighted mean over the slots; with more than two runs, the mean
  over all pairs (replicate by replicate). It is computed on the view's items with the view's
  question resamples, and again on the questions the physicians re-rated with their re-rating
  resamples (:data:`~medqade.measures.seeds.STREAM_RERATING`), so it stands beside the
  physicians' intra-rater kappa on the same questions, statistic and resamples;
- **flip rate when the position changed**: the share of those answers whose label differs
  between the runs among the answers shown at a different position in the two runs (and, for
  contrast, among the answers shown at the same position), with question-bootstrap intervals.

**Not informative.** Agreement of a judge with itself measures its sampling noise only when
the runs could differ: runs decoded deterministically (temperature 0, greedy; the caller reads
the submission's decoding settings, :func:`medqade.scoring.intake.meta.deterministic_decoding`)
repeat themselves by construction wherever the prompt is the same, and identical runs (the same
labels at the same positions, e.g. one file given twice) agree by construction. Then the intra-rater
kappa, PA and PABAK (and their re-rated counterparts) are ``None`` and
:attr:`Consistency.not_informative` says why (:data:`DETERMINISTIC`, :data:`IDENTICAL`); the
flip rates stay, since under deterministic decoding a label that flips when the position moved
is the judge's sensitivity to the order, not noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.estimate import Estimate, proportion
from medqade.measures.raters import IntraRater, intra_rater
from medqade.measures.slots import AnyWeights, substantive

DETERMINISTIC: Final = "not informative: deterministic decoding"
"""Why the intra-rater agreement of runs decoded deterministically is not reported."""
IDENTICAL: Final = "not informative: the runs are identical (same labels at the same positions)"
"""Why the intra-rater agreement of identical runs is not reported."""


def _withheld(intra: IntraRater) -> dict[str, Any]:
    """``intra.to_dict()`` with every value and interval ``None`` (the counts kept)."""
    return {
        k: ([None, None] if k.endswith("_ci") else None) if k not in ("n", "n_items") else v
        for k, v in intra.to_dict().items()
    }


@dataclass(frozen=True, eq=False)
class Consistency:
    """A judge's agreement with itself across runs (module docstring); with
    ``not_informative`` set, the intra-rater values are withheld (``None`` in :meth:`to_json`)."""

    runs: tuple[str, ...]
    intra: IntraRater
    flip_moved: Estimate
    flip_same: Estimate
    n_moved: int
    n_same: int
    intra_rerated: IntraRater | None
    physicians_rerated: IntraRater | None
    not_informative: str | None = None

    def to_json(self) -> dict[str, Any]:
        shown = _withheld if self.not_informative else IntraRater.to_dict
        return {
            "runs": list(self.runs),
            "pairs": len(list(combinations(self.runs, 2))),
            **shown(self.intra),
            "not_informative": self.not_informative,
            **self.flip_moved.to_dict("flip_rate_moved"),
            **self.flip_same.to_dict("flip_rate_same_position"),
            "n_moved": self.n_moved,
            "n_same_position": self.n_same,
            "rerated": None if self.intra_rerated is None else shown(self.intra_rerated),
            "physicians_rerated": (
                None if self.physicians_rerated is None else self.physicians_rerated.to_dict()
            ),
        }


def identical(labels: list[npt.NDArray[np.int8]], positions: list[npt.NDArray[np.int8]]) -> bool:
    """Whether every run has the same labels at the same positions as the first (a file given
    twice, or a replay): their agreement is 1 by construction."""
    return all(
        np.array_equal(labels[0], la) and np.array_equal(positions[0], po)
        for la, po in zip(labels[1:], positions[1:], strict=True)
    )


def mean_intra(found: list[IntraRater]) -> IntraRater:
    """The mean of several intra-rater results, replicate by replicate (same resamples)."""

    def mean(ests: list[Estimate]) -> Estimate:
        value = float(np.mean([e.value for e in ests]))
        reps = [e.replicates for e in ests]
        if any(r is None for r in reps):
            return Estimate.from_replicates(value, None)
        return Estimate.from_replicates(value, np.mean(np.stack(reps), axis=0))  # type: ignore[arg-type]

    return IntraRater(
        kappa=mean([f.kappa for f in found]),
        pa=mean([f.pa for f in found]),
        n=int(sum(f.n for f in found)),
        n_items=max(f.n_items for f in found),
    )


def _pair(
    a: npt.NDArray[np.int8],
    b: npt.NDArray[np.int8],
    rows: npt.NDArray[np.int64],
    weights: AnyWeights | None,
) -> IntraRater:
    """Intra-rater kappa of two (items, 5) label arrays on the questions ``rows`` (indices, in
    the order of the columns of ``weights`` (R, len(rows)))."""
    sub_a, sub_b = a[rows], b[rows]
    i, s = np.nonzero(np.ones_like(sub_a, dtype=bool))
    return intra_rater(sub_a[i, s], sub_b[i, s], i, s, weights)


def consistency(
    labels: list[npt.NDArray[np.int8]],
    positions: list[npt.NDArray[np.int8]],
    runs: tuple[str, ...],
    weights: AnyWeights | None,
    rerated: npt.NDArray[np.int64] | None = None,
    rerated_weights: AnyWeights | None = None,
    physicians: IntraRater | None = None,
    deterministic: bool = False,
) -> Consistency | None:
    """Self-consistency of two or more runs (labels and positions, each (items, 5), the
    view's items; missing labels as ``MISSING_CODE``, unknown positions 0); ``weights`` (R,
    items) the view's resamples; ``rerated`` the indices of the questions the physicians
    re-rated, in the order of their re-rating resamples ``rerated_weights`` (R,
    len(rerated)); ``physicians`` their mean intra-rater result there; ``deterministic``:
    the runs were decoded deterministically (their agreement is then withheld as
    :data:`DETERMINISTIC`; identical runs as :data:`IDENTICAL`). ``None`` for fewer than two
    runs."""
    if len(labels) < 2:
        return None
    reason = DETERMINISTIC if deterministic else IDENTICAL if identical(labels, positions) else None
    everything = np.arange(labels[0].shape[0])
    pairs = list(combinations(range(len(labels)), 2))
    intra = mean_intra([_pair(labels[a], labels[b], everything, weights) for a, b in pairs])
    intra_re = None
    if rerated is not None and len(rerated):
        intra_re = mean_intra(
            [_pair(labels[a], labels[b], rerated, rerated_weights) for a, b in pairs]
        )
    moved_hits = np.zeros(labels[0].shape)
    moved_n = np.zeros(labels[0].shape)
    same_hits = np.zeros(labels[0].shape)
    same_n = np.zeros(labels[0].shape)
    for a, b in pairs:
        la, lb = substantive(labels[a]), substantive(labels[b])
        both = (la >= 0) & (lb >= 0)
        known = (positions[a] > 0) & (positions[b] > 0)
        moved = both & known & (positions[a] != positions[b])
        same = both & known & (positions[a] == positions[b])
        flip = la != lb
        moved_hits += moved & flip
        moved_n += moved
        same_hits += same & flip
        same_n += same
    return Consistency(
        runs=runs,
        intra=intra,
        flip_moved=proportion(moved_hits.sum(axis=1), moved_n.sum(axis=1), weights),
        flip_same=proportion(same_hits.sum(axis=1), same_n.sum(axis=1), weights),
        n_moved=int(moved_n.sum()),
        n_same=int(same_n.sum()),
        intra_rerated=intra_re,
        physicians_rerated=physicians,
        not_informative=reason,
    )


def rerating_pairs(
    ratings: Any, physician: str, item_index: dict[str, int], students: tuple[str, ...]
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]
]:
    """First label, re-rating, question index and slot of every answer ``physician`` rated
    twice (from the ``ratings`` table)."""
    mine = ratings[ratings["rater"] == physician]
    again = mine[mine["round"] == vocab.RERATING]
    first = mine[mine["round"] != vocab.RERATING]
    merged = again.merge(first, on=["question_id", "model"], suffixes=("_again", "_first"))
    code = dict(vocab.LABEL_CODES)
    slot = {m: s for s, m in enumerate(students)}
    return (
        merged["label_first"].map(code).to_numpy(dtype=np.int64),
        merged["label_again"].map(code).to_numpy(dtype=np.int64),
        merged["question_id"].map(item_index).to_numpy(dtype=np.int64),
        merged["model"].map(slot).to_numpy(dtype=np.int64),
    )


def physicians_intra(
    ratings: Any,
    physicians: tuple[str, ...],
    rerated_ids: list[str],
    students: tuple[str, ...],
    weights: AnyWeights | None,
) -> IntraRater | None:
    """The physicians' mean intra-rater result on the re-rated questions ``rerated_ids`` (in
    the order of the re-rating resamples ``weights``, (R, len(rerated_ids)))."""
    index = {q: i for i, q in enumerate(rerated_ids)}
    found = []
    for p in physicians:
        first, again, items, slots = rerating_pairs(ratings, p, index, students)
        if len(first):
            found.append(intra_rater(first, again, items, slots, weights))
    return mean_intra(found) if found else None


__all__ = [
    "DETERMINISTIC",
    "IDENTICAL",
    "Consistency",
    "consistency",
    "identical",
    "mean_intra",
    "physicians_intra",
    "rerating_pairs",
]
