"""Clinical caution: does a rater abstain more where the questions are harder?

On the core (every physician rated every answer there), per rater and difficulty tier 1-4:
the **abstention rate** = abstentions / answers rated (a physician: the answers with a rating;
a judge: the answers it has a row for; a missing label is not an abstention), and its
**slope** across the tiers = the least-squares slope of the four tier rates on the tier number
(``sum_t (t - 2.5) r_t / sum_t (t - 2.5)^2``, unweighted over the tiers; undefined when a tier
has no answers), in rate per tier. The physicians' value is the mean over physicians of each
physician's rate (slope); the **contrast** is the judge's slope minus the physicians' mean
slope (negative: less cautious on hard items than the physicians). Every figure has a 95%
percentile interval from the core question resamples, paired (the same resamples for the judge
and every physician).

Each rate rests on the questions of its tier, and the core's tiers are unequal (on the default
release 90, 67, 32 and 11 questions): a tier's rate from a handful of questions moves the slope
by a lot. So every :class:`TierCaution` carries its **questions per tier** (the questions of the
tier the rater rated at least one answer of), and :attr:`Caution.warning` says so in words when
the judge's sparsest tier has fewer than :data:`MIN_TIER_QUESTIONS` questions
("tier 4: 11 questions").

Caution is reported beside agreement and never enters it: an abstention still counts as a
disagreement in the headline kappa, PA, verdict and rank (docs/statistics.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures.estimate import Estimate, FloatArray, ratio

_CENTRED = np.array(vocab.TIERS, dtype=np.float64) - np.mean(vocab.TIERS)
TIER_SLOPE: Final = _CENTRED / float(np.sum(_CENTRED**2))
"""Contrast weights: ``TIER_SLOPE @ rates`` is the least-squares slope on the tier number."""
MIN_TIER_QUESTIONS: Final = 20
"""Below this many questions in a tier, :attr:`Caution.warning` says the slope rests on few."""


@dataclass(frozen=True, eq=False)
class TierCaution:
    """One rater's (or the physicians' mean) abstention by tier, its slope, and the number of
    questions each tier's rate rests on."""

    by_tier: tuple[Estimate, ...]
    slope: Estimate
    questions: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "by_tier": [e.value for e in self.by_tier],
            "by_tier_ci": [list(e.ci) for e in self.by_tier],
            **self.slope.to_dict("slope"),
            "questions_by_tier": list(self.questions),
        }


def sparse_tiers(questions: tuple[int, ...], minimum: int = MIN_TIER_QUESTIONS) -> str | None:
    """A warning naming every tier with fewer than ``minimum`` questions
    (``"tier 4: 11 questions (fewer than 20): ..."``), ``None`` when there is none."""
    few = [
        f"tier {t}: {n} questions"
        for t, n in zip(vocab.TIERS, questions, strict=True)
        if n < minimum
    ]
    if not few:
        return None
    return (
        f"{'; '.join(few)} (fewer than {minimum}): the slope leans on the rates of few "
        "questions; read its interval, not its value"
    )


@dataclass(frozen=True, eq=False)
class Caution:
    """A judge's caution beside the physicians' (module docstring)."""

    judge: TierCaution
    physicians: TierCaution
    per_physician: dict[str, TierCaution]
    difference: Estimate
    n_items: int

    @property
    def warning(self) -> str | None:
        """:func:`sparse_tiers` of the judge's questions per tier."""
        return sparse_tiers(self.judge.questions)

    def to_json(self) -> dict[str, Any]:
        return {
            "split": "core",
            "tiers": list(vocab.TIERS),
            "judge": self.judge.to_json(),
            "physicians": self.physicians.to_json(),
            "per_physician": {p: c.to_json() for p, c in self.per_physician.items()},
            **self.difference.to_dict("slope_difference"),
            "n_items": self.n_items,
            "min_tier_questions": MIN_TIER_QUESTIONS,
            "warning": self.warning,
        }


def tier_questions(rated: npt.ArrayLike, tiers: npt.ArrayLike) -> tuple[int, ...]:
    """Per tier, the questions (rows of ``rated`` (items, 5)) with at least one rated answer."""
    any_rated = np.asarray(rated, dtype=bool).any(axis=-1)
    t = np.asarray(tiers)
    return tuple(int((any_rated & (t == tier)).sum()) for tier in vocab.TIERS)


def tier_counts(
    abstained: npt.ArrayLike, rated: npt.ArrayLike, tiers: npt.ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Per question and tier (items, 4): abstentions and rated answers of the question when it
    is of that tier (zero columns elsewhere)."""
    a = np.asarray(abstained, dtype=np.float64).sum(axis=-1)
    n = np.asarray(rated, dtype=np.float64).sum(axis=-1)
    onehot = np.asarray(tiers)[:, None] == np.asarray(vocab.TIERS)[None, :]
    return a[:, None] * onehot, n[:, None] * onehot


def tier_caution(
    abstained: npt.ArrayLike,
    rated: npt.ArrayLike,
    tiers: npt.ArrayLike,
    weights: npt.ArrayLike | None,
) -> tuple[FloatArray, FloatArray | None]:
    """Tier rates (4,) and their replicates (R, 4) under count weights (R, items)."""
    a, n = tier_counts(abstained, rated, tiers)
    value = ratio(a.sum(axis=0), n.sum(axis=0))
    if weights is None:
        return value, None
    w = np.asarray(weights, dtype=np.float64)
    return value, ratio(w @ a, w @ n)


def _summary(value: FloatArray, reps: FloatArray | None, questions: tuple[int, ...]) -> TierCaution:
    by_tier = tuple(
        Estimate.from_replicates(float(value[t]), None if reps is None else reps[:, t])
        for t in range(len(vocab.TIERS))
    )
    slope = Estimate.from_replicates(
        float(TIER_SLOPE @ value), None if reps is None else reps @ TIER_SLOPE
    )
    return TierCaution(by_tier, slope, questions)


def caution(
    judge_labels: npt.ArrayLike,
    judge_present: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    physicians: tuple[str, ...],
    tiers: npt.ArrayLike,
    weights: npt.ArrayLike | None,
) -> Caution | None:
    """Caution of a judge (items, 5) and of every physician (P, items, 5) on the same items
    (the core) with tiers (items,) and count weights (R, items); ``None`` when the judge has
    no row there."""
    lab = np.asarray(judge_labels)
    present = np.asarray(judge_present, dtype=bool)
    if not present.any():
        return None
    phys = np.asarray(physician_labels)
    j_val, j_reps = tier_caution(present & (lab == vocab.ABSTAIN_CODE), present, tiers, weights)
    values, replicates = [], []
    per = {}
    panel_rated = np.zeros(phys.shape[1:], dtype=bool)
    for p, name in enumerate(physicians):
        v, r = tier_caution(phys[p] == vocab.ABSTAIN_CODE, phys[p] >= 0, tiers, weights)
        values.append(v)
        replicates.append(r)
        per[name] = _summary(v, r, tier_questions(phys[p] >= 0, tiers))
        panel_rated |= phys[p] >= 0
    p_val = np.mean(values, axis=0)
    p_reps = None
    if j_reps is not None:
        p_reps = np.mean([r for r in replicates if r is not None], axis=0)
    judge = _summary(j_val, j_reps, tier_questions(present, tiers))
    panel = _summary(p_val, p_reps, tier_questions(panel_rated, tiers))
    diff_reps = None
    if j_reps is not None and p_reps is not None:
        diff_reps = (j_reps - p_reps) @ TIER_SLOPE
    difference = Estimate.from_replicates(judge.slope.value - panel.slope.value, diff_reps)
    return Caution(judge, panel, per, difference, int(present.any(axis=1).sum()))
