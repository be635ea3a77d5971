"""Ranking fidelity at pool scale: would a judge that labels the whole item pool put the student
models in the order the physicians would?

:mod:`medqade.measures.fidelity` compares the judge with the physicians on the benchmark, the
items both labelled. A judge with pool labels (:mod:`medqade.measures.pool`) also labels the
pool's other items, which no physician read; there the physicians' side is the
physician-calibrated pool accuracy. Per student model ``s``:

- the **judge's pool accuracy** ``j_s``: the judge-only estimate of
  :func:`medqade.measures.pool.estimate_pool`, its share of ``Richtig`` among its verdicts on
  the whole pool (abstentions are missing, as there). The judge labelled every pool answer, so
  ``j_s`` is a population value: it carries no sampling error and stays fixed below;
- the **physicians' pool accuracy** ``p_s``: the power-tuned stratified PPI estimate of the
  same module (Table S5's PPI column), the share of ``Richtig`` the physician consensus would
  give on the whole pool, estimated from their benchmark labels and the judge's pool labels;
- the **error** ``d_s = j_s - p_s`` (positive: at pool scale the judge is more lenient with
  ``s`` than the physicians would be).

From the five pairs, as on the benchmark: the **largest absolute error** ``max_s |d_s|`` and
its student, **Kendall's tau-b** between the ``j_s`` and the ``p_s``, the judge's and the
physicians' **best students**, and the **probability of picking the best** (the mean over
resamples of ``|J & P*| / |J|``, ``J`` the judge's best students, ``P*`` the physicians' best on
the resample).

Estimand and design. The pool is a finite population; the judge labelled all of it, the
physicians a stratified random sample (the benchmark, strata: lexical match exact vs not). The
estimand is each quantity above with the physicians' accuracies taken as their consensus would
be over the *whole pool*. The only uncertainty is that of the labelled sample, so the 95%
intervals come from a seeded stratified bootstrap of the labelled items: each resample draws,
within each lexical stratum, as many labelled items as it has, with replacement, and recomputes
the tuned PPI estimate of every student on it (:func:`medqade.stats.ppi.resampled_points`) with
the pool's judge labels, and so ``j_s``, fixed. The five students share each resample (an item
is drawn with its five answers), so the errors, the maximum and tau are paired; every interval
is the percentile interval of its replicates (the maximum's, biased upwards, is descriptive).
The bootstrap ignores the finite-population correction ``1 - n_h / N_h`` that Table S5's
analytic interval applies, so its intervals are somewhat conservative (for a linear estimate the
variance is inflated by ``1 / (1 - n_h / N_h)`` within a stratum). The resamples come from the
stream :data:`medqade.measures.seeds.STREAM_POOL` of the seed; the same seed gives the same
numbers, and every judge of a release is resampled on the same items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.fidelity import RankingSummary, best_share, kendall_tau_b
from medqade.measures.pool import PoolSample, estimate_pool, ratio_strata, stratum_masks
from medqade.measures.seeds import BOOTSTRAP_SEED, STREAM_POOL, generator
from medqade.stats.ppi import resampled_points

__all__ = ["PoolFidelity", "StudentPoolFidelity", "pool_fidelity", "pool_resamples"]

Indices = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class StudentPoolFidelity:
    """One student on the pool: the judge's accuracy (a population value, no interval), the
    physicians' PPI accuracy and the judge's error, each of the latter with its bootstrap
    interval (module docstring)."""

    student: str
    judge: float
    physicians: Estimate
    difference: Estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "student": self.student,
            "judge": self.judge,
            **self.physicians.to_dict("physicians"),
            **self.difference.to_dict("difference"),
        }


@dataclass(frozen=True, eq=False)
class PoolFidelity(RankingSummary):
    """A judge's ranking of the students on the whole pool against the physician-calibrated
    one (module docstring)."""

    students: tuple[StudentPoolFidelity, ...]
    n_pool: int
    n_labelled: int

    def to_json(self) -> dict[str, Any]:
        return self.summary_json() | {"n_pool": self.n_pool, "n_labelled": self.n_labelled}


def pool_resamples(
    lexical_labelled: npt.ArrayLike, resamples: int, seed: int = BOOTSTRAP_SEED
) -> Indices:
    """Stratified bootstrap indices (R, n) over the labelled items in pool order, drawn within
    their lexical strata from stream :data:`~medqade.measures.seeds.STREAM_POOL` of ``seed``
    (:func:`medqade.stats.stratified_bootstrap_indices`)."""
    lexical = np.asarray(lexical_labelled, dtype=bool)
    out: Indices = stats.stratified_bootstrap_indices(
        lexical, resamples, generator(seed, STREAM_POOL)
    )
    return out


def _tops(values: FloatArray, names: tuple[str, ...]) -> tuple[str, ...]:
    if np.isnan(values).all():
        return ()
    top = np.nanmax(values)
    return tuple(n for n, v in zip(names, values, strict=True) if v == top)


def _replicates(sample: PoolSample, indices: Indices) -> FloatArray:
    """(R, students) tuned PPI estimates on the resamples ``indices`` (R, n) of the labelled
    items: per stratum, the columns of its items, as positions among its labelled items."""
    lab = np.asarray(sample.labelled, dtype=bool)
    lexical_pool = np.asarray(sample.lexical_pool, dtype=bool)
    judge_pool = np.asarray(sample.judge_pool)
    judge_labelled = judge_pool[lab]
    consensus = np.asarray(sample.consensus)
    masks = stratum_masks(lexical_pool[lab], lexical_pool)
    local = []
    for m_lab, _m_pool in masks:
        cols = np.flatnonzero(m_lab)
        position = np.full(len(m_lab), -1, dtype=np.int64)
        position[cols] = np.arange(len(cols))
        drawn = position[indices[:, cols]]
        if (drawn < 0).any():
            raise ValueError("a resample draws an item outside its lexical stratum")
        local.append(drawn)
    return np.column_stack(
        [
            resampled_points(
                ratio_strata(consensus[:, s], judge_labelled[:, s], judge_pool[:, s], masks),
                local,
            )
            for s in range(len(sample.students))
        ]
    )


def pool_fidelity(sample: PoolSample, indices: npt.ArrayLike | None) -> PoolFidelity:
    """Ranking fidelity of one judge's pool labels (module docstring).

    ``sample``: the judge on the pool (:class:`medqade.measures.pool.PoolSample`); ``indices``
    (R, n) resamples of its labelled items in pool order, each column drawn from its own
    lexical stratum (:func:`pool_resamples`), or ``None``: NaN bounds, no probability of
    picking the best. The points are Table S5's judge-only and PPI estimates.
    """
    students = tuple(sample.students)
    found = estimate_pool(sample)
    judge = np.array([found[s].judge_only.estimate for s in students], dtype=np.float64)
    phys = np.array([found[s].ppi.estimate for s in students], dtype=np.float64)
    diff = judge - phys
    r_phys = r_diff = r_max = r_tau = r_best = None
    if indices is not None:
        idx = np.asarray(indices, dtype=np.int64)
        n_labelled = int(np.asarray(sample.labelled, dtype=bool).sum())
        if idx.ndim != 2 or idx.shape[1] != n_labelled:
            raise ValueError(f"indices must have shape (R, {n_labelled}), got {idx.shape}")
        r_phys = _replicates(sample, idx)
        fixed = np.broadcast_to(judge, r_phys.shape)
        r_diff = fixed - r_phys
        r_max = np.abs(r_diff).max(axis=-1)
        r_tau, r_best = kendall_tau_b(fixed, r_phys), best_share(fixed, r_phys)
    rows = tuple(
        StudentPoolFidelity(
            student=name,
            judge=float(judge[s]),
            physicians=Estimate.from_replicates(phys[s], None if r_phys is None else r_phys[:, s]),
            difference=Estimate.from_replicates(diff[s], None if r_diff is None else r_diff[:, s]),
        )
        for s, name in enumerate(students)
    )
    abs_diff = np.abs(diff)
    worst = "" if np.isnan(abs_diff).any() else students[int(np.argmax(abs_diff))]
    return PoolFidelity(
        students=rows,
        largest_error=Estimate.from_replicates(float(np.max(abs_diff)), r_max),
        largest_error_student=worst,
        tau=Estimate.from_replicates(float(kendall_tau_b(judge, phys)), r_tau),
        judge_best=_tops(judge, students),
        physicians_best=_tops(phys, students),
        picks_best=Estimate.from_replicates(float(best_share(judge, phys)), r_best),
        n_pool=len(np.asarray(sample.judge_pool)),
        n_labelled=int(np.asarray(sample.labelled, dtype=bool).sum()),
    )
