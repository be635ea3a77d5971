"""Physician-calibrated accuracy of each student on the whole item pool.

The physicians labelled only the benchmark, a stratified sample of the pool (strata: lexical
match, exact vs no match); a judge can label every pool answer. Per student model, three
estimates of the pool accuracy under physician consensus:

- ``physician_only``: the design-weighted mean over the labelled sample (stratum weights
  ``N_h / n_h``), with its CI;
- ``judge_only``: the judge's own pool accuracy; biased whenever the judge is, its interval
  reflects only the pool's size. Shown for contrast, never as the answer;
- ``ppi``: per stratum the judge's pool mean plus the labelled mean of (consensus - judge),
  power-tuned (PPI++), combined with the stratum weights, with a 95% CI; ``ppi_plain`` the
  same with ``lam = 1``. ``ess_gain`` = ``var(physician_only) / var(ppi)``: how many times
  more physician-labelled items the physician-only estimate would need for the same width.

Unresolved consensus (the one assumption, applied the same way in all three): an answer
without a verdict is *missing*, as in the paper's accuracy (Richtig / (Richtig + Falsch)).
For the physicians that is an unresolved consensus, for the judge an abstention or an
unparseable output. Each estimate is therefore a ratio, ``P(Richtig) / P(verdict)``, over the
pool; PPI corrects numerator and denominator alike (:mod:`medqade.stats.ppi`), so its estimand
is exactly the pool share of Richtig among answers the physicians would resolve, with no
assumption on why an answer stays unresolved.

The intervals are design-based: the pool is a finite population and the benchmark a simple
random sample within each stratum (finite-population correction ``1 - n_h / N_h``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.stats.ppi import PPIEstimate, RatioStratum, plug_in_ratio, stratified_ppi

Codes = npt.NDArray[np.int8]


@dataclass(frozen=True)
class StudentPoolEstimate:
    """The pool accuracy of one student by the three estimators (see the module docstring)."""

    physician_only: PPIEstimate
    judge_only: PPIEstimate
    ppi: PPIEstimate
    ppi_plain: PPIEstimate
    n_labelled: int
    n_pool: int

    @property
    def ess_gain(self) -> float:
        """``var(physician_only) / var(ppi)`` (NaN when undefined)."""
        if not (self.ppi.se > 0) or math.isnan(self.physician_only.se):
            return math.nan
        return float((self.physician_only.se / self.ppi.se) ** 2)

    def to_dict(self) -> dict[str, object]:
        """The JSON shape of ``medqade pool-estimate --json`` for one student."""

        def part(e: PPIEstimate) -> dict[str, object]:
            return {"estimate": e.estimate, "ci": [e.low, e.high]}

        return {
            "physician_only": part(self.physician_only),
            "judge_only": part(self.judge_only),
            "ppi": part(self.ppi),
            "ess_gain": self.ess_gain,
        }


def _indicators(codes: Codes) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(says Richtig, gives a verdict) as floats; abstention and missing are no verdict."""
    c = np.asarray(codes)
    return (
        (c == vocab.RICHTIG_CODE).astype(np.float64),
        ((c == vocab.RICHTIG_CODE) | (c == vocab.FALSCH_CODE)).astype(np.float64),
    )


def pool_estimates(
    students: Sequence[str],
    consensus: Codes,
    judge_labelled: Codes,
    lexical_labelled: npt.NDArray[np.bool_],
    judge_pool: Codes,
    lexical_pool: npt.NDArray[np.bool_],
    *,
    alpha: float = 0.05,
) -> dict[str, StudentPoolEstimate]:
    """Per student, the three pool estimates.

    Parameters
    ----------
    consensus, judge_labelled : (n, 5) codes
        Physician consensus (``-1`` unresolved) and the judge's labels on the labelled items.
    lexical_labelled : (n,) bool
        Lexical stratum of each labelled item.
    judge_pool, lexical_pool : (N, 5) codes and (N,) bool
        The judge's labels and the stratum of every pool item (the labelled ones included).
    """
    consensus = np.asarray(consensus)
    judge_labelled = np.asarray(judge_labelled)
    judge_pool = np.asarray(judge_pool)
    lexical_labelled = np.asarray(lexical_labelled, dtype=bool)
    lexical_pool = np.asarray(lexical_pool, dtype=bool)
    n, k = consensus.shape
    if judge_labelled.shape != (n, k) or judge_pool.shape[1:] != (k,) or len(students) != k:
        raise ValueError(
            f"shapes do not match: consensus {consensus.shape}, judge on the sample "
            f"{judge_labelled.shape}, judge on the pool {judge_pool.shape}, "
            f"{len(students)} students"
        )
    fp, gp = _indicators(judge_pool)
    masks = stratum_masks(lexical_labelled, lexical_pool)
    out: dict[str, StudentPoolEstimate] = {}
    for s, student in enumerate(students):
        strata = ratio_strata(consensus[:, s], judge_labelled[:, s], judge_pool[:, s], masks)
        out[student] = StudentPoolEstimate(
            physician_only=stratified_ppi(strata, lam=0.0, alpha=alpha),
            judge_only=plug_in_ratio(fp[:, s], gp[:, s], alpha=alpha),
            ppi=stratified_ppi(strata, lam=None, alpha=alpha),
            ppi_plain=stratified_ppi(strata, lam=1.0, alpha=alpha),
            n_labelled=n,
            n_pool=len(judge_pool),
        )
    return out


Mask = npt.NDArray[np.bool_]


def stratum_masks(
    lexical_labelled: npt.ArrayLike, lexical_pool: npt.ArrayLike
) -> tuple[tuple[Mask, Mask], ...]:
    """The lexical strata as (labelled items, pool items) masks, exact match first; a stratum
    is kept when it has labelled and pool items. The strata of every estimate here."""
    lab = np.asarray(lexical_labelled, dtype=bool)
    pool = np.asarray(lexical_pool, dtype=bool)
    pairs = ((lab, pool), (~lab, ~pool))
    return tuple((m_lab, m_pool) for m_lab, m_pool in pairs if m_lab.any() and m_pool.any())


def ratio_strata(
    consensus: Codes,
    judge_labelled: Codes,
    judge_pool: Codes,
    masks: Sequence[tuple[Mask, Mask]],
) -> list[RatioStratum]:
    """One student's strata for :mod:`medqade.stats.ppi`: per mask pair of
    :func:`stratum_masks`, the consensus and the judge on the labelled items (n,) and the judge
    on the pool (N,) as (Richtig, verdict) indicators."""
    y, r = _indicators(consensus)
    f, g = _indicators(judge_labelled)
    fp, gp = _indicators(judge_pool)
    return [
        RatioStratum.make(y[m_lab], f[m_lab], fp[m_pool], r=r[m_lab], g=g[m_lab], g_pool=gp[m_pool])
        for m_lab, m_pool in masks
    ]


class PoolSample(Protocol):
    """One judge on the pool, aligned with the physician consensus (what
    :func:`medqade.dataset.pool_data.load_pool_labels` returns): ``judge_pool`` (N, 5) and
    ``lexical_pool`` (N,) over every pool item, ``labelled`` (N,) the benchmark items,
    ``consensus`` (n, 5) their physician consensus in pool order."""

    @property
    def students(self) -> Sequence[str]: ...

    @property
    def judge_pool(self) -> Codes: ...

    @property
    def lexical_pool(self) -> npt.NDArray[np.bool_]: ...

    @property
    def labelled(self) -> npt.NDArray[np.bool_]: ...

    @property
    def consensus(self) -> Codes: ...


def estimate_pool(sample: PoolSample, *, alpha: float = 0.05) -> dict[str, StudentPoolEstimate]:
    """Per student, the three pool estimates of one judge's pool labels: the one assembly
    behind ``medqade pool-estimate``, supplementary table S5 and the Space's pool panel."""
    lab = np.asarray(sample.labelled, dtype=bool)
    return pool_estimates(
        sample.students,
        sample.consensus,
        np.asarray(sample.judge_pool)[lab],
        np.asarray(sample.lexical_pool)[lab],
        sample.judge_pool,
        sample.lexical_pool,
        alpha=alpha,
    )
