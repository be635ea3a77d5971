"""The typed sections of a judge record on what a judge is used for (issue 37): whether it
ranks the student models as the physicians do (``ranking_fidelity``), whether long answers
sway it (``length_bias``) and what its outputs were (``output_shares``: labels, abstentions,
unparseable replies, nothing), and where it fails (``agreement_cells``: kappa per specialty and
difficulty tier beside the physicians').

Each is a frozen :class:`~medqade.scoring.record.json_object.JsonView` read from the block its
measure writes (:mod:`medqade.measures.fidelity`, :mod:`medqade.measures.answer_length`,
:mod:`medqade.measures.judge_outputs`) with the view it was computed on (``split``) in front;
:mod:`medqade.scoring.metrics.judge_use` builds them. A record scored before these sections
existed has none of them: they read as ``None`` and are written back without the keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from medqade.scoring.record.json_object import (
    PAIR,
    TUPLE,
    JsonObject,
    JsonView,
    convert,
    nested,
)

Pair = tuple[float | None, ...]


def _tuple_of(cls: type[JsonObject]) -> Mapping[str, Any]:
    """The metadata of a JSON array of ``cls`` objects, read as a tuple."""
    return convert(lambda v: tuple(cls.from_json(x) for x in v), lambda v: [x.to_json() for x in v])


PAIRS = convert(lambda v: tuple(tuple(p) for p in v), lambda v: [list(p) for p in v])
"""A JSON array of CI pairs (one per quartile), read as a tuple of tuples."""


# --- ranking fidelity ------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StudentFidelity(JsonObject):
    """One student model: its accuracy as the judge and as the physicians label it on the
    answers with a resolved consensus, and the judge's error (judge minus physicians)."""

    student: str | None = None
    judge: float | None = None
    judge_ci: Pair | None = field(default=None, metadata=PAIR)
    physicians: float | None = None
    physicians_ci: Pair | None = field(default=None, metadata=PAIR)
    difference: float | None = None
    difference_ci: Pair | None = field(default=None, metadata=PAIR)
    n: int | None = None
    n_unlabelled: int | None = None
    """Of the ``n`` answers, those the judge abstained on or did not label (not Richtig)."""


@dataclass(frozen=True, kw_only=True)
class RankingFidelity(JsonView):
    """``ranking_fidelity``: per student the judge's accuracy against the physicians', the
    largest absolute error and its student, Kendall's tau-b between the two orders and how
    often the judge picks the physicians' best student (:mod:`medqade.measures.fidelity`)."""

    split: str | None = None
    students: tuple[StudentFidelity, ...] | None = field(
        default=None, metadata=_tuple_of(StudentFidelity)
    )
    largest_error: float | None = None
    largest_error_ci: Pair | None = field(default=None, metadata=PAIR)
    largest_error_student: str | None = None
    kendall_tau_b: float | None = None
    kendall_tau_b_ci: Pair | None = field(default=None, metadata=PAIR)
    judge_best: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    physicians_best: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    picks_best: float | None = None
    probability_best: float | None = None
    n_items: int | None = None

    def student(self, name: str) -> StudentFidelity | None:
        """The block of the student ``name`` (``None`` when the record has none)."""
        return next((s for s in self.students or () if s.student == name), None)


# --- length bias -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class LengthRates(JsonObject):
    """One side (the judge, or the physicians' mean): Richtig rate and agreement per answer
    length quartile (shortest first) and their least-squares slopes over the quartiles."""

    richtig: tuple[float | None, ...] | None = field(default=None, metadata=TUPLE)
    richtig_ci: tuple[Pair, ...] | None = field(default=None, metadata=PAIRS)
    agreement: tuple[float | None, ...] | None = field(default=None, metadata=TUPLE)
    agreement_ci: tuple[Pair, ...] | None = field(default=None, metadata=PAIRS)
    richtig_slope: float | None = None
    richtig_slope_ci: Pair | None = field(default=None, metadata=PAIR)
    agreement_slope: float | None = None
    agreement_slope_ci: Pair | None = field(default=None, metadata=PAIR)


@dataclass(frozen=True, kw_only=True)
class LengthBias(JsonView):
    """``length_bias``: the judge's rates by answer length beside the physicians', and the
    paired effects (judge slope minus the physicians' mean slope,
    :mod:`medqade.measures.answer_length`)."""

    split: str | None = None
    quartile_cuts: tuple[float, ...] | None = field(default=None, metadata=TUPLE)
    answers_by_quartile: tuple[int, ...] | None = field(default=None, metadata=TUPLE)
    judge: LengthRates | None = field(default=None, metadata=nested(LengthRates))
    physicians: LengthRates | None = field(default=None, metadata=nested(LengthRates))
    richtig_effect: float | None = None
    richtig_effect_ci: Pair | None = field(default=None, metadata=PAIR)
    agreement_effect: float | None = None
    agreement_effect_ci: Pair | None = field(default=None, metadata=PAIR)
    n_items: int | None = None


# --- output shares ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class OutputShares(JsonView):
    """``output_shares``: every answer put to the judge as labelled, abstained, invalid (a
    reply that could not be parsed) or missing (no reply), with counts, shares and the
    parse-failure rate among replies (:mod:`medqade.measures.judge_outputs`).

    ``invalid_recorded`` says whether the submission could mark unparseable replies at all:
    ``True`` for an Inspect log or a file with an ``error`` column (``medqade judge``'s
    output), ``False`` for a plain label file, whose invalid count is 0 by construction."""

    split: str | None = None
    invalid_recorded: bool | None = None
    answers: int | None = None
    n_items: int | None = None
    labelled: int | None = None
    labelled_share: float | None = None
    labelled_share_ci: Pair | None = field(default=None, metadata=PAIR)
    abstained: int | None = None
    abstained_share: float | None = None
    abstained_share_ci: Pair | None = field(default=None, metadata=PAIR)
    invalid: int | None = None
    invalid_share: float | None = None
    invalid_share_ci: Pair | None = field(default=None, metadata=PAIR)
    missing: int | None = None
    missing_share: float | None = None
    missing_share_ci: Pair | None = field(default=None, metadata=PAIR)
    invalid_of_replies: float | None = None
    invalid_of_replies_ci: Pair | None = field(default=None, metadata=PAIR)


# --- where it fails ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class AgreementCellBlock(JsonObject):
    """One cell (a specialty, a difficulty tier): the judge's kappa in each physician's place
    beside the physicians' own, their difference, the cell's questions and the judge's answers
    there, and whether it has fewer questions than the section's ``min_questions``."""

    dimension: str | None = None
    group: str | None = None
    judge: float | None = None
    judge_ci: Pair | None = field(default=None, metadata=PAIR)
    physicians: float | None = None
    physicians_ci: Pair | None = field(default=None, metadata=PAIR)
    difference: float | None = None
    difference_ci: Pair | None = field(default=None, metadata=PAIR)
    n_questions: int | None = None
    n_answers: int | None = None
    few_questions: bool | None = None


@dataclass(frozen=True, kw_only=True)
class AgreementCells(JsonView):
    """``agreement_cells``: where the judge fails, per specialty and difficulty tier on the
    core (:mod:`medqade.measures.agreement_cells`)."""

    split: str | None = None
    metric: str | None = None
    min_questions: int | None = None
    difference_interval: str | None = None
    n_items: int | None = None
    cells: tuple[AgreementCellBlock, ...] | None = field(
        default=None, metadata=_tuple_of(AgreementCellBlock)
    )

    def dimensions(self) -> tuple[str, ...]:
        """The dimensions in the record's order."""
        return tuple(dict.fromkeys(str(c.dimension) for c in self.cells or ()))


__all__ = [
    "AgreementCellBlock",
    "AgreementCells",
    "LengthBias",
    "LengthRates",
    "OutputShares",
    "RankingFidelity",
    "StudentFidelity",
]
