"""Leaderboard columns from a judge record's ``behaviour`` block (NaN where absent).

=================================== ============================================================
caution_slope                       the judge's abstention slope per difficulty tier (core)
caution_vs_physicians, _low, _high  that slope minus the physicians' mean slope, paired 95% CI
                                    (negative: less cautious on hard items than the physicians);
                                    never part of kappa, the verdict or the rank
caution_sparsest_tier               the tier with the fewest questions behind the judge's slope,
                                    as text (``tier 4: 11 questions``); empty when unknown
self_kappa, self_kappa_low, _high   intra-rater kappa of the judge across its runs (two or more
                                    runs with reshuffled orders)
physicians_self_kappa               the physicians' intra-rater kappa from their re-ratings
position_p                          permutation p-value of the position effect
tokens_per_1000                     input + output tokens per 1,000 judged answers
eur_per_1000                        cost per 1,000 answers at the prices given to ``score``
=================================== ============================================================

A record without ``behaviour`` (older) gets NaN in every number column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

BEHAVIOUR_COLUMNS: Final = (
    "caution_slope",
    "caution_vs_physicians",
    "caution_vs_physicians_low",
    "caution_vs_physicians_high",
    "caution_sparsest_tier",
    "self_kappa",
    "self_kappa_low",
    "self_kappa_high",
    "physicians_self_kappa",
    "position_p",
    "tokens_per_1000",
    "eur_per_1000",
)


def _num(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return math.nan
    return float(x)


def _pair(x: Any) -> tuple[float, float]:
    if isinstance(x, list | tuple) and len(x) == 2:
        return _num(x[0]), _num(x[1])
    return math.nan, math.nan


def _get(block: Any, key: str) -> Any:
    return block.get(key) if isinstance(block, Mapping) else None


def sparsest_tier(caution: Any) -> str:
    """``"tier 4: 11 questions"``: the tier of the judge's caution slope with the fewest
    questions (the first such), empty without per-tier counts (older records)."""
    questions = _get(_get(caution, "judge"), "questions_by_tier")
    tiers = _get(caution, "tiers")
    if not isinstance(questions, list) or not questions:
        return ""
    if not isinstance(tiers, list) or len(tiers) != len(questions):
        tiers = list(range(1, len(questions) + 1))
    k = min(range(len(questions)), key=lambda i: questions[i])
    return f"tier {tiers[k]}: {questions[k]} questions"


def behaviour_columns(record: Any) -> dict[str, float | str]:
    """The :data:`BEHAVIOUR_COLUMNS` of one judge record (its JSON object or a typed
    :class:`~medqade.scoring.record.score_record.ScoreRecord`)."""
    b = record.get("behaviour") if isinstance(record, Mapping) else record.behaviour
    caution = _get(b, "caution")
    cons = _get(b, "consistency")
    cost = _get(b, "cost")
    c_low, c_high = _pair(_get(caution, "slope_difference_ci"))
    s_low, s_high = _pair(_get(cons, "kappa_ci"))
    tokens = [_num(_get(cost, f"{k}_tokens_per_1000")) for k in ("input", "output")]
    defined = [t for t in tokens if not math.isnan(t)]
    return {
        "caution_slope": _num(_get(_get(caution, "judge"), "slope")),
        "caution_vs_physicians": _num(_get(caution, "slope_difference")),
        "caution_vs_physicians_low": c_low,
        "caution_vs_physicians_high": c_high,
        "caution_sparsest_tier": sparsest_tier(caution),
        "self_kappa": _num(_get(cons, "kappa")),
        "self_kappa_low": s_low,
        "self_kappa_high": s_high,
        "physicians_self_kappa": _num(_get(_get(cons, "physicians_rerated"), "kappa")),
        "position_p": _num(_get(_get(b, "position"), "p_value")),
        "tokens_per_1000": sum(defined) if defined else math.nan,
        "eur_per_1000": _num(_get(cost, "eur_per_1000")),
    }
