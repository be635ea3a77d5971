"""The verdict of every paper evaluator against the physicians (supplementary table S6).

The same computation as the records of ``medqade score``, ``leaderboard``, ``compare``, the
Space and the Hub entry (:func:`medqade.measures.verdicts.judge_headline`), with the same
question and physician resamples, so the numbers and the one verdict word are equal: the core
and extension like-for-like differences with two-way intervals (questions and physicians),
the headline ``d`` they decide by the stated rule, and the alternative annotator test on the
core as evidence. An evaluator's labels are scored on every answer slot (a missing judgment is
a missing label, i.e. a disagreement where the physician rated the answer), as the paper rows
of the leaderboard are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import (
    DEFAULT_MARGIN,
    RULE,
    VERDICT_METRIC,
    AltTest,
    Design,
    Headline,
    Weights,
    check_margin,
    extension_pairs,
    judge_headline,
    physicians_in_place,
)
from medqade.measures import alt_test as measure_alt_test


@dataclass(frozen=True)
class JudgeVerdict:
    """One evaluator's verdict: the headline (with its core and extension designs) and the
    alt-test."""

    evaluator: str
    headline: Headline
    alt_test: AltTest

    @property
    def core(self) -> Design | None:
        return self.headline.core

    @property
    def extension(self) -> Design | None:
        return self.headline.extension

    def to_dict(self) -> dict[str, Any]:
        """The keys of a judge record: ``physician_difference`` (without its ``rated``
        entry), ``verdict``, ``headline``, ``extension_difference`` and ``alt_test``."""
        core, ext = self.headline.core, self.headline.extension
        return {
            "physician_difference": None if core is None else core.to_dict(),
            "verdict": self.headline.verdict,
            "headline": self.headline.to_dict(),
            "extension_difference": None if ext is None else ext.to_dict(),
            "alt_test": self.alt_test.to_dict(),
        }


@dataclass(frozen=True)
class PhysicianVerdicts:
    """The verdicts of every paper evaluator, roster order."""

    margin: float
    evaluators: Mapping[str, JudgeVerdict]
    n_core: int
    n_extension: int
    n_physicians: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "margin": self.margin,
            "metric": VERDICT_METRIC,
            "rule": RULE,
            "n_core": self.n_core,
            "n_extension": self.n_extension,
            "n_physicians": self.n_physicians,
            "evaluators": {e: v.to_dict() for e, v in self.evaluators.items()},
        }


def physician_verdicts(
    release: Release,
    core_weights: Weights | None,
    all_weights: Weights | None,
    panel_weights: Weights | None,
    margin: float = DEFAULT_MARGIN,
) -> PhysicianVerdicts:
    """Every evaluator's verdict against the physicians (module docstring).

    ``core_weights`` (R, core items) are the core question resamples (stream
    ``STREAM_CORE``), ``all_weights`` (R, all items) those of all items (``STREAM_ALL``),
    ``panel_weights`` (R, physicians) the physician resamples (``STREAM_PHYSICIANS``), as in
    judge scoring.
    """
    margin = check_margin(margin)
    roster = release.roster
    slots = roster.student_ids
    core = np.asarray(release.is_core, dtype=bool)
    phys_core = release.physician_labels[:, core]
    physicians = physicians_in_place(phys_core, slots, core_weights)
    pairs = extension_pairs(
        release.physician_labels, roster.physicians.index(roster.adjudicator), core
    )
    present = np.ones((release.n_items, vocab.N_SLOTS), dtype=bool)
    resamples = None
    if core_weights is not None and all_weights is not None and panel_weights is not None:
        resamples = (core_weights, all_weights, panel_weights)
    out: dict[str, JudgeVerdict] = {}
    for k, ev in enumerate(roster.evaluator_ids):
        labels = release.evaluator_labels[k]
        out[ev] = JudgeVerdict(
            evaluator=ev,
            headline=judge_headline(
                labels,
                present,
                core,
                release.physician_labels,
                pairs,
                slots,
                resamples,
                margin,
                physicians,
            ),
            alt_test=measure_alt_test(labels[core], phys_core),
        )
    return PhysicianVerdicts(
        margin=margin,
        evaluators=out,
        n_core=int(core.sum()),
        n_extension=int(pairs.items.sum()),
        n_physicians=int(phys_core.shape[0]),
    )
