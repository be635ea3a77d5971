"""Reproduction: does a judge, asked again, give the labels its record holds?

``medqade verify`` asks the judge again on a sample of the questions a record labelled and
compares the new labels with the stored ones. Here are its three quantities:

- **the sample** (:func:`sample`): ``K`` questions drawn without replacement among those the
  record labelled, stratified by split: half from the core (rounded up), half from the
  extension, and the rest from the other split when one has too few. The core decides the
  verdict and is 5% of the items, so a draw in proportion would look at two core questions
  in forty. The draw is seeded (stream :data:`~medqade.measures.seeds.STREAM_VERIFY_SAMPLE`);
  ``medqade verify`` draws a fresh seed unless given one and stores it, so a submitter cannot
  know in advance which questions will be asked again.
- **the agreement** (:func:`rerun_agreement`): Cohen's kappa and the percent agreement (PA) of the
  new labels against the stored ones over the sampled answers the record labelled, with all
  three labels (Richtig, Falsch, Keine Angabe) as categories: turning a label into an
  abstention is a change like any other. An answer the re-run gave no label for (an
  unparseable reply) is a fourth category, so it counts as a disagreement: it was not
  reproduced. Intervals are 95% percentiles over resamples of the sampled questions, drawn
  within each split (the sample's strata; stream :data:`~medqade.measures.seeds.STREAM_VERIFY`).
- **the rule** (:func:`reproduces`): the record reproduces when the PA's upper bound reaches
  the reference, the judge's own run-to-run agreement: the re-run is not significantly less
  consistent with the stored labels than the judge is with itself. The reference is the
  record's self-consistency PA when it has one, else :data:`REFERENCE_PA`.

PA decides, not kappa: kappa is undefined or erratic on a small sample where nearly every
label is the same, and the reference a record keeps is a PA as well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.estimate import Estimate
from medqade.measures.seeds import STREAM_VERIFY, STREAM_VERIFY_SAMPLE, generator

SAMPLE_QUESTIONS: Final = 40
"""Questions asked again by default (200 answers): enough to fail a record with a tenth of its
labels changed (bench/verify_power.py, docs/holdout.md), at 1% of the requests of a full run."""
REFERENCE_PA: Final = 0.98
"""The run-to-run PA a judge is held to when its record has no self-consistency of its own: the
re-run asks the same prompt with the answers in the stored order and the record's decoding, so a
deterministic judge repeats itself (PA 1). A judge that does not should submit two runs
(``inspect eval --epochs 2``), and its measured self-consistency is used instead."""
NO_REPLY: Final = 3
"""The category of an answer the re-run gave no label for (after the three labels, 0-2)."""
CATEGORIES: Final = 4


def sample(
    is_core: npt.ArrayLike, eligible: npt.ArrayLike, k: int, seed: int
) -> npt.NDArray[np.int64]:
    """The indices (ascending) of ``k`` questions among the ``eligible`` ones, stratified by
    split as the module docstring says; every eligible question when there are at most ``k``.
    ``is_core`` and ``eligible`` are boolean arrays over the release's items."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"the sample must have at least one question, got {k!r}")
    core = np.asarray(is_core, dtype=bool)
    ok = np.asarray(eligible, dtype=bool)
    if core.shape != ok.shape:
        raise ValueError("is_core and eligible must have the same shape")
    pools = [np.flatnonzero(ok & core), np.flatnonzero(ok & ~core)]
    if not (len(pools[0]) + len(pools[1])):
        raise ValueError("the record labelled no question: there is nothing to ask again")
    both = len(pools[0]) > 0 and len(pools[1]) > 0
    want_core = min(len(pools[0]), math.ceil(k / 2) if both else k)
    want_ext = min(len(pools[1]), k - want_core)
    want_core = min(len(pools[0]), k - want_ext)
    rng = generator(seed, STREAM_VERIFY_SAMPLE)
    chosen = [
        rng.choice(pool, size=n, replace=False) if n else pool[:0]
        for pool, n in zip(pools, (want_core, want_ext), strict=True)
    ]
    return np.sort(np.concatenate(chosen)).astype(np.int64)


@dataclass(frozen=True, eq=False)
class Reproduction:
    """The re-run's agreement with the stored labels (module docstring): ``n`` answers
    compared on ``n_items`` questions, ``no_reply`` of them without a label in the re-run."""

    kappa: Estimate
    pa: Estimate
    n: int
    n_items: int
    no_reply: int

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.kappa.to_dict("kappa"),
            **self.pa.to_dict("pa"),
            "n": self.n,
            "n_items": self.n_items,
            "no_reply": self.no_reply,
        }


def rerun_agreement(
    stored: npt.ArrayLike,
    again: npt.ArrayLike,
    strata: npt.ArrayLike,
    resamples: int,
    seed: int,
) -> Reproduction:
    """Kappa and PA of ``again`` against ``stored``, both (questions, slots) label codes (0-2;
    ``stats.MISSING``: ``stored`` has no label there, which leaves the answer out; ``again``
    gave none, which is :data:`NO_REPLY`), with the question bootstrap within ``strata``
    (questions,); ``resamples`` 0: no intervals."""
    old = np.asarray(stored, dtype=np.int64)
    new = np.asarray(again, dtype=np.int64)
    if old.shape != new.shape or old.ndim != 2:
        raise ValueError(
            f"stored and again must be (questions, slots) alike: {old.shape}, {new.shape}"
        )
    groups = np.asarray(strata)
    if groups.shape != (old.shape[0],):
        raise ValueError("strata must hold one label per question")
    mask = old >= 0
    if not mask.any():
        raise ValueError("the stored labels hold no label on these questions")
    a = old[mask]
    b = np.where(new >= 0, new, NO_REPLY)[mask]
    question = np.nonzero(mask)[0]
    kappa_reps = pa_reps = None
    if resamples:
        rng = generator(seed, STREAM_VERIFY)
        idx = stats.stratified_bootstrap_indices(groups, resamples, rng)
        w = stats.resample_weights(idx, old.shape[0])[:, question]
        kappa_reps = stats.cohen_kappa(a, b, CATEGORIES, weights=w)
        pa_reps = stats.percent_agreement(a, b, CATEGORIES, weights=w)
    return Reproduction(
        kappa=Estimate.from_replicates(float(stats.cohen_kappa(a, b, CATEGORIES)), kappa_reps),
        pa=Estimate.from_replicates(float(stats.percent_agreement(a, b, CATEGORIES)), pa_reps),
        n=int(mask.sum()),
        n_items=len(np.unique(question)),
        no_reply=int((b == NO_REPLY).sum()),
    )


def reproduces(pa: Estimate, reference: float) -> bool:
    """Whether the PA's upper bound (its value, without an interval) reaches ``reference``:
    the re-run is not significantly less consistent with the stored labels than the judge is
    with itself. Decided on unrounded numbers (a tolerance of 1e-12 for the float sums)."""
    top = pa.high if pa.has_interval else pa.value
    return bool(top >= reference - 1e-12)


__all__ = [
    "CATEGORIES",
    "NO_REPLY",
    "REFERENCE_PA",
    "SAMPLE_QUESTIONS",
    "Reproduction",
    "reproduces",
    "rerun_agreement",
    "sample",
]
