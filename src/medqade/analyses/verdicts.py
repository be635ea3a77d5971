"""The verdict of every paper evaluator against the physicians (supplementary table S6).

The same computation as the records of ``medqade score``, ``leaderboard``, ``compare`` and the
Space (:mod:`medqade.measures.verdicts`), with the same resamples, so the numbers are equal:

* core: the judge takes each physician's place against the majority of the other nine, on the
  answers that physician rated; there the judge's abstentions (and missing labels) count as
  disagreements. ``d`` = judge minus physicians (kappa, PA, PABAK), mean over the ten places,
  with the paired 95% interval of the core question resamples; the margin is declared on
  kappa, the PA and PABAK margins derived at the physicians' chance agreement
  (:func:`medqade.measures.paired.margins`), and each interval gets a verdict word
  (:data:`medqade.measures.paired.VERDICTS`);
* extension: the judge in each primary physician's place against the other primary physician
  of the item, with the all-items resamples restricted to the extension items;
* the alternative annotator test on the core (:func:`medqade.measures.aat.alt_test`).

An evaluator's labels are scored on every answer slot (a missing judgment is a missing label,
i.e. a disagreement where the physician rated the answer), as the paper rows of the
leaderboard are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import aat, paired
from medqade.measures import agreement as measured
from medqade.measures.seeds import Weights
from medqade.measures.verdicts import Verdict, core_verdict, extension_pair, extension_verdict


@dataclass(frozen=True)
class JudgeVerdict:
    """One evaluator's verdicts: core, extension (``None`` without extension items with two
    primary physicians) and the alt-test."""

    evaluator: str
    core: Verdict
    extension: Verdict | None
    alt_test: aat.AltTest

    def to_dict(self) -> dict[str, Any]:
        """The keys of a judge record: ``physician_difference`` (without its ``rated``
        entry), ``verdict``, ``verdicts``, ``extension_difference`` and ``alt_test``."""
        return {
            "physician_difference": self.core.to_dict(),
            "verdict": self.core.verdict,
            "verdicts": dict(self.core.verdicts),
            "extension_difference": None if self.extension is None else self.extension.to_dict(),
            "alt_test": self.alt_test.to_dict(),
        }


@dataclass(frozen=True)
class PhysicianVerdicts:
    """The verdicts of every paper evaluator, roster order."""

    margin: float
    primary: str
    evaluators: Mapping[str, JudgeVerdict]
    n_core: int
    n_extension: int
    n_physicians: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "margin": self.margin,
            "primary": self.primary,
            "n_core": self.n_core,
            "n_extension": self.n_extension,
            "n_physicians": self.n_physicians,
            "evaluators": {e: v.to_dict() for e, v in self.evaluators.items()},
        }


def physician_verdicts(
    release: Release,
    core_weights: Weights | None,
    all_weights: Weights | None,
    margin: float = paired.DEFAULT_MARGIN,
) -> PhysicianVerdicts:
    """Every evaluator's verdict against the physicians (module docstring).

    ``core_weights`` (R, core items) are the core question resamples (stream
    ``STREAM_CORE``), ``all_weights`` (R, all items) those of all items (``STREAM_ALL``), as
    in judge scoring.
    """
    margin = paired.check_margin(margin)
    roster = release.roster
    slots = roster.student_ids
    core = np.asarray(release.is_core, dtype=bool)
    phys_core = release.physician_labels[:, core]
    physicians = measured.physicians_in_place(phys_core, slots, core_weights)
    pair = extension_pair(
        release.physician_labels, roster.physicians.index(roster.adjudicator), core
    )
    present = np.ones((release.n_items, vocab.N_SLOTS), dtype=bool)
    out: dict[str, JudgeVerdict] = {}
    for k, ev in enumerate(roster.evaluator_ids):
        labels = release.evaluator_labels[k]
        out[ev] = JudgeVerdict(
            evaluator=ev,
            core=core_verdict(
                labels[core], phys_core, slots, core_weights, margin, physicians=physicians
            ),
            extension=extension_verdict(labels, present, pair, slots, all_weights, margin),
            alt_test=aat.alt_test(labels[core], phys_core),
        )
    return PhysicianVerdicts(
        margin=margin,
        primary=paired.PRIMARY,
        evaluators=out,
        n_core=int(core.sum()),
        n_extension=int(pair[2].sum()),
        n_physicians=int(phys_core.shape[0]),
    )
