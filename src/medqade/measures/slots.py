"""The pieces every agreement is built from: label codes, means over slots, the result types.

Label codes are reduced to the substantive 0/1 (:func:`substantive`), abstentions scored as
disagreements (:func:`penalised`) or the reference restricted to what a physician rated
(:func:`matched`). Per-slot PA and kappa come from 2x2 cell counts (:func:`pa_kappa`); the macro
value is the mean over the point estimate's defined slots (:func:`slot_mean`), and
:func:`from_slots` turns per-slot values and replicates into an :class:`Agreement`.
Computed by :mod:`medqade.measures.reference_agreement` and
:mod:`medqade.measures.physician_reference`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.measures.estimate import Estimate, FloatArray, pabak_of

Codes = npt.NDArray[np.int8]
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


def physician_mean(x: FloatArray) -> FloatArray:
    """Mean over the physician axis (axis 0) ignoring NaN, without warnings."""
    return mean_defined(np.moveaxis(x, 0, -1))


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


def from_slots(
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


def pa_kappa(counts: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
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
