"""The typed sections of a judge record that scoring computes itself (abstention, bias,
disagreements, ensembles) and the agreement block of a measure's result.

Each is a frozen :class:`~medqade.scoring.record.json_object.JsonView`: built from the measures'
typed results by :mod:`medqade.scoring.metrics.judge` and :mod:`medqade.scoring.metrics.ensembles`,
written as JSON only with the record, and readable as the JSON object it writes (the record keeps
these sections in their stored shape, which the Space's views read by key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from medqade.measures import METRICS, Estimate
from medqade.measures import Agreement as MeasuredAgreement
from medqade.scoring.record.json_object import (
    PAIR,
    TUPLE,
    JsonObject,
    JsonView,
    convert,
    key,
    nested,
)
from medqade.scoring.record.score_record import Agreement

Pair = tuple[float | None, ...]
Counts = dict[str, dict[str, int]]
"""A confusion table: judge label -> consensus label -> count."""


def ci(estimate: Estimate) -> tuple[float, float]:
    """An estimate's 95% interval as the record's pair."""
    return (estimate.low, estimate.high)


def agreement_block(
    agr: MeasuredAgreement, *, slots: bool = True, n_items: bool = True
) -> Agreement:
    """The record block of a measure's agreement (the keys of its ``to_dict``, in order):
    macro kappa, PA, PABAK with CIs and ``n``; with ``slots`` the per-slot values, with
    ``n_items`` the group's item count when it has one."""
    values: dict[str, Any] = {}
    for name in METRICS:
        est = agr.metric(name)
        values[name] = est.value
        values[f"{name}_ci"] = ci(est)
    values["n"] = agr.n
    if slots and agr.slots:
        values["slots"] = {name: s.to_dict() for name, s in agr.slots.items()}
    if n_items and agr.n_items is not None:
        values["n_items"] = agr.n_items
    return Agreement.of(**values)


def rated_block(agr: MeasuredAgreement) -> Agreement:
    """The paper's agreement when rated (abstentions dropped pairwise), macro values."""
    return agreement_block(agr, slots=False, n_items=False)


def macro_block(agr: MeasuredAgreement | None) -> Agreement | None:
    """A group's macro values without per-slot detail (records stay small)."""
    return None if agr is None else agreement_block(agr, slots=False)


def _tuple_of(cls: type[JsonObject]) -> Mapping[str, Any]:
    """The metadata of a JSON array of ``cls`` objects, read as a tuple."""
    return convert(lambda v: tuple(cls.from_json(x) for x in v), lambda v: [x.to_json() for x in v])


@dataclass(frozen=True, kw_only=True)
class Abstention(JsonView):
    """``abstention``: the judge's abstention share, overall and per tier, over the slots
    with a row, its coverage, and on which items (``split``) with the agreement when rated."""

    global_: float | None = field(default=None, metadata=key("global"))
    by_tier: tuple[float | None, ...] | None = field(default=None, metadata=TUPLE)
    n_slots: int | None = None
    n_abstained: int | None = None
    n_missing: int | None = None
    coverage: float | None = None
    answered_share: float | None = None
    split: str | None = None
    agreement_non_abstained: Agreement | None = field(default=None, metadata=nested(Agreement))
    pooled_over: str | None = None
    """The physician row's abstention: over which ratings it is pooled."""


@dataclass(frozen=True, kw_only=True)
class Disagreements(JsonView):
    """``disagreements``: answer ids where the judge contradicts a unanimous physician
    panel, of how many such answers. On a release with held-out items those items' answers
    are counted but never listed (``held_out_not_listed``): an id beside the judge's own label
    would give their consensus away."""

    n: int | None = None
    n_unanimous: int | None = None
    rate: float | None = None
    answer_ids: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    held_out_not_listed: int | None = None


@dataclass(frozen=True, kw_only=True)
class BiasTarget(JsonObject):
    """One self or family bias of the judge on a student of its family (percent as
    proportions)."""

    student: str | None = None
    kind: str | None = None
    bias: float | None = None
    bias_ci: Pair | None = field(default=None, metadata=PAIR)
    significant: bool | None = None
    n: int | None = None


@dataclass(frozen=True, kw_only=True)
class Bias(JsonView):
    """``bias``: the judge's family, the out-of-family evaluators it is compared with, and
    one :class:`BiasTarget` per student of its family."""

    family: str | None = None
    peers: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    targets: tuple[BiasTarget, ...] | None = field(default=None, metadata=_tuple_of(BiasTarget))


@dataclass(frozen=True, kw_only=True)
class PanelSide(JsonObject):
    """One majority-vote panel: its members and its agreement with the consensus."""

    members: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    kappa: float | None = None
    kappa_ci: Pair | None = field(default=None, metadata=PAIR)
    pa: float | None = None
    pa_ci: Pair | None = field(default=None, metadata=PAIR)
    pabak: float | None = None
    pabak_ci: Pair | None = field(default=None, metadata=PAIR)


@dataclass(frozen=True, kw_only=True)
class Panel(JsonObject):
    """The best panel of one size with the judge and without it, and the kappa it adds."""

    size: int | None = None
    with_: PanelSide | None = field(default=None, metadata={**nested(PanelSide), **key("with")})
    without: PanelSide | None = field(default=None, metadata=nested(PanelSide))
    kappa_gain: float | None = None
    kappa_gain_ci: Pair | None = field(default=None, metadata=PAIR)
    helps: bool | None = None


@dataclass(frozen=True, kw_only=True)
class Ensembles(JsonView):
    """``ensembles``: the best majority-vote panels with and without the judge (core)."""

    split: str | None = None
    pool: tuple[str, ...] | None = field(default=None, metadata=TUPLE)
    selected_by: str | None = None
    rule: str | None = None
    panels: tuple[Panel, ...] | None = field(default=None, metadata=_tuple_of(Panel))


VOTE_RULE: Final = "majority after removing abstentions; all abstain = missing; tie = Falsch"
