"""Plain-text lines for a score record's ``behaviour`` block (``medqade score``, ``compare``).

Reads the JSON block written by :func:`medqade.measures.behaviour.behaviour`; a record without
it (older) gives no lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _num(x: Any, digits: int = 3) -> str:
    return "n/a" if not isinstance(x, (int, float)) else f"{x:.{digits}f}"


def _pct(x: Any) -> str:
    return "n/a" if not isinstance(x, (int, float)) else f"{100 * x:.1f}%"


def _ci(pair: Any, fmt: Any = _num) -> str:
    if not pair or not isinstance(pair[0], (int, float)):
        return ""
    return f" [{fmt(pair[0])}, {fmt(pair[1])}]"


def _p(p: Any) -> str:
    if not isinstance(p, (int, float)):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def summary_lines(record: Mapping[str, Any]) -> list[str]:
    """The behaviour of a judge record in a few lines (none without ``behaviour``)."""
    b = record.get("behaviour")
    if not isinstance(b, Mapping):
        return []
    lines = []
    pos = b.get("position")
    if pos:
        shares = ", ".join(_pct(x) for x in pos["richtig"])
        lines.append(
            f"position bias ({b['split']}): Richtig by position 1-5 {shares}; chi2 "
            f"{_num(pos['chi2'], 2)}, Cramér's V {_num(pos['cramers_v'])}, permutation p "
            f"{_p(pos['p_value'])}"
        )
    caution = b.get("caution")
    if caution:
        j, ph = caution["judge"], caution["physicians"]
        lines.append(
            "caution (core, abstention slope per tier): judge "
            f"{_pct(j['slope'])}{_ci(j['slope_ci'], _pct)}, physicians "
            f"{_pct(ph['slope'])}{_ci(ph['slope_ci'], _pct)}; judge - physicians "
            f"{_pct(caution['slope_difference'])}{_ci(caution['slope_difference_ci'], _pct)}"
        )
    cons = b.get("consistency")
    if cons:
        line = (
            f"self-consistency ({len(cons['runs'])} runs): intra-rater kappa "
            f"{_num(cons['kappa'])}{_ci(cons['kappa_ci'])}, PA {_pct(cons['pa'])}; label flips "
            f"when the position moved {_pct(cons['flip_rate_moved'])}"
            f"{_ci(cons['flip_rate_moved_ci'], _pct)}"
        )
        re, ph = cons.get("rerated"), cons.get("physicians_rerated")
        if re and ph:
            line += (
                f"; on the re-rated questions judge {_num(re['kappa'])}{_ci(re['kappa_ci'])} "
                f"vs physicians {_num(ph['kappa'])}{_ci(ph['kappa_ci'])}"
            )
        lines.append(line)
    cost = b.get("cost")
    if cost:
        line = (
            f"tokens per 1,000 answers: {_num(cost['input_tokens_per_1000'], 0)} in, "
            f"{_num(cost['output_tokens_per_1000'], 0)} out"
        )
        if isinstance(cost.get("eur_per_1000"), (int, float)):
            line += f"; EUR {cost['eur_per_1000']:.4f} per 1,000 answers"
        lines.append(line)
    for dim, groups in (b.get("breakdowns") or {}).items():
        if dim in ("tier", "lexical"):
            continue  # shown with the tiers and strata above
        ranked = sorted(
            ((g, v["kappa"]) for g, v in groups.items() if v and isinstance(v["kappa"], float)),
            key=lambda x: x[1],
        )
        if ranked:
            lines.append(
                f"kappa by {dim}: lowest {ranked[0][0]} {_num(ranked[0][1])}, highest "
                f"{ranked[-1][0]} {_num(ranked[-1][1])} ({len(ranked)} groups)"
            )
    return lines
