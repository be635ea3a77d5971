"""Cost: tokens per 1,000 judged answers and, given prices, euros per 1,000 answers.

From the token counts a submission declares (``usage`` in its metadata: the totals of input
and output tokens of the run, e.g. from an Inspect log or a runner's summary, over every run
it holds) and the number of answers judged (rows over all runs): tokens per 1,000 answers =
``1000 x tokens / answers``. With prices in EUR per million tokens (``medqade score --price-in
--price-out``), cost per 1,000 answers = ``(in/1000 answers x price_in + out/1000 answers x
price_out) / 1e6`` and the run's total cost the same on the totals. No interval: the counts are
what the run used, not an estimate.

:func:`pareto_frontier`: the judges that no other judge beats on both agreement and cost (a
judge *dominates* another when its kappa is at least as high and its cost at most as high, one
of them strictly), the frontier a reader picks a judge from at a given budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

PER: Final = 1000
"""Tokens and cost are given per this many judged answers."""
MTOK: Final = 1_000_000
TOKENS: Final = ("input_tokens", "output_tokens")
PRICES: Final = ("price_in", "price_out")
"""The ``usage`` keys a cost needs: the run's token totals and their prices (EUR per MTok)."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    x = float(value)
    return x if math.isfinite(x) and x >= 0 else None


@dataclass(frozen=True)
class Cost:
    """Token use and, with prices, cost per 1,000 answers (module docstring)."""

    input_tokens: float | None
    output_tokens: float | None
    answers: int
    price_in: float | None = None
    price_out: float | None = None

    def per_answers(self, tokens: float | None) -> float | None:
        return None if tokens is None or not self.answers else PER * tokens / self.answers

    @property
    def input_per_1000(self) -> float | None:
        return self.per_answers(self.input_tokens)

    @property
    def output_per_1000(self) -> float | None:
        return self.per_answers(self.output_tokens)

    def _eur(self, tin: float | None, tout: float | None) -> float | None:
        if None in (tin, tout, self.price_in, self.price_out):
            return None
        return (tin * self.price_in + tout * self.price_out) / MTOK  # type: ignore[operator]

    @property
    def eur_per_1000(self) -> float | None:
        return self._eur(self.input_per_1000, self.output_per_1000)

    @property
    def eur_total(self) -> float | None:
        return self._eur(self.input_tokens, self.output_tokens)

    def to_json(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "answers": self.answers,
            "input_tokens_per_1000": self.input_per_1000,
            "output_tokens_per_1000": self.output_per_1000,
            "price_in_eur_per_mtok": self.price_in,
            "price_out_eur_per_mtok": self.price_out,
            "eur_per_1000": self.eur_per_1000,
            "eur_total": self.eur_total,
        }


def cost(usage: Mapping[str, Any] | None, answers: int) -> Cost | None:
    """:class:`Cost` from a metadata ``usage`` object (``input_tokens``, ``output_tokens``,
    optional ``price_in`` / ``price_out`` in EUR per million tokens) and the answers judged;
    ``None`` without token counts."""
    if not usage:
        return None
    tin = _number(usage.get("input_tokens"))
    tout = _number(usage.get("output_tokens"))
    if tin is None and tout is None:
        return None
    return Cost(
        tin, tout, int(answers), _number(usage.get("price_in")), _number(usage.get("price_out"))
    )


def price_note(usage: Mapping[str, Any] | None) -> str | None:
    """Why the prices in a metadata ``usage`` object give no cost: a line for the result's
    warnings when a price is given but a token count or the other price is missing (the
    prices stay in the record); ``None`` without prices or when the cost is computed."""
    given = {key: _number((usage or {}).get(key)) for key in (*TOKENS, *PRICES)}
    if all(given[key] is None for key in PRICES):
        return None
    missing = [key for key, value in given.items() if value is None]
    if not missing:
        return None
    tokens = [key for key in missing if key in TOKENS]
    fix = "give both prices"
    if tokens:
        fix = (
            "the token counts come from an Inspect log (.eval) or a JSON Lines file's first line "
            '{"meta": {"usage": {"input_tokens": ..., "output_tokens": ...}}}'
        )
    return f"prices kept but no cost computed: the usage has no {', '.join(missing)}; {fix}"


def pareto_frontier(kappa: Sequence[float], cost: Sequence[float]) -> tuple[int, ...]:
    """The indices of the judges on the cost-agreement Pareto frontier, cheapest first.

    Judge ``i`` is on it when no judge ``j`` has ``kappa[j] >= kappa[i]`` and ``cost[j] <=
    cost[i]`` with one of the two strict; two judges at the same point are both on it (neither
    beats the other). A judge with a non-finite kappa or cost is left out. Sorted by cost, then
    index: along the frontier the cost and the kappa both rise, so its step line
    (``where="post"``) is the best kappa any judge reaches at each budget. O(n log n).
    """
    k = [float(x) for x in kappa]
    c = [float(x) for x in cost]
    if len(k) != len(c):
        raise ValueError(f"{len(k)} kappas but {len(c)} costs")
    ok = [i for i in range(len(k)) if math.isfinite(k[i]) and math.isfinite(c[i])]
    ok.sort(key=lambda i: (c[i], -k[i], i))
    out: list[int] = []
    best_cheaper = -math.inf  # the highest kappa at a strictly lower cost
    start = 0
    while start < len(ok):
        end = start
        while end < len(ok) and c[ok[end]] == c[ok[start]]:
            end += 1
        top = k[ok[start]]  # the group's highest kappa (sorted first)
        if top > best_cheaper:
            out.extend(i for i in ok[start:end] if k[i] == top)
            best_cheaper = top
        start = end
    return tuple(out)
