"""Agreement of a labeller with a reference, per answer slot and macro-averaged, with CIs.

This is the one implementation behind RQ3 (evaluators vs consensus, the leave-one-out
physician reference) and behind judge scoring of submissions: per slot PA, Cohen's kappa and
PABAK against the reference (abstentions and unresolved reference excluded pairwise), then the
unweighted mean over the five slots; 95% percentile CIs from question-level bootstrap weights,
all five slots of a question resampled together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.consensus import majority_of_codes

Codes = npt.NDArray[np.int8]
Weights = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% percentile bootstrap interval (NaN when undefined)."""

    value: float
    low: float
    high: float

    @property
    def ci(self) -> tuple[float, float]:
        return (self.low, self.high)

    @classmethod
    def from_replicates(cls, value: float, replicates: npt.NDArray[np.float64] | None) -> Estimate:
        if replicates is None:
            return cls(float(value), float("nan"), float("nan"))
        ci = stats.percentile_ci(replicates)
        return cls(float(value), float(ci.low), float(ci.high))

    def overlaps(self, other: Estimate) -> bool:
        return bool(self.low <= other.high and other.low <= self.high)


@dataclass(frozen=True)
class Agreement:
    """PA, kappa and PABAK (macro over slots) with per-slot values; ``n`` = pairable answers."""

    kappa: Estimate
    pa: Estimate
    pabak: Estimate
    n: int
    slots: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kappa": self.kappa.value,
            "kappa_ci": list(self.kappa.ci),
            "pa": self.pa.value,
            "pa_ci": list(self.pa.ci),
            "pabak": self.pabak.value,
            "pabak_ci": list(self.pabak.ci),
            "n": self.n,
            "slots": self.slots,
        }


def substantive(codes: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Label codes with abstentions (and anything not 0/1) turned into ``stats.MISSING``."""
    out = np.asarray(codes, dtype=np.int64).copy()
    out[(out != vocab.FALSCH_CODE) & (out != vocab.RICHTIG_CODE)] = stats.MISSING
    return out


def question_weights(n_items: int, n_resamples: int, seed: int) -> Weights:
    """Bootstrap count weights (R, items) from a seeded generator (same seed, same weights)."""
    rng = np.random.default_rng(seed)
    idx = stats.bootstrap_indices(n_items, n_resamples, rng)
    return stats.resample_weights(idx, n_items)


def _slot_stats(
    labels: npt.NDArray[np.int64], reference: npt.NDArray[np.int64], weights: Weights | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """PA, kappa, n per slot: arrays (..., slots) with an optional leading R axis."""
    pa, kappa, n = [], [], []
    for s in range(labels.shape[-1]):
        res = stats.compare_to_reference(labels[..., s], reference[:, s], weights=weights)
        pa.append(res.pa)
        kappa.append(res.kappa)
        n.append(res.n)
    return np.stack(pa, axis=-1), np.stack(kappa, axis=-1), np.stack(n, axis=-1)


def _nanmean(x: npt.NDArray[np.float64], axis: int = -1) -> npt.NDArray[np.float64]:
    with np.errstate(invalid="ignore"):
        valid = ~np.isnan(x)
        total = np.where(valid, x, 0.0).sum(axis=axis)
        count = valid.sum(axis=axis)
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def agreement(
    labels: npt.ArrayLike,
    reference: npt.ArrayLike,
    slot_names: tuple[str, ...],
    weights: Weights | None = None,
) -> Agreement:
    """Agreement of ``labels`` (items, slots) with ``reference`` (items, slots).

    Both hold label codes; abstentions (2) and missing (-1) are excluded pairwise.
    ``weights`` (R, items) gives the bootstrap CIs (``None``: CIs are NaN).
    """
    lab = substantive(labels)
    ref = substantive(reference)
    pa, kappa, n = _slot_stats(lab, ref, None)
    reps = _slot_stats(lab, ref, weights) if weights is not None else None
    slots: dict[str, dict[str, Any]] = {}
    for s, name in enumerate(slot_names):
        k_rep = None if reps is None else reps[1][:, s]
        p_rep = None if reps is None else reps[0][:, s]
        ke = Estimate.from_replicates(float(kappa[s]), k_rep)
        pe = Estimate.from_replicates(float(pa[s]), p_rep)
        slots[name] = {
            "kappa": ke.value,
            "kappa_ci": list(ke.ci),
            "pa": pe.value,
            "pa_ci": list(pe.ci),
            "pabak": 2 * pe.value - 1,
            "pabak_ci": [2 * pe.low - 1, 2 * pe.high - 1],
            "n": int(n[s]),
        }
    pa_mean = float(_nanmean(pa))
    pa_rep = None if reps is None else _nanmean(reps[0])
    pa_est = Estimate.from_replicates(pa_mean, pa_rep)
    return Agreement(
        kappa=Estimate.from_replicates(
            float(_nanmean(kappa)), None if reps is None else _nanmean(reps[1])
        ),
        pa=pa_est,
        pabak=Estimate(2 * pa_est.value - 1, 2 * pa_est.low - 1, 2 * pa_est.high - 1),
        n=int(n.sum()),
        slots=slots,
    )


def leave_one_out(
    physician_labels: npt.ArrayLike, slot_names: tuple[str, ...], weights: Weights | None = None
) -> Agreement:
    """The leave-one-out physician reference (RQ3).

    ``physician_labels`` has shape (physicians, items, slots). Each physician is compared with
    the strict-majority consensus of the others (ties and empty = unresolved, abstentions
    excluded); per physician the slot values are averaged, then the physicians are averaged.
    """
    labels = substantive(physician_labels)
    n_phys = labels.shape[0]
    pa_p, kappa_p, n_total = [], [], 0
    pa_r, kappa_r = [], []
    slot_pa = np.zeros((n_phys, labels.shape[2]))
    slot_kappa = np.zeros((n_phys, labels.shape[2]))
    for p in range(n_phys):
        ref = majority_of_codes(np.delete(labels, p, axis=0), axis=0).astype(np.int64)
        pa, kappa, n = _slot_stats(labels[p], ref, None)
        slot_pa[p], slot_kappa[p] = pa, kappa
        pa_p.append(_nanmean(pa))
        kappa_p.append(_nanmean(kappa))
        n_total += int(n.sum())
        if weights is not None:
            rpa, rkappa, _ = _slot_stats(labels[p], ref, weights)
            pa_r.append(_nanmean(rpa))
            kappa_r.append(_nanmean(rkappa))
    pa_rep = None if weights is None else _nanmean(np.stack(pa_r, axis=-1))
    kappa_rep = None if weights is None else _nanmean(np.stack(kappa_r, axis=-1))
    pa_est = Estimate.from_replicates(float(np.nanmean(pa_p)), pa_rep)
    slots = {
        name: {
            "kappa": float(np.nanmean(slot_kappa[:, s])),
            "pa": float(np.nanmean(slot_pa[:, s])),
            "pabak": float(2 * np.nanmean(slot_pa[:, s]) - 1),
        }
        for s, name in enumerate(slot_names)
    }
    return Agreement(
        kappa=Estimate.from_replicates(float(np.nanmean(kappa_p)), kappa_rep),
        pa=pa_est,
        pabak=Estimate(2 * pa_est.value - 1, 2 * pa_est.low - 1, 2 * pa_est.high - 1),
        n=n_total,
        slots=slots,
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
