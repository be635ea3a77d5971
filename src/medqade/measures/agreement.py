"""Agreement of a labeller with a reference: per answer slot, macro over slots, with CIs.

The benchmark's central quantity. Per slot, PA, Cohen's kappa and PABAK of the labeller
against the reference (abstentions and unresolved reference excluded pairwise, the chance
term from the same answers), then the unweighted mean over the slots (the five, unless one is
undefined on the data itself, e.g. in a tiny group). Every replicate averages exactly the slots
of the point estimate: a replicate in which one of them is undefined is undefined (dropped and
counted), never a mean over fewer slots (:func:`slot_mean`). Intervals are 95%
percentiles of question-bootstrap replicates (count weights (R, items): all five slots of a
question are resampled together), and every :class:`Agreement` keeps its replicates so that
two labellers scored on the same weights can be compared pairwise.

Used by RQ3 (evaluators and the leave-one-out physician reference), by judge scoring of
submissions and by :mod:`medqade.measures.paired`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.consensus import majority_of_codes
from medqade.measures.estimate import Estimate, FloatArray, pabak_of

Codes = npt.NDArray[np.int8]
Weights = npt.NDArray[np.int64]
AnyWeights = npt.NDArray[np.int64] | npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


def substantive(codes: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Label codes with abstentions (and anything not 0/1) turned into ``stats.MISSING``."""
    out = np.asarray(codes, dtype=np.int64).copy()
    out[(out != vocab.FALSCH_CODE) & (out != vocab.RICHTIG_CODE)] = stats.MISSING
    return out


def penalised(labels: npt.ArrayLike, reference: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """``labels`` with every non-substantive label (abstention, missing) on a resolved
    ``reference`` answer replaced by the label opposite to the reference.

    This is the scoring of the verdict and the rank: abstaining cannot buy agreement. An
    abstention counts as a disagreement in PA, and in kappa it enters the 2x2 table in the
    off-diagonal cell of its reference label (labeller says the opposite), so PA, kappa and
    PABAK all treat it as a wrong label. Unresolved reference answers stay out of the count.
    """
    lab = substantive(labels)
    ref = substantive(reference)
    fill = (ref != stats.MISSING) & (lab == stats.MISSING)
    lab[fill] = 1 - ref[fill]
    return lab


def matched(reference: npt.ArrayLike, rater: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """``reference`` where ``rater`` gives a substantive label, missing elsewhere.

    The like-for-like comparison scores a labeller on the answers a physician rated: where
    the physician abstained (or has no rating) the answer leaves both sides of that
    physician's term, so a physician's caution is never counted against the panel and a
    judge gains nothing by abstaining there (its label on those answers is not read).
    """
    ref = substantive(reference)
    return np.where(substantive(rater) == stats.MISSING, stats.MISSING, ref)


def slot_mean(x: npt.ArrayLike, point: npt.ArrayLike | None = None) -> FloatArray:
    """The macro mean over the slots (last axis) that are defined in ``point`` (the point
    estimate's per-slot values, broadcast against ``x``; default: every slot); NaN (no warning)
    where any of those slots is NaN in ``x``, or where ``point`` defines none.

    ``slot_mean(v, v)`` is the point estimate: the mean of its defined slots. ``slot_mean(reps,
    v)`` gives replicates of the same estimand: a replicate in which one of the point's slots
    is undefined is undefined (dropped and counted by the interval), never a mean over fewer
    slots.
    """
    values = np.asarray(x, dtype=np.float64)
    if point is None:
        over = np.ones(values.shape, dtype=bool)
    else:
        over = np.broadcast_to(~np.isnan(np.asarray(point, dtype=np.float64)), values.shape)
    missing = (np.isnan(values) & over).any(axis=-1)
    total = np.where(over & ~np.isnan(values), values, 0.0).sum(axis=-1)
    count = over.sum(axis=-1)
    out: FloatArray = np.full(np.shape(total), np.nan)
    np.divide(total, count, out=out, where=(count > 0) & ~missing)
    return out


def mean_defined(x: FloatArray) -> FloatArray:
    """Mean over the last axis ignoring NaN; NaN (no warning) where every value is NaN (used
    over physicians, where an undefined physician leaves the others' mean)."""
    valid = ~np.isnan(x)
    total = np.where(valid, x, 0.0).sum(axis=-1)
    count = valid.sum(axis=-1)
    out = np.full(np.shape(total), np.nan)
    np.divide(total, count, out=out, where=count > 0)
    return out


@dataclass(frozen=True, eq=False)
class SlotAgreement:
    """Agreement on one answer slot (one student model)."""

    kappa: Estimate
    pa: Estimate
    n: int

    @property
    def pabak(self) -> Estimate:
        return pabak_of(self.pa)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.kappa.to_dict("kappa"),
            **self.pa.to_dict("pa"),
            **self.pabak.to_dict("pabak"),
            "n": self.n,
        }


@dataclass(frozen=True, eq=False)
class Agreement:
    """Macro PA, kappa and PABAK over slots, with per-slot values.

    ``n`` = pairable (labeller, reference) answers; ``n_items`` the items of the group the
    agreement was computed on (``None``: not a group statistic).
    """

    kappa: Estimate
    pa: Estimate
    n: int
    slots: Mapping[str, SlotAgreement]
    n_items: int | None = None

    @property
    def pabak(self) -> Estimate:
        return pabak_of(self.pa)

    def metric(self, name: str) -> Estimate:
        """The macro estimate of ``kappa``, ``pa`` or ``pabak``."""
        if name not in METRICS:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {name!r}")
        value: Estimate = getattr(self, name)
        return value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            **self.kappa.to_dict("kappa"),
            **self.pa.to_dict("pa"),
            **self.pabak.to_dict("pabak"),
            "n": self.n,
        }
        if self.slots:
            out["slots"] = {name: s.to_dict() for name, s in self.slots.items()}
        if self.n_items is not None:
            out["n_items"] = self.n_items
        return out


METRICS = ("kappa", "pa", "pabak")


def _slot_stats(
    labels: npt.NDArray[np.int64], reference: npt.NDArray[np.int64], weights: AnyWeights | None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """PA, kappa, n per slot: arrays (..., slots) with a leading R axis under weights."""
    pa, kappa, n = [], [], []
    for s in range(labels.shape[-1]):
        res = stats.compare_to_reference(labels[..., s], reference[..., s], weights=weights)
        pa.append(res.pa)
        kappa.append(res.kappa)
        n.append(res.n)
    return np.stack(pa, axis=-1), np.stack(kappa, axis=-1), np.stack(n, axis=-1)


def _estimates(
    slot_names: tuple[str, ...],
    pa: FloatArray,
    kappa: FloatArray,
    n: FloatArray,
    reps: tuple[FloatArray, FloatArray] | None,
    n_items: int | None = None,
) -> Agreement:
    """An :class:`Agreement` from per-slot values (slots,) and replicates (R, slots)."""
    slots = {
        name: SlotAgreement(
            kappa=Estimate.from_replicates(
                float(kappa[s]), None if reps is None else reps[1][:, s]
            ),
            pa=Estimate.from_replicates(float(pa[s]), None if reps is None else reps[0][:, s]),
            n=int(n[s]),
        )
        for s, name in enumerate(slot_names)
    }
    return Agreement(
        kappa=Estimate.from_replicates(
            float(slot_mean(kappa, kappa)), None if reps is None else slot_mean(reps[1], kappa)
        ),
        pa=Estimate.from_replicates(
            float(slot_mean(pa, pa)), None if reps is None else slot_mean(reps[0], pa)
        ),
        n=int(n.sum()),
        slots=slots,
        n_items=n_items,
    )


def agreement(
    labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    abstain_disagrees: bool = False,
) -> Agreement:
    """Agreement of ``labels`` (items, slots) with ``reference`` (items, slots).

    Both hold label codes; abstentions (2) and missing (-1) are excluded pairwise, or, with
    ``abstain_disagrees``, count as disagreements with a resolved reference (:func:`penalised`).
    ``weights`` (R, items) gives the bootstrap CIs and replicates (``None``: NaN bounds).
    """
    ref = substantive(reference)
    lab = penalised(labels, ref) if abstain_disagrees else substantive(labels)
    pa, kappa, n = _slot_stats(lab, ref, None)
    reps = None
    if weights is not None:
        rpa, rkappa, _ = _slot_stats(lab, ref, weights)
        reps = (rpa, rkappa)
    return _estimates(slot_names, pa, kappa, n, reps)


def loo_references(physician_labels: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """For every physician, the strict-majority consensus of the others.

    ``physician_labels`` (physicians, items, slots) -> (physicians, items, slots) reference
    codes (ties and no vote: missing; abstentions excluded).
    """
    labels = substantive(physician_labels)
    return np.stack(
        [
            majority_of_codes(np.delete(labels, p, axis=0), axis=0).astype(np.int64)
            for p in range(labels.shape[0])
        ]
    )


def physician_mean(x: FloatArray) -> FloatArray:
    """Mean over the physician axis (axis 0) ignoring NaN, without warnings."""
    return mean_defined(np.moveaxis(x, 0, -1))


def _rater_counts(
    labels: npt.NDArray[np.int64], refs: npt.NDArray[np.int64], weights: AnyWeights | None
) -> tuple[FloatArray, FloatArray, FloatArray, tuple[FloatArray, FloatArray] | None]:
    """PA, kappa and n (P, slots) of labeller ``p`` against reference ``p`` for every ``p``
    (both (P, items, slots) codes), and their replicates (P, R, slots) under ``weights``:
    all 2x2 tables of all resamples from one product of the weights with the per-item cells."""
    n_p, n_items, n_slots = labels.shape
    ok = (labels != stats.MISSING) & (refs != stats.MISSING)
    cell = np.where(ok, labels * 2 + refs, 0)
    x = np.zeros((n_items, n_p, n_slots, 4))
    p_i, i_i, s_i = np.nonzero(ok)
    x[i_i, p_i, s_i, cell[p_i, i_i, s_i]] = 1.0
    flat = x.reshape(n_items, -1)
    pa, kappa, n = _pa_kappa(flat.sum(axis=0).reshape(n_p, n_slots, 4))  # (P, slots)
    reps = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        rpa, rkappa, _ = _pa_kappa((w @ flat).reshape(-1, n_p, n_slots, 4))  # (R, P, slots)
        reps = (np.moveaxis(rpa, 1, 0), np.moveaxis(rkappa, 1, 0))  # (P, R, slots)
    return pa, kappa, n, reps


def per_rater(
    labels: npt.ArrayLike,
    refs: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> list[Agreement]:
    """:func:`agreement` of ``labels[p]`` with ``refs[p]`` for every ``p`` (both (P, items,
    slots)), computed for all ``p`` and all resamples at once (the same numbers as calling
    :func:`agreement` per ``p``, much faster for many resamples)."""
    lab = substantive(labels)
    ref = substantive(refs)
    pa, kappa, n, reps = _rater_counts(lab, ref, weights)
    return [
        _estimates(
            slot_names,
            pa[p],
            kappa[p],
            n[p],
            None if reps is None else (reps[0][p], reps[1][p]),
        )
        for p in range(lab.shape[0])
    ]


@dataclass(frozen=True, eq=False)
class PerRater:
    """Labeller ``p`` against reference ``p`` for every ``p``, macro over slots: the mean over
    ``p`` (:attr:`agreement`), each ``p``'s macro point values (:attr:`points`, ``{"kappa":
    (P,), "pa": (P,)}``) and replicates (:attr:`replicates`, ``{"kappa": (P, R), "pa": (P,
    R)}``, ``None`` without weights): what a like-for-like difference and its inference over
    physicians are computed from (:mod:`medqade.measures.in_place`)."""

    agreement: Agreement
    points: Mapping[str, FloatArray]
    replicates: Mapping[str, FloatArray] | None


def in_place_agreement(
    labels: npt.NDArray[np.int64],
    refs: npt.NDArray[np.int64],
    slot_names: tuple[str, ...],
    weights: AnyWeights | None,
) -> PerRater:
    """Labeller ``p`` (``labels[p]``) against reference ``p`` (``refs[p]``), for every ``p``
    (both (P, items, slots) substantive codes): per ``p`` the slot values are averaged (macro),
    then the ``p`` are averaged; per slot the mean over ``p``. Replicates follow the same two
    means on every resample."""
    pa, kappa, n, reps = _rater_counts(labels, refs, weights)
    slots = {
        name: SlotAgreement(
            kappa=Estimate.from_replicates(
                float(physician_mean(kappa[:, s])),
                None if reps is None else physician_mean(reps[1][:, :, s]),
            ),
            pa=Estimate.from_replicates(
                float(physician_mean(pa[:, s])),
                None if reps is None else physician_mean(reps[0][:, :, s]),
            ),
            n=int(n[:, s].sum()),
        )
        for s, name in enumerate(slot_names)
    }
    macro = {"kappa": slot_mean(kappa, kappa), "pa": slot_mean(pa, pa)}
    macro_reps = None
    if reps is not None:
        macro_reps = {
            "kappa": slot_mean(reps[1], kappa[:, None, :]),
            "pa": slot_mean(reps[0], pa[:, None, :]),
        }
    agr = Agreement(
        kappa=Estimate.from_replicates(
            float(physician_mean(macro["kappa"])),
            None if macro_reps is None else physician_mean(macro_reps["kappa"]),
        ),
        pa=Estimate.from_replicates(
            float(physician_mean(macro["pa"])),
            None if macro_reps is None else physician_mean(macro_reps["pa"]),
        ),
        n=int(n.sum()),
        slots=slots,
    )
    return PerRater(agr, macro, macro_reps)


def leave_one_out(
    physician_labels: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> Agreement:
    """The leave-one-out physician reference (RQ3): the physicians' own agreement.

    ``physician_labels`` has shape (physicians, items, slots). Each physician is compared with
    the strict-majority consensus of the others (:func:`loo_references`); per physician the
    slot values are averaged, then the physicians are averaged. Per slot: the mean over
    physicians of that slot's value. Replicates follow the same two means on every resample.
    """
    labels = substantive(physician_labels)
    refs = loo_references(labels)
    return in_place_agreement(labels, refs, slot_names, weights).agreement


# --- several item groups at once ------------------------------------------------------------


def _pa_kappa(counts: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """PA, kappa and n from 2x2 cell counts (..., 4) ordered (labeller, reference) = 00, 01,
    10, 11, with the conventions of :mod:`medqade.stats.agreement` (NaN for n = 0; kappa NaN
    for n < 2 or chance agreement 1)."""
    n = counts.sum(axis=-1)
    agree = counts[..., 0] + counts[..., 3]
    a0, a1 = counts[..., 0] + counts[..., 1], counts[..., 2] + counts[..., 3]
    b0, b1 = counts[..., 0] + counts[..., 2], counts[..., 1] + counts[..., 3]
    chance = a0 * b0 + a1 * b1
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = np.where(n > 0, agree / np.where(n > 0, n, 1), np.nan)
        den = np.where(n >= 2, n * n - chance, 0.0)
        kappa = np.where(den != 0, (n * agree - chance) / np.where(den != 0, den, 1), np.nan)
    return pa, kappa, n


def _group_slot_stats(
    labels: npt.NDArray[np.int64],
    reference: npt.NDArray[np.int64],
    groups: Mapping[str, Mask],
    weights: AnyWeights | None,
) -> tuple[tuple[FloatArray, FloatArray, FloatArray], tuple[FloatArray, FloatArray] | None]:
    """Per (group, slot) PA, kappa, n and their replicates (R, groups, slots), from one
    matrix product of the weights with the one-hot cells of every (group, slot)."""
    names = list(groups)
    n_items, n_slots = labels.shape
    ok = (labels != stats.MISSING) & (reference != stats.MISSING)
    cell = np.where(ok, labels * 2 + reference, 0)
    x = np.zeros((n_items, len(names), n_slots, 4))
    for g, name in enumerate(names):
        i, s = np.nonzero(ok & groups[name][:, None])
        x[i, g, s, cell[i, s]] = 1.0
    flat = x.reshape(n_items, -1)
    point = _pa_kappa(flat.sum(axis=0).reshape(len(names), n_slots, 4))
    if weights is None:
        return point, None
    w = np.asarray(weights, dtype=np.float64)
    rpa, rkappa, _ = _pa_kappa((w @ flat).reshape(-1, len(names), n_slots, 4))
    return point, (rpa, rkappa)


def grouped_agreement(
    labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    groups: Mapping[str, Mask],
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
    abstain_disagrees: bool = False,
) -> dict[str, Agreement | None]:
    """:func:`agreement` restricted to each group's items, all groups at once.

    ``labels`` and ``reference`` are (items, slots) codes, each group an (items,) mask,
    ``weights`` (R, items) bootstrap weights over *all* items (a subgroup statistic is
    bootstrapped by resampling every question and recomputing it in the subgroup, so its
    replicates are paired with the whole-set statistic). Groups without items map to ``None``.
    ``abstain_disagrees`` as in :func:`agreement`.
    """
    ref = substantive(reference)
    lab = penalised(labels, ref) if abstain_disagrees else substantive(labels)
    present = {g: m for g, m in groups.items() if m.any()}
    out: dict[str, Agreement | None] = {g: None for g in groups}
    if not present:
        return out
    (pa, kappa, n), reps = _group_slot_stats(lab, ref, present, weights)
    for g, name in enumerate(present):
        out[name] = _estimates(
            slot_names,
            pa[g],
            kappa[g],
            n[g],
            None if reps is None else (reps[0][:, g], reps[1][:, g]),
            n_items=int(present[name].sum()),
        )
    return out


def grouped_leave_one_out(
    physician_labels: npt.ArrayLike,
    groups: Mapping[str, Mask],
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> dict[str, Agreement | None]:
    """:func:`leave_one_out` restricted to each group's items (macro values only).

    The leave-one-out reference of each physician is taken over all items (a physician's
    reference on an item does not depend on the group); per physician the group's macro
    values are computed, then averaged over physicians, on every replicate.
    """
    labels = substantive(physician_labels)
    refs = loo_references(labels)
    present = {g: m for g, m in groups.items() if m.any()}
    out: dict[str, Agreement | None] = {g: None for g in groups}
    if not present:
        return out
    per = [_group_slot_stats(labels[p], refs[p], present, weights) for p in range(len(labels))]
    for g, name in enumerate(present):
        pa = np.stack([slot_mean(pt[0][g], pt[0][g]) for pt, _ in per])
        kappa = np.stack([slot_mean(pt[1][g], pt[1][g]) for pt, _ in per])
        n = sum(int(pt[2][g].sum()) for pt, _ in per)
        rpa = rkappa = None
        if weights is not None:
            rpa = physician_mean(np.stack([slot_mean(r[0][:, g], pt[0][g]) for pt, r in per if r]))
            rkappa = physician_mean(
                np.stack([slot_mean(r[1][:, g], pt[1][g]) for pt, r in per if r])
            )
        out[name] = Agreement(
            kappa=Estimate.from_replicates(float(physician_mean(kappa)), rkappa),
            pa=Estimate.from_replicates(float(physician_mean(pa)), rpa),
            n=n,
            slots={},
            n_items=int(present[name].sum()),
        )
    return out


# --- several labellers at once --------------------------------------------------------------


def macro_agreement(
    labels: npt.ArrayLike, reference: npt.ArrayLike, weights: AnyWeights | None = None
) -> tuple[FloatArray, FloatArray]:
    """Macro PA and kappa of several labellers against one reference.

    Parameters
    ----------
    labels : array_like of int, shape (labellers, items, slots)
        Label codes; abstentions and missing are excluded pairwise.
    reference : array_like of int, shape (items, slots)
        Reference codes, ``-1`` unresolved.
    weights : ndarray, shape (R, items), optional
        Question bootstrap weights.

    Returns
    -------
    pa, kappa : ndarray of float64, shape (labellers,) or (R, labellers)
        Unweighted means over slots of the per-slot values: over the slots defined in the
        point estimate; a replicate in which one of them is undefined is NaN (:func:`slot_mean`).
    """
    lab = substantive(labels)
    ref = substantive(reference)
    pa, kappa, point_pa, point_kappa = [], [], [], []
    for s in range(lab.shape[2]):
        res = stats.compare_to_reference(lab[:, :, s], ref[:, s], k=2, weights=weights)
        pa.append(res.pa)
        kappa.append(res.kappa)
        if weights is not None:
            point = stats.compare_to_reference(lab[:, :, s], ref[:, s], k=2)
            point_pa.append(point.pa)
            point_kappa.append(point.kappa)
    pa_x, kappa_x = np.stack(pa, axis=-1), np.stack(kappa, axis=-1)
    if weights is None:
        return slot_mean(pa_x, pa_x), slot_mean(kappa_x, kappa_x)
    return (
        slot_mean(pa_x, np.stack(point_pa, axis=-1)),
        slot_mean(kappa_x, np.stack(point_kappa, axis=-1)),
    )


def ensemble_vote(member_labels: npt.ArrayLike) -> Codes:
    """The paper's ensemble rule over members (members, items, slots).

    Majority after removing abstentions; all members abstain (or missing) = missing; a tie
    after removing abstentions = Falsch.
    """
    x = np.asarray(member_labels)
    r = (x == vocab.RICHTIG_CODE).sum(axis=0)
    f = (x == vocab.FALSCH_CODE).sum(axis=0)
    out = np.where(r > f, vocab.RICHTIG_CODE, vocab.FALSCH_CODE).astype(np.int8)
    out[(r + f) == 0] = vocab.MISSING_CODE
    return out


def quiet_leave_one_out(
    physician_labels: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: AnyWeights | None = None,
) -> Agreement:
    """:func:`leave_one_out` with numpy's warnings for a slot no physician pair rated (tiny
    releases) silenced: those values are NaN by design."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return leave_one_out(physician_labels, slot_names, weights)
