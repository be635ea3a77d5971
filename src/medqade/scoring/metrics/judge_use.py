"""What a judge is used for: its ranking fidelity, length bias and output shares, as record
sections (:mod:`medqade.scoring.record.use_sections`).

All three are computed on the record's *view* (all items when the submission covers an
extension item, else the core) with the view's question resamples: the weights of the record's
agreement block (:func:`medqade.scoring.metrics.context.float_weights`, the same resamples and
seed as its kappa), so every interval is paired with the headline's.

- ``ranking_fidelity`` (:func:`medqade.measures.fidelity.ranking_fidelity`): the judge's labels
  (a slot without a row is missing, so not ``Richtig``) against the physician consensus;
- ``length_bias`` (:func:`medqade.measures.answer_length.length_bias`): answer lengths are the
  characters of the release's answer texts (an answer without text is left out), the
  physicians' side their own labels on the same answers;
- ``output_shares`` (:func:`medqade.measures.judge_outputs.output_shares`): the ``invalid``
  mask is the submission's unparseable replies
  (:attr:`medqade.scoring.intake.parsed.Submission.invalid`); without one (a plain label
  file) no answer is invalid and the section says ``invalid_recorded: false``.

And where it fails (:func:`where_it_fails`, ``agreement_cells``): on the core, with the core's
question resamples and the verdict's physician resamples
(:func:`medqade.measures.agreement_cells.cell_agreement`), the judge's kappa in each physician's
place per specialty (every categorical column of the questions table) and difficulty tier,
beside the physicians' own; ``None`` for a judge without a row on the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.measures import LEXICAL, cell_agreement, cell_physicians, dimensions
from medqade.measures import length_bias as measure_length_bias
from medqade.measures import output_shares as measure_output_shares
from medqade.measures import ranking_fidelity as measure_ranking_fidelity
from medqade.scoring.metrics import context
from medqade.scoring.record import AgreementCells, LengthBias, OutputShares, RankingFidelity

if TYPE_CHECKING:
    from medqade.dataset.release import Release


@dataclass(frozen=True)
class JudgeUse:
    """The three sections (``length_bias`` ``None`` when no answer of the view has a text)."""

    ranking_fidelity: RankingFidelity
    length_bias: LengthBias | None
    output_shares: OutputShares


def answer_lengths(release: Release) -> npt.NDArray[np.float64]:
    """Characters of every answer text (items, slots); NaN where an answer has no text."""

    def compute() -> npt.NDArray[np.float64]:
        text = release.answer_text
        out = np.array(
            [len(a) if isinstance(a, str) else np.nan for a in text.ravel()], dtype=np.float64
        ).reshape(text.shape)
        out.setflags(write=False)
        return out

    value: npt.NDArray[np.float64] = context.memo(release, "answer-lengths", compute)
    return value


def judge_use(
    release: Release,
    labels: npt.NDArray[Any],
    present: npt.NDArray[np.bool_],
    invalid: npt.NDArray[np.bool_] | None,
    items: npt.NDArray[np.bool_],
    weights: npt.NDArray[np.float64] | None,
    split: str,
) -> JudgeUse:
    """The sections of the judge's ``labels`` (items, 5) with rows ``present`` and unparseable
    replies ``invalid`` (``None``: not recorded) on the view ``items`` (named ``split``) with
    its question ``weights`` (R, view items; ``None``: no intervals)."""
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)[items]
    reference = release.consensus[items]
    students = tuple(release.roster.student_ids)
    fidelity = measure_ranking_fidelity(shown, reference, students, weights)
    lengths = answer_lengths(release)[items]
    length = None
    if np.isfinite(lengths).any():
        measured = measure_length_bias(
            shown, release.physician_labels[:, items], reference, lengths, weights
        )
        length = LengthBias.from_json({"split": split, **measured.to_json()})
    bad = np.zeros(shown.shape, dtype=bool) if invalid is None else (invalid & present)[items]
    shares = measure_output_shares(shown, bad, weights)
    return JudgeUse(
        ranking_fidelity=RankingFidelity.from_json({"split": split, **fidelity.to_json()}),
        length_bias=length,
        output_shares=OutputShares.from_json(
            {"split": split, "invalid_recorded": invalid is not None, **shares.to_json()}
        ),
    )


def where_it_fails(
    release: Release,
    labels: npt.NDArray[Any],
    present: npt.NDArray[np.bool_],
    resamples: int,
    seed: int,
) -> AgreementCells | None:
    """The ``agreement_cells`` section (module docstring) of the judge's ``labels`` (items, 5)
    with rows ``present``; ``None`` without a row on the core."""
    core = context.mask(release, context.CORE)
    if not present[core].any():
        return None
    shown = np.where(present, labels, vocab.MISSING_CODE).astype(np.int8)[core]
    dims = dimensions(
        release.questions[core].reset_index(drop=True), release.tier[core], release.lexical[core]
    )
    dims.pop(LEXICAL)  # a stratum of the answers, not of where the questions come from
    slots = tuple(release.roster.student_ids)
    w = context.float_weights(release, context.CORE, resamples, seed)
    physicians = context.memo(  # the physicians' side of every cell: once per release
        release,
        f"cell-physicians:{resamples}:{seed}",
        lambda: cell_physicians(release.physician_labels[:, core], dims, slots, w),
    )
    found = cell_agreement(
        shown,
        present[core],
        release.physician_labels[:, core],
        dims,
        slots,
        w,
        context.panel_weights(release, resamples, seed),
        physicians=physicians,
    )
    return AgreementCells.from_json(found.to_json())
