"""The physicians' own agreement: each physician against the strict majority of the others.

The leave-one-out reference (:func:`loo_references`), each labeller against its own reference
for all labellers and resamples in one product (:func:`per_rater`, :func:`in_place_agreement`)
and the physicians' macro agreement (:func:`leave_one_out`, RQ3's ceiling and the verdict's
comparison).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.consensus import majority_of_codes
from medqade.measures.estimate import Estimate, FloatArray
from medqade.measures.slots import (
    Agreement,
    AnyWeights,
    SlotAgreement,
    from_slots,
    pa_kappa,
    physician_mean,
    slot_mean,
    substantive,
)


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
    pa, kappa, n = pa_kappa(flat.sum(axis=0).reshape(n_p, n_slots, 4))  # (P, slots)
    reps = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64)
        rpa, rkappa, _ = pa_kappa((w @ flat).reshape(-1, n_p, n_slots, 4))  # (R, P, slots)
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
        from_slots(
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
