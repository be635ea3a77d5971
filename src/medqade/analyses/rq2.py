"""RQ2: student accuracy against the physician consensus (methods section 6, Table 2, Figure 2).

Accuracy of a student model = share of its consensus-resolved answers that are Richtig
(unresolved answers are missing), with 95% Wilson intervals; overall, by lexical stratum
(exact match vs no match) and by difficulty tier (tiers from physician difficulty only).

Between-stratum differences (exact minus no match; tier 1 minus tier 4) get 95% percentile
intervals from an independent-subgroup bootstrap: question rows are resampled with replacement
within each of the two strata separately (each keeps its size), and the difference of the two
resampled accuracies is one replicate. Replicates are drawn in blocks of resamples and computed
as weighted sums ``weights @ correct / weights @ resolved`` for all models at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.analyses.common import FloatArray, Proportion, physician_tiers, ratio
from medqade.dataset.release import Release
from medqade.measures import BOOTSTRAP_SEED, STREAM_LEXICAL, STREAM_TIER, Estimate, generator

BLOCK: Final = 500
"""Resamples drawn per block in :func:`stratum_difference` (bounds memory, fixes the stream)."""


def _accuracy_replicates(local: npt.NDArray[np.int64], counts: FloatArray) -> FloatArray:
    """Resampled accuracies (R, models) of one stratum.

    ``local`` (R, m) holds the drawn rows numbered 0..m-1 within the stratum, ``counts``
    (m, 2 * models) its correct columns then its resolved columns.
    """
    models = counts.shape[1] // 2
    w = stats.resample_weights(local, counts.shape[0]).astype(np.float64)
    sums = w @ counts
    return ratio(sums[:, :models], sums[:, models:])


def difference_replicates(
    correct: npt.ArrayLike,
    resolved: npt.ArrayLike,
    in_first: npt.ArrayLike,
    indices: npt.ArrayLike,
) -> FloatArray:
    """Accuracy(first stratum) - accuracy(second stratum) for each resample.

    Parameters
    ----------
    correct, resolved : array_like of bool, shape (units, models)
        Resolved-and-Richtig and resolved answers of every question row and model.
    in_first : array_like of bool, shape (units,)
        True for rows of the first stratum, False for the second.
    indices : array_like of int, shape (R, units)
        Resampled rows (from :func:`medqade.stats.stratified_bootstrap_indices`).

    Returns
    -------
    ndarray of float64, shape (R, models)
        NaN where a resampled stratum has no resolved answer for that model.

    Notes
    -----
    Every column ``j`` of ``indices`` must hold a unit of the same stratum as unit ``j`` (as
    :func:`medqade.stats.stratified_bootstrap_indices` guarantees); each stratum's replicate
    accuracy is then ``w @ correct / w @ resolved`` with ``w`` its (R, stratum size) counts.
    """
    counts = np.hstack([np.asarray(correct), np.asarray(resolved)]).astype(np.float64)
    first = np.asarray(in_first, dtype=bool)
    idx = np.asarray(indices)
    rank = np.empty(first.size, dtype=np.int64)
    acc = []
    for members in (np.flatnonzero(first), np.flatnonzero(~first)):
        rank[members] = np.arange(members.size)
        acc.append(_accuracy_replicates(rank[idx[:, members]], counts[members]))
    return acc[0] - acc[1]


def stratum_difference(
    correct: npt.ArrayLike,
    resolved: npt.ArrayLike,
    in_first: npt.ArrayLike,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray]:
    """Point difference (models,) and its bootstrap replicates (R, models).

    The rows are those of exactly two strata (``in_first`` tells which). Resamples are drawn in
    blocks of :data:`BLOCK` exactly as :func:`medqade.stats.stratified_bootstrap_indices` draws
    them (strata in sorted order, one ``rng.integers(0, m, (block, m))`` each), but kept as
    within-stratum row numbers, so no (R, units) index matrix is built.
    """
    c = np.asarray(correct, dtype=bool)
    n = np.asarray(resolved, dtype=bool)
    first = np.asarray(in_first, dtype=bool)
    if first.all() or not first.any():
        raise ValueError("stratum_difference needs rows of both strata")
    counts = np.hstack([c, n]).astype(np.float64)
    point = ratio(c[first].sum(0), n[first].sum(0)) - ratio(c[~first].sum(0), n[~first].sum(0))
    strata = {bool(v): np.flatnonzero(first == v) for v in np.unique(first)}  # False, then True
    reps = np.empty((n_resamples, c.shape[1]))
    for start in range(0, n_resamples, BLOCK):
        size = min(BLOCK, n_resamples - start)
        acc = {
            v: _accuracy_replicates(
                rng.integers(0, rows.size, size=(size, rows.size)), counts[rows]
            )
            for v, rows in strata.items()
        }
        reps[start : start + size] = acc[True] - acc[False]
    return point, reps


@dataclass(frozen=True)
class Contrast:
    """A between-stratum difference with its bootstrap interval.

    ``undefined``: replicates in which a resampled stratum had no resolved answer (dropped).
    """

    diff: Estimate
    undefined: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "diff": self.diff.value,
            "diff_ci": list(self.diff.ci),
            "undefined_replicates": self.undefined,
        }


@dataclass(frozen=True)
class StudentAccuracy:
    """Table 2 and Figure 2: accuracies per student model (roster ids as keys)."""

    overall: Mapping[str, Proportion]
    exact: Mapping[str, Proportion]
    no_exact: Mapping[str, Proportion]
    lexical_diff: Mapping[str, Contrast]
    by_tier: Mapping[str, Mapping[int, Proportion]]
    tier_diff: Mapping[str, Contrast]
    contrast_resamples: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "accuracy": {m: p.to_dict() for m, p in self.overall.items()},
            "by_lexical": {
                m: {
                    "exact": self.exact[m].to_dict(),
                    "no_exact": self.no_exact[m].to_dict(),
                    **self.lexical_diff[m].to_dict(),
                }
                for m in self.overall
            },
            "by_tier": {
                m: {str(t): p.to_dict() for t, p in tiers.items()}
                for m, tiers in self.by_tier.items()
            },
            "tier_diff": {
                m: {"first": 1, "second": 4, **c.to_dict()} for m, c in self.tier_diff.items()
            },
            "contrast_resamples": self.contrast_resamples,
        }


def _proportions(correct: npt.NDArray[np.bool_], resolved: npt.NDArray[np.bool_]) -> list[Any]:
    return [
        Proportion.of(int(k), int(n)) for k, n in zip(correct.sum(0), resolved.sum(0), strict=True)
    ]


def _contrasts(
    correct: npt.NDArray[np.bool_],
    resolved: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.bool_],
    in_first: npt.NDArray[np.bool_],
    n_resamples: int,
    rng: np.random.Generator,
) -> list[Contrast]:
    models = correct.shape[1]
    if in_first[rows].all() or not in_first[rows].any():
        return [Contrast(Estimate(float("nan"), float("nan"), float("nan")))] * models
    point, reps = stratum_difference(
        correct[rows], resolved[rows], in_first[rows], n_resamples, rng
    )
    return [
        Contrast(
            Estimate.from_replicates(float(point[m]), reps[:, m]), int(np.isnan(reps[:, m]).sum())
        )
        for m in range(models)
    ]


def student_accuracy(
    release: Release, contrast_resamples: int = 5000, seed: int = BOOTSTRAP_SEED
) -> StudentAccuracy:
    """RQ2 on all items of ``release``.

    The lexical and the tier contrast draw from their own streams of ``seed``
    (:func:`~medqade.measures.seeds.generator`), so either can be recomputed alone.
    """
    rng_lexical = generator(seed, STREAM_LEXICAL)
    rng_tier = generator(seed, STREAM_TIER)
    models = release.roster.student_ids
    consensus = release.consensus
    resolved = consensus >= 0
    correct = consensus == vocab.RICHTIG_CODE
    lexical = release.lexical
    tier = physician_tiers(release.physician_difficulty)
    everything = np.ones(len(lexical), dtype=bool)

    overall = _proportions(correct, resolved)
    exact = _proportions(correct[lexical], resolved[lexical])
    no_exact = _proportions(correct[~lexical], resolved[~lexical])
    lex_diff = _contrasts(correct, resolved, everything, lexical, contrast_resamples, rng_lexical)
    by_tier = {t: _proportions(correct[tier == t], resolved[tier == t]) for t in vocab.TIERS}
    ends = (tier == vocab.TIERS[0]) | (tier == vocab.TIERS[-1])
    tier_diff = _contrasts(
        correct, resolved, ends, tier == vocab.TIERS[0], contrast_resamples, rng_tier
    )
    return StudentAccuracy(
        overall=dict(zip(models, overall, strict=True)),
        exact=dict(zip(models, exact, strict=True)),
        no_exact=dict(zip(models, no_exact, strict=True)),
        lexical_diff=dict(zip(models, lex_diff, strict=True)),
        by_tier={m: {t: by_tier[t][s] for t in vocab.TIERS} for s, m in enumerate(models)},
        tier_diff=dict(zip(models, tier_diff, strict=True)),
        contrast_resamples=contrast_resamples,
    )
