"""The judge in each physician's place: like-for-like differences, with inference over
questions *and* physicians.

A like-for-like difference ``d`` is a mean over physicians ``r`` of a term ``t_r`` =
agree(judge, reference of ``r``) - agree(``r``, reference of ``r``), both on the answers ``r``
rated. Its estimand is the difference a *new* panel of physicians like these would show on new
questions like these: the physicians are a sample too. So every interval of ``d`` behind a
verdict resamples both (a two-way bootstrap on the same seeded resamples for every judge):

* questions: count weights ``w`` (R, items), as every interval in MedQADE;
* physicians: count weights ``v`` (R, P) of a second stream
  (:func:`medqade.measures.seeds.physician_weights`), drawn once per board and shared by every
  judge and by both designs (the same physician gets the same weight on the core and the
  extension in resample ``b``);
* replicate ``b``: ``d*(b) = q(b) + k [sum_r v[b, r] t_r(b) / sum_r v[b, r] - q(b)]`` over
  the physicians whose term is defined, where ``t_r(b)`` is physician ``r``'s term recomputed
  on question resample ``b``, ``q(b)`` their plain mean (the question-only replicate) and
  ``k`` = :func:`medqade.stats.few_units_factor` of the ``P`` physicians (1.22 for ten, 1.25
  for nine): a bootstrap over ten units underestimates the variance of their mean by
  ``(P - 1) / P`` and a normal-like percentile ignores that ``P - 1`` degrees of freedom are
  few; ``k`` gives the physician part the width of a t interval.

Each physician's reference stays the one of the observed panel (a resampled panel with a
physician drawn twice has no leave-one-out majority of its own), and resampling physicians on
top of questions counts the physician-specific question noise twice, so the interval is a
little wider than exact; ``bench/verdict.py`` measures its coverage with a new simulated panel
for every benchmark. The question-only interval ("given this panel") is kept as a secondary,
labelled number.

* :func:`physicians_in_place`, :func:`judge_in_place`: the core (each of the ten physicians
  against the majority of the other nine);
* :func:`primaries_in_place`: the extension (each primary physician against the other primary
  physician of the items it rated), so the extension's terms are physicians too;
* :func:`primary_roles`: who the two primary physicians of each item are.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.physician_reference import PerRater, in_place_agreement, loo_references
from medqade.measures.slots import Agreement, AnyWeights, matched, penalised, substantive

PanelWeights = npt.NDArray[np.int64] | npt.NDArray[np.float64]
"""Physician count weights (R, P) of the two-way bootstrap."""


def _terms(
    judge: Mapping[str, FloatArray], phys: Mapping[str, FloatArray]
) -> dict[str, FloatArray]:
    d_pa = judge["pa"] - phys["pa"]
    return {"kappa": judge["kappa"] - phys["kappa"], "pa": d_pa, "pabak": 2 * d_pa}


def _weighted_mean(t: FloatArray, v: FloatArray) -> FloatArray:
    ok = ~np.isnan(t)
    total = np.where(ok, t * v, 0.0).sum(axis=1)
    count = np.where(ok, v, 0.0).sum(axis=1)
    out: FloatArray = np.full(total.shape, np.nan)
    np.divide(total, count, out=out, where=count > 0)
    return out


def over_physicians(terms: FloatArray, panel: PanelWeights) -> FloatArray:
    """The two-way replicates ``d*(b)`` (R,) of per-physician term replicates ``terms`` (P, R)
    under physician count weights ``panel`` (R, P) (module docstring): the question replicate
    ``q(b)`` (the plain mean over the physicians whose term is defined) plus the physician
    part ``v``-weighted mean minus ``q(b)``, widened by the few-units factor of the ``P``
    physicians (:func:`medqade.stats.few_units_factor`); NaN where no term is defined."""
    t = np.asarray(terms, dtype=np.float64).T  # (R, P)
    v = np.asarray(panel, dtype=np.float64)
    if v.shape != t.shape:
        raise ValueError(
            f"physician weights {v.shape} do not match the terms' (resamples, physicians) {t.shape}"
        )
    q = _weighted_mean(t, np.ones_like(v))
    n = int((~np.isnan(t)).any(axis=0).sum())
    factor = stats.few_units_factor(n) if n > 1 else 1.0
    out: FloatArray = q + factor * (_weighted_mean(t, v) - q)
    return out


@dataclass(frozen=True, eq=False)
class InPlace:
    """A labeller put in each physician's place against the same reference.

    ``judge`` is the mean over physicians ``r`` of agree(judge, reference of ``r``),
    ``physicians`` the mean of agree(``r``, reference of ``r``), both with replicates on the
    same question resamples; ``terms`` the point values of the per-``r`` differences (P,) per
    metric (``kappa``, ``pa``, ``pabak``) and ``term_replicates`` their question replicates
    (P, R). The like-for-like difference is ``judge - physicians``.
    """

    judge: Agreement
    physicians: Agreement
    terms: Mapping[str, FloatArray]
    term_replicates: Mapping[str, FloatArray] | None = None

    @property
    def n_physicians(self) -> int:
        return int(np.asarray(self.terms["kappa"]).size)

    def difference(self, metric: str, panel: PanelWeights | None = None) -> Estimate:
        """``judge - physicians`` on ``metric``: with ``panel`` (R, P) physician weights, the
        two-way interval over questions and physicians (module docstring); without, the
        question-only interval given this panel."""
        a, b = self.judge.metric(metric), self.physicians.metric(metric)
        value = a.value - b.value
        if panel is not None and self.term_replicates is not None:
            return Estimate.from_replicates(
                value, over_physicians(self.term_replicates[metric], panel)
            )
        reps = None
        if a.replicates is not None and b.replicates is not None:
            reps = a.replicates - b.replicates
        return Estimate.from_replicates(value, reps)

    def replicates(self, metric: str, panel: PanelWeights) -> FloatArray | None:
        """The two-way replicates of ``d`` on ``metric`` (``None`` without question
        resamples)."""
        if self.term_replicates is None:
            return None
        return over_physicians(self.term_replicates[metric], panel)

    def panel_error(self, metric: str) -> float:
        """SD over the terms / sqrt(their number): the panel's own sampling error of ``d``
        (the part of the two-way interval that the question-only interval leaves out)."""
        t = np.asarray(self.terms[metric])
        t = t[~np.isnan(t)]
        return float(np.std(t, ddof=1) / np.sqrt(t.size)) if t.size > 1 else float("nan")


def _place(judge: PerRater, phys: PerRater) -> InPlace:
    reps = None
    if judge.replicates is not None and phys.replicates is not None:
        reps = _terms(judge.replicates, phys.replicates)
    return InPlace(judge.agreement, phys.agreement, _terms(judge.points, phys.points), reps)


def _quiet(
    labels: npt.NDArray[np.int64],
    refs: npt.NDArray[np.int64],
    slot_names: tuple[str, ...],
    weights: AnyWeights | None,
) -> PerRater:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return in_place_agreement(labels, refs, slot_names, weights)


def physicians_in_place(
    physician_labels: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> PerRater:
    """The physicians' side of :func:`judge_in_place` (it depends on the panel only): each
    physician against the majority of the others on the answers the physician rated (the
    paper's leave-one-out reference)."""
    phys = substantive(physician_labels)
    return _quiet(phys, loo_references(phys), slot_names, weights)


def judge_in_place(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    physicians: PerRater | None = None,
    abstain_disagrees: bool = True,
) -> InPlace:
    """The judge in each physician's place (like for like, at the physician's coverage).

    ``labels`` (items, slots), ``physician_labels`` (physicians, items, slots), all raters on
    all items (the core). For every physician ``r`` both the judge and ``r`` are scored
    against the majority of the other physicians ``C^(-r)`` on the same answers: those ``r``
    rated and ``C^(-r)`` resolves (:func:`~medqade.measures.slots.matched`); ``d`` = mean
    over ``r`` of [agree(judge, C^(-r)) - agree(r, C^(-r))]. On those answers a judge's
    abstention or missing label counts as a disagreement, so abstaining never raises ``d``.
    ``physicians``: :func:`physicians_in_place` of the same arguments, when already computed.
    Without ``abstain_disagrees`` the judge's abstentions are dropped pairwise too (agreement
    when rated, a secondary number).
    """
    phys = substantive(physician_labels)
    refs = loo_references(phys)
    if physicians is None:
        physicians = physicians_in_place(phys, slot_names, weights)
    same = np.stack([matched(refs[p], phys[p]) for p in range(phys.shape[0])])
    if abstain_disagrees:
        mine = np.stack([penalised(labels, same[p]) for p in range(phys.shape[0])])
    else:
        mine = np.broadcast_to(substantive(labels), phys.shape)
    return _place(_quiet(mine, same, slot_names, weights), physicians)


def primary_roles(
    physician_labels: npt.ArrayLike, adjudicator: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Who rated each item first and second among the primary physicians (indices into the
    roster without the adjudicator, roster order), and the items that have exactly two."""
    labels = np.asarray(physician_labels, dtype=np.int64)
    primary = np.delete(labels, adjudicator, axis=0)
    rated = (primary != stats.MISSING).any(axis=2)  # (physicians, items)
    two = rated.sum(axis=0) == 2
    order = np.argsort(~rated, axis=0, kind="stable")[:2]
    return order[0].astype(np.int64), order[1].astype(np.int64), two


def primary_pair(
    physician_labels: npt.ArrayLike, adjudicator: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """The two primary physicians' labels of each item (items, slots) each, and the items that
    have exactly two (the adjudicator's votes are left out; physicians in roster order)."""
    labels = np.asarray(physician_labels, dtype=np.int64)
    primary = np.delete(labels, adjudicator, axis=0)
    first, second, two = primary_roles(labels, adjudicator)
    items = np.arange(labels.shape[1])
    return primary[first, items], primary[second, items], two


def primaries_in_place(
    labels: npt.ArrayLike,
    primary_labels: npt.ArrayLike,
    roles: tuple[npt.ArrayLike, npt.ArrayLike],
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> InPlace:
    """Like for like on a two-rater design (the extension), one term per physician.

    ``labels`` (items, slots) the judge's; ``primary_labels`` (P, items, slots) every primary
    physician's (missing where they did not rate); ``roles`` the first and second rater of each
    item (indices into P, :func:`primary_roles`), every item having exactly two. Physician
    ``p``'s term is agree(judge, other) - agree(``p``, other) over the items ``p`` rated, on the
    answers both rated, the judge's abstentions there counted as disagreements; ``d`` is the
    mean over the physicians, like the core's.
    """
    primary = substantive(primary_labels)
    first, second = (np.asarray(r, dtype=np.int64) for r in roles)
    n_p, n_items = primary.shape[0], primary.shape[1]
    items = np.arange(n_items)
    own = np.full(primary.shape, stats.MISSING, dtype=np.int64)
    other = np.full(primary.shape, stats.MISSING, dtype=np.int64)
    for mine_idx, theirs_idx in ((first, second), (second, first)):
        own[mine_idx, items] = primary[mine_idx, items]
        other[mine_idx, items] = primary[theirs_idx, items]
    same = np.stack([matched(other[p], own[p]) for p in range(n_p)])
    judge = np.stack([penalised(labels, same[p]) for p in range(n_p)])
    return _place(_quiet(judge, same, slot_names, weights), _quiet(own, same, slot_names, weights))


__all__ = [
    "InPlace",
    "PanelWeights",
    "judge_in_place",
    "over_physicians",
    "physicians_in_place",
    "primaries_in_place",
    "primary_pair",
    "primary_roles",
]
