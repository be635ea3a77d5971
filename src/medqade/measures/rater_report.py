"""The per-physician panel report of a release (``medqade panel``, the Space, ``reproduce``).

Assembles :mod:`medqade.measures.raters` on a loaded release: the core on the core stream
(the same resamples as the ceiling, so a physician's figures and the ceiling are paired), the
extension on :data:`~medqade.measures.seeds.STREAM_PANEL_EXTENSION`, the re-rated questions
on :data:`~medqade.measures.seeds.STREAM_RERATING`. Review code frequencies (when the release
has reviews) count, per physician, the reviews of answers where the physician's substantive
label differs from the majority of the judges' substantive labels, and per judge the reviews
of answers where the judge's label differs from the physician consensus.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from medqade import vocab
from medqade.measures.estimate import Estimate
from medqade.measures.physician_reference import leave_one_out, loo_references, per_rater
from medqade.measures.raters import (
    OUTLIER_RESAMPLES,
    Rater,
    adjusted_level,
    intra_rater,
    kappa_gap,
    outlier_verdict,
    panel_fleiss,
    partner_references,
    quantile_mc_se,
    tier_abstention,
)
from medqade.measures.reference_agreement import agreement, ensemble_vote
from medqade.measures.seeds import (
    BOOTSTRAP_SEED,
    STREAM_CORE,
    STREAM_OUTLIER,
    STREAM_PANEL_EXTENSION,
    STREAM_RERATING,
    question_weights,
)
from medqade.measures.slots import Agreement, substantive

if TYPE_CHECKING:
    from medqade.dataset.release import Release


@dataclass(frozen=True, eq=False)
class PanelReport:
    """Per-physician figures plus the panel-level ceiling they average to."""

    raters: tuple[Rater, ...]
    ceiling: Agreement
    fleiss: Estimate
    level: float
    resamples: int
    seed: int
    n_core: int
    n_rerated: int
    review_codes: dict[str, dict[str, int]]
    judge_review_codes: dict[str, dict[str, int]]
    synthetic: bool
    outlier_resamples: int = OUTLIER_RESAMPLES

    def rater(self, physician: str) -> Rater:
        return next(r for r in self.raters if r.physician == physician)

    def to_dict(self) -> dict[str, Any]:
        return {
            "synthetic": self.synthetic,
            "resamples": self.resamples,
            "seed": self.seed,
            "n_core_items": self.n_core,
            "n_rerated_items": self.n_rerated,
            "outlier_rule": (
                "outlier when the upper bound of the "
                f"{100 * self.level:.1f}% paired percentile interval of (core leave-one-out "
                "kappa of the physician minus the mean of the other physicians') is below 0; "
                "above the panel when its lower bound is above 0; else consistent "
                f"({self.outlier_resamples:,} core resamples of their own)"
            ),
            "outlier_resamples": self.outlier_resamples,
            "ceiling": {k: v for k, v in self.ceiling.to_dict().items() if k != "slots"},
            **self.fleiss.to_dict("fleiss_kappa"),
            "physicians": [
                {
                    **r.to_dict(),
                    "review_codes": self.review_codes.get(r.physician, {}) or None
                    if self.review_codes
                    else None,
                }
                for r in self.raters
            ],
            "judges_review_codes": self.judge_review_codes or None,
        }


def _rerating_pairs(
    release: Release, p: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """First label, re-rating, question id and slot index per re-rated answer of ``p``."""
    r = release.ratings
    mine = r[r["rater"] == p]
    again = mine[mine["round"] == vocab.RERATING]
    first = mine[mine["round"] != vocab.RERATING]
    merged = again.merge(first, on=["question_id", "model"], suffixes=("_again", "_first"))
    code = dict(vocab.LABEL_CODES)
    return (
        merged["label_first"].map(code).to_numpy(dtype=np.int64),
        merged["label_again"].map(code).to_numpy(dtype=np.int64),
        merged["question_id"].to_numpy(dtype=str),
        merged["model"].map({m: i for i, m in enumerate(release.roster.student_ids)}).to_numpy(),
    )


def _code_counts(reviews: Any, answer_ids: set[str]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for aid, codes in zip(reviews["answer_id"], reviews["codes"], strict=True):
        if aid in answer_ids:
            counts.update(str(c) for c in codes)
    return dict(sorted(counts.items()))


def _review_codes(release: Release) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    reviews = release.reviews
    if reviews is None or reviews.empty:
        return {}, {}
    ids = np.array(list(release.slot_index), dtype=object).reshape(release.n_items, vocab.N_SLOTS)
    judges = substantive(ensemble_vote(release.evaluator_labels))
    phys = substantive(release.physician_labels)
    cons = substantive(release.consensus)
    per_phys = {
        p: _code_counts(reviews, set(ids[(phys[i] >= 0) & (judges >= 0) & (phys[i] != judges)]))
        for i, p in enumerate(release.roster.physicians)
    }
    ev = substantive(release.evaluator_labels)
    per_judge = {
        e: _code_counts(reviews, set(ids[(ev[i] >= 0) & (cons >= 0) & (ev[i] != cons)]))
        for i, e in enumerate(release.roster.evaluator_ids)
    }
    return per_phys, per_judge


def panel_report(
    release: Release,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    outlier_resamples: int = OUTLIER_RESAMPLES,
) -> PanelReport:
    """Every physician's figures on ``release`` (module docstring of :mod:`.raters`); the
    outlier rule on ``outlier_resamples`` core resamples of its own stream."""
    roster = release.roster
    slots = roster.student_ids
    core = release.is_core
    if not core.any():
        raise ValueError("the release has no core items; the panel report needs them")
    n_core = int(core.sum())
    labels = release.physician_labels
    core_labels = labels[:, core]
    w_core = question_weights(n_core, resamples, seed, STREAM_CORE)
    w_tail = question_weights(n_core, outlier_resamples, seed, STREAM_OUTLIER)
    ext = ~core
    w_ext = question_weights(int(ext.sum()), resamples, seed, STREAM_PANEL_EXTENSION)
    refs = loo_references(core_labels)
    adj = roster.physicians.index(roster.adjudicator)
    primary = tuple(i for i, p in enumerate(roster.physicians) if p != roster.adjudicator)
    ext_labels = labels[:, ext]
    partners = partner_references(ext_labels, primary)
    adj_ref = substantive(ext_labels[adj])
    abst = tier_abstention(labels, release.tier)
    rerated = sorted(
        set(release.ratings.loc[release.ratings["round"] == vocab.RERATING, "question_id"])
    )
    w_re = question_weights(len(rerated), resamples, seed, STREAM_RERATING) if rerated else None
    re_index = {q: i for i, q in enumerate(rerated)}
    level = adjusted_level(len(roster.physicians))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        core_agr = [agreement(core_labels[p], refs[p], slots, w_core) for p in range(len(labels))]
        tail_agr = per_rater(core_labels, refs, slots, w_tail)  # 20,000 resamples at once
        ceiling = leave_one_out(core_labels, slots, w_core)
        f_all, f_all_reps = panel_fleiss(core_labels, w_core)
        fleiss = Estimate.from_replicates(f_all, f_all_reps)
        raters = []
        for p, name in enumerate(roster.physicians):
            is_adj = p == adj
            rest = np.delete(core_labels, p, axis=0)
            f_wo, f_wo_reps = panel_fleiss(rest, w_core)
            gap, bounds = kappa_gap(tail_agr, p, level)
            tail = (1.0 - level) / 2.0
            mc_se = (
                (math.nan, math.nan)
                if gap.replicates is None
                else (
                    quantile_mc_se(gap.replicates, tail),
                    quantile_mc_se(gap.replicates, 1.0 - tail),
                )
            )
            first, again, qids, slot_idx = _rerating_pairs(release, name)
            intra = (
                intra_rater(first, again, [re_index[q] for q in qids], slot_idx, w_re)
                if len(first) and w_re is not None
                else None
            )
            raters.append(
                Rater(
                    physician=name,
                    adjudicator=is_adj,
                    core=core_agr[p],
                    partner=None if is_adj else agreement(ext_labels[p], partners[p], slots, w_ext),
                    versus_adjudicator=None
                    if is_adj
                    else agreement(ext_labels[p], adj_ref, slots, w_ext),
                    abstention=abst[p],
                    fleiss_with=fleiss,
                    fleiss_without=Estimate.from_replicates(f_wo, f_wo_reps),
                    intra=intra,
                    gap=gap,
                    gap_bounds=bounds,
                    verdict=outlier_verdict(*bounds),
                    gap_bounds_mc_se=mc_se,
                )
            )
    per_phys, per_judge = _review_codes(release)
    return PanelReport(
        raters=tuple(raters),
        ceiling=ceiling,
        fleiss=fleiss,
        level=level,
        resamples=resamples,
        seed=seed,
        n_core=n_core,
        n_rerated=len(rerated),
        review_codes=per_phys,
        judge_review_codes=per_judge,
        synthetic=release.synthetic,
        outlier_resamples=outlier_resamples,
    )


__all__ = ["PanelReport", "panel_report"]
