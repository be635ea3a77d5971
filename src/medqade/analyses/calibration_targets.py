"""The rows of the calibration table (:mod:`medqade.analyses.calibration`): :class:`Target`,
one finding with the paper's figure, this release's value and the accepted range; the ways a
range is given (:func:`near`, :func:`within`, :func:`exact`, :func:`holds`), the helpers the
rows share, and the plain-text table (:func:`format_table`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from medqade import stats

GEMINI_3 = "gemini-3-flash-preview"
GEMINI_25 = "gemini-2.5-flash"
FLASH_LITE = "gemini-2.5-flash-lite"
GPT_MINI = "gpt-5.4-mini"
GPT_NANO = "gpt-5-nano"
GEMMA_4B = "gemma3:4b"
QWEN = "qwen3:4b"


@dataclass(frozen=True)
class Target:
    """One finding: the paper's figure, this release's value and the accepted range.

    ``unit`` says how to print the numbers: ``number``, ``percent``, ``count`` or ``holds``
    (a statement: value 1.0 when it holds, 0.0 when not; ``note`` says what was found).
    """

    section: str
    quantity: str
    paper: float
    value: float
    low: float
    high: float
    basis: str
    unit: str = "number"
    note: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.low <= self.value <= self.high)


def near(
    section: str, quantity: str, paper: float, tolerance: float, value: float, unit: str = "number"
) -> Target:
    """``paper`` plus or minus ``tolerance``."""
    shown = f"{tolerance * 100:g} pt" if unit == "percent" else f"{tolerance:g}"
    return Target(
        section, quantity, paper, value, paper - tolerance, paper + tolerance, f"+/- {shown}", unit
    )


def within(
    section: str,
    quantity: str,
    paper: float,
    interval: tuple[float, float],
    value: float,
    basis: str,
    unit: str = "number",
) -> Target:
    """Inside a published (or derived) interval."""
    return Target(section, quantity, paper, value, interval[0], interval[1], basis, unit)


def exact(section: str, quantity: str, paper: float, value: float) -> Target:
    """Exactly ``paper`` (a count of the design)."""
    return Target(section, quantity, paper, value, paper, paper, "exact", "count")


def holds(section: str, statement: str, ok: bool, note: str = "") -> Target:
    """A statement that holds or not (``note``: what was found)."""
    return Target(section, statement, 1.0, float(ok), 1.0, 1.0, "holds", "holds", note)


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson interval of a published count ``k / n``."""
    low, high = stats.wilson_interval(float(k), float(n))
    return float(low), float(high)


def argmax(values: dict[str, float]) -> str:
    """The key of the largest value."""
    return max(values, key=lambda k: values[k])


def argmin(values: dict[str, float]) -> str:
    """The key of the smallest value."""
    return min(values, key=lambda k: values[k])


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two closed intervals share a point."""
    return a[0] <= b[1] and b[0] <= a[1]


def _shown(value: float, unit: str) -> str:
    if unit == "holds":
        return "holds" if value == 1.0 else "fails"
    if math.isnan(value):
        return "-"
    if unit == "percent":
        return f"{value * 100:.2f}%"
    if unit == "count":
        return f"{value:g}"
    return f"{value:.4g}"


def _range(row: Target) -> str:
    if row.unit == "holds":
        return "holds"
    if row.basis.startswith("+/-") or row.basis == "exact":
        return row.basis
    return f"{_shown(row.low, row.unit)} to {_shown(row.high, row.unit)} ({row.basis})"


def format_table(rows: Sequence[Target]) -> str:
    """A plain-text table: section, finding, paper, this release, accepted range, ok."""
    body = [
        (
            r.section,
            r.quantity + (f" [{r.note}]" if r.note and not r.ok else ""),
            "holds" if r.unit == "holds" else _shown(r.paper, r.unit),
            _shown(r.value, r.unit),
            _range(r),
            "yes" if r.ok else "NO",
        )
        for r in rows
    ]
    head = ("section", "finding", "paper", "value", "accepted", "ok")
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    return "\n".join(_line(x, widths) for x in [head, *body])


def _line(cells: Iterable[str], widths: Sequence[int]) -> str:
    c = list(cells)
    return "  ".join(
        [
            c[0].ljust(widths[0]),
            c[1].ljust(widths[1]),
            *(x.rjust(w) for x, w in zip(c[2:5], widths[2:5], strict=True)),
            c[5],
        ]
    )
