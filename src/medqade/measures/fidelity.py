"""Ranking fidelity: would a judge put the student models in the physicians' order?

A judge is used to compare models. For each student model (answer slot ``s``), on the answers
``A_s`` with a resolved physician consensus:

- the **physicians' accuracy** ``p_s`` = share of ``A_s`` the consensus labels ``Richtig``
  (the anchored accuracy of a model row);
- the **judge's accuracy** ``j_s`` = share of ``A_s`` the judge labels ``Richtig``. A judge's
  abstention or missing label on an answer of ``A_s`` counts as *not* ``Richtig``: the judge
  gave the model no credit there, and the denominator stays the physicians' one, so the two
  accuracies are measured on the same answers and abstaining cannot move a model up;
- the **error** ``d_s = j_s - p_s`` (positive: the judge is more lenient on that model).

From the five pairs: the **largest absolute error** ``max_s |d_s|`` (and its student),
**Kendall's tau-b** between the judge's and the physicians' accuracies (1: the same order;
ties count as in ``scipy.stats.kendalltau``), and the judge's and physicians' **best
student**. With question-bootstrap count weights ``w`` (R, items) every quantity is recomputed
on each resample (``j_s* = (w @ richtig_judge) / (w @ resolved)``, the same for ``p_s*``), so
the differences, the maximum and tau are paired on the same resamples; their 95% intervals are
percentiles of those replicates (the maximum of absolute errors is biased upwards in small
samples, its interval is descriptive). The **probability of picking the best** is the mean
over resamples of ``|J* & P*| / |J*|``, with ``J*``, ``P*`` the sets of students with the
highest judge and physician accuracy on the resample: the chance that the judge's choice
(uniform among its tied best) is one of the physicians' best; its point value is the same
quantity on the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.estimate import Estimate, FloatArray, ratio

__all__ = [
    "RankingFidelity",
    "RankingSummary",
    "StudentFidelity",
    "best_share",
    "kendall_tau_b",
    "ranking_fidelity",
]


def kendall_tau_b(x: npt.ArrayLike, y: npt.ArrayLike) -> FloatArray:
    """Kendall's tau-b of ``x`` and ``y`` along the last axis (leading axes: replicates).

    ``(concordant - discordant) / sqrt((n0 - ties_x) (n0 - ties_y))`` over the ``n0`` pairs;
    NaN where a value is NaN or either side is constant (fewer than two values: NaN)."""
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    i, k = np.triu_indices(a.shape[-1], 1)
    sx = np.sign(a[..., i] - a[..., k])
    sy = np.sign(b[..., i] - b[..., k])
    num = (sx * sy).sum(axis=-1)
    den = np.sqrt((sx != 0).sum(axis=-1) * (sy != 0).sum(axis=-1).astype(np.float64))
    out: FloatArray = ratio(num, den)
    bad = np.isnan(a).any(axis=-1) | np.isnan(b).any(axis=-1)
    return np.where(bad, np.nan, out)


def best_share(judge: npt.ArrayLike, physicians: npt.ArrayLike) -> FloatArray:
    """``|J & P| / |J|`` along the last axis, ``J`` and ``P`` the positions of the largest
    value of ``judge`` and of ``physicians`` (ties: all of them); NaN where a value is NaN."""
    j = np.asarray(judge, dtype=np.float64)
    p = np.asarray(physicians, dtype=np.float64)
    bad = np.isnan(j).any(axis=-1) | np.isnan(p).any(axis=-1)
    top_j = j == np.max(np.where(np.isnan(j), -np.inf, j), axis=-1, keepdims=True)
    top_p = p == np.max(np.where(np.isnan(p), -np.inf, p), axis=-1, keepdims=True)
    out: FloatArray = ratio((top_j & top_p).sum(axis=-1), top_j.sum(axis=-1))
    return np.where(bad, np.nan, out)


@dataclass(frozen=True, eq=False)
class StudentFidelity:
    """One student model: its accuracy as the judge and as the physicians label it, and the
    judge's error (judge minus physicians, paired interval). ``n``: answers with a resolved
    consensus; ``n_unlabelled``: of those, the ones the judge abstained on or did not label
    (counted as not ``Richtig``)."""

    student: str
    judge: Estimate
    physicians: Estimate
    difference: Estimate
    n: int
    n_unlabelled: int

    def to_json(self) -> dict[str, Any]:
        return {
            "student": self.student,
            **self.judge.to_dict("judge"),
            **self.physicians.to_dict("physicians"),
            **self.difference.to_dict("difference"),
            "n": self.n,
            "n_unlabelled": self.n_unlabelled,
        }


@dataclass(frozen=True, eq=False)
class RankingSummary:
    """What a ranking fidelity says whatever its scale (this module's benchmark one and
    :mod:`medqade.measures.pool_ranking`'s pool one): the shared fields, P(best) and the
    shared JSON keys. Each scale narrows ``students`` and adds its counts."""

    students: tuple[Any, ...]
    largest_error: Estimate
    largest_error_student: str
    tau: Estimate
    judge_best: tuple[str, ...]
    physicians_best: tuple[str, ...]
    picks_best: Estimate
    """Point: ``|J & P| / |J|`` on the data; interval: of the replicates; ``probability``:
    their mean."""

    @property
    def probability_best(self) -> float:
        """The mean over the defined resamples of ``|J* & P*| / |J*|`` (NaN without any)."""
        reps = self.picks_best.replicates
        if reps is None or np.isnan(reps).all():
            return math.nan
        return float(np.nanmean(reps))

    def summary_json(self) -> dict[str, Any]:
        """The keys both scales write, in their order (the counts follow)."""
        return {
            "students": [s.to_json() for s in self.students],
            **self.largest_error.to_dict("largest_error"),
            "largest_error_student": self.largest_error_student,
            **self.tau.to_dict("kendall_tau_b"),
            "judge_best": list(self.judge_best),
            "physicians_best": list(self.physicians_best),
            "picks_best": self.picks_best.value,
            "probability_best": self.probability_best,
        }


@dataclass(frozen=True, eq=False)
class RankingFidelity(RankingSummary):
    """A judge's ranking of the student models against the physicians' (module docstring)."""

    students: tuple[StudentFidelity, ...]
    n_items: int

    def to_json(self) -> dict[str, Any]:
        return self.summary_json() | {"n_items": self.n_items}


def _tops(values: FloatArray, names: tuple[str, ...]) -> tuple[str, ...]:
    if np.isnan(values).all():
        return ()
    top = np.nanmax(values)
    return tuple(n for n, v in zip(names, values, strict=True) if v == top)


def ranking_fidelity(
    labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: npt.ArrayLike | None = None,
) -> RankingFidelity:
    """Ranking fidelity of a judge (module docstring).

    ``labels`` (items, slots) the judge's codes, ``reference`` (items, slots) the physician
    consensus (``-1``: unresolved; anything but 0/1 is unresolved), one slot per student named
    in ``slot_names``; ``weights`` (R, items) question-bootstrap count weights (``None``: NaN
    bounds, no probability of picking the best).
    """
    lab = np.asarray(labels, dtype=np.int64)
    ref = np.asarray(reference, dtype=np.int64)
    if lab.shape != ref.shape or lab.ndim != 2 or lab.shape[1] != len(slot_names):
        raise ValueError("labels and reference must be (items, slots), one name per slot")
    resolved = np.isin(ref, (vocab.FALSCH_CODE, vocab.RICHTIG_CODE)).astype(np.float64)
    by_judge = resolved * (lab == vocab.RICHTIG_CODE)
    by_physicians = resolved * (ref == vocab.RICHTIG_CODE)
    unlabelled = resolved * ~np.isin(lab, (vocab.FALSCH_CODE, vocab.RICHTIG_CODE))
    n = resolved.sum(axis=0)
    judge = ratio(by_judge.sum(axis=0), n)
    phys = ratio(by_physicians.sum(axis=0), n)
    diff = judge - phys
    r_judge = r_phys = r_diff = r_max = r_tau = r_best = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        rn = w @ resolved
        r_judge, r_phys = ratio(w @ by_judge, rn), ratio(w @ by_physicians, rn)
        r_diff = r_judge - r_phys
        r_max = np.abs(r_diff).max(axis=-1)
        r_tau, r_best = kendall_tau_b(r_judge, r_phys), best_share(r_judge, r_phys)
    students = tuple(
        StudentFidelity(
            student=name,
            judge=Estimate.from_replicates(judge[s], None if r_judge is None else r_judge[:, s]),
            physicians=Estimate.from_replicates(phys[s], None if r_phys is None else r_phys[:, s]),
            difference=Estimate.from_replicates(diff[s], None if r_diff is None else r_diff[:, s]),
            n=int(n[s]),
            n_unlabelled=int(unlabelled[:, s].sum()),
        )
        for s, name in enumerate(slot_names)
    )
    abs_diff = np.abs(diff)
    worst = "" if np.isnan(abs_diff).any() else slot_names[int(np.argmax(abs_diff))]
    return RankingFidelity(
        students=students,
        largest_error=Estimate.from_replicates(float(np.max(abs_diff)), r_max),
        largest_error_student=worst,
        tau=Estimate.from_replicates(float(kendall_tau_b(judge, phys)), r_tau),
        judge_best=_tops(judge, slot_names),
        physicians_best=_tops(phys, slot_names),
        picks_best=Estimate.from_replicates(float(best_share(judge, phys)), r_best),
        n_items=int(lab.shape[0]),
    )
