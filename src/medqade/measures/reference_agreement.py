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

Built from :mod:`medqade.measures.slots` (codes, slot means, the result types) and
:mod:`medqade.measures.physician_reference` (the leave-one-out reference); the names its callers
read with an agreement are re-exported here (``__all__``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.physician_reference import (
    leave_one_out,
    loo_references,
    quiet_leave_one_out,
)
from medqade.measures.slots import (
    METRICS,
    Agreement,
    AnyWeights,
    Codes,
    Mask,
    SlotAgreement,
    from_slots,
    pa_kappa,
    penalised,
    physician_mean,
    slot_mean,
    substantive,
)

__all__ = [
    "METRICS",
    "Agreement",
    "AnyWeights",
    "SlotAgreement",
    "agreement",
    "ensemble_vote",
    "grouped_agreement",
    "grouped_leave_one_out",
    "leave_one_out",
    "macro_agreement",
    "quiet_leave_one_out",
    "substantive",
]


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
    return from_slots(slot_names, pa, kappa, n, reps)


# --- several item groups at once ------------------------------------------------------------


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
    point = pa_kappa(flat.sum(axis=0).reshape(len(names), n_slots, 4))
    if weights is None:
        return point, None
    w = np.asarray(weights, dtype=np.float64)
    rpa, rkappa, _ = pa_kappa((w @ flat).reshape(-1, len(names), n_slots, 4))
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
        out[name] = from_slots(
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
