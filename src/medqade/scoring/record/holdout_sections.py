"""The typed ``contamination`` section of a judge record scored with held-out labels (issue 35).

A build with a hold-out publishes most items' consensus and keeps the rest private; scored with
the private part (``--private-labels``), a judge record gets the check of
:mod:`medqade.measures.holdout_drop`: its agreement on the public vs the held-out items beside
the physicians' own difference, once per scope the judge covers (``core``: the 200 questions
every physician rated; ``all``), each with a stratified permutation p value, and one combined p
value (Bonferroni over the scopes). :mod:`medqade.scoring.metrics.holdout_check` builds it. A
record scored without held-out labels has no such section (``None``, no key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from medqade.scoring.record.json_object import PAIR, JsonObject, JsonView, convert

Pair = tuple[float | None, ...]


@dataclass(frozen=True, kw_only=True)
class ContaminationScope(JsonObject):
    """One scope of the check: the judge's and the physicians' kappa on the public and on the
    held-out items, each one's drop (public minus held-out), the judge's excess drop, its
    one-sided lower bound, the permutation p value and the item counts."""

    scope: str | None = None
    judge_public: float | None = None
    judge_public_ci: Pair | None = field(default=None, metadata=PAIR)
    judge_held_out: float | None = None
    judge_held_out_ci: Pair | None = field(default=None, metadata=PAIR)
    judge_drop: float | None = None
    judge_drop_ci: Pair | None = field(default=None, metadata=PAIR)
    physicians_public: float | None = None
    physicians_public_ci: Pair | None = field(default=None, metadata=PAIR)
    physicians_held_out: float | None = None
    physicians_held_out_ci: Pair | None = field(default=None, metadata=PAIR)
    physicians_drop: float | None = None
    physicians_drop_ci: Pair | None = field(default=None, metadata=PAIR)
    excess: float | None = None
    excess_ci: Pair | None = field(default=None, metadata=PAIR)
    excess_lower: float | None = None
    level: float | None = None
    p_value: float | None = None
    n_splits: int | None = None
    alpha: float | None = None
    contamination: bool | None = None
    n_public: int | None = None
    n_held_out: int | None = None


def _scopes() -> Mapping[str, Any]:
    return convert(
        lambda v: tuple(ContaminationScope.from_json(x) for x in v),
        lambda v: [x.to_json() for x in v],
    )


@dataclass(frozen=True, kw_only=True)
class ContaminationCheck(JsonView):
    """``contamination``: the check on every scope the judge covers and the record's one
    decision (``flagged``: the combined p value is at most ``alpha``)."""

    rule: str | None = None
    p_value: float | None = None
    """The smallest scope p value times the number of scopes, at most 1 (Bonferroni)."""
    alpha: float | None = None
    flagged: bool | None = None
    n_held_out: int | None = None
    scopes: tuple[ContaminationScope, ...] | None = field(default=None, metadata=_scopes())

    def scope(self, name: str) -> ContaminationScope | None:
        """The block of ``name`` (``core`` or ``all``); ``None`` where the judge has none."""
        return next((s for s in self.scopes or () if s.scope == name), None)


__all__ = ["ContaminationCheck", "ContaminationScope"]
