"""Table cells of the reproduce report: one :class:`Table` in Markdown and CSV, and the cell
formats (numbers, percentages, estimates with their interval, proportions) every table uses."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

from medqade.analyses.common import Proportion
from medqade.measures import Estimate

Cell = str | int | float | None


@dataclass(frozen=True)
class Table:
    """One table in two forms: formatted Markdown cells and raw CSV values."""

    name: str
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    csv_header: tuple[str, ...]
    csv_rows: tuple[tuple[Cell, ...], ...]
    note: str = ""

    def to_markdown(self) -> str:
        lines = [f"### {self.title}", ""]
        lines.append("| " + " | ".join(self.header) + " |")
        lines.append(
            "|" + "|".join("---" if i == 0 else "---:" for i in range(len(self.header))) + "|"
        )
        lines.extend("| " + " | ".join(r) + " |" for r in self.rows)
        if self.note:
            lines.extend(["", self.note])
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(self.csv_header)
        for row in self.csv_rows:
            writer.writerow(["" if missing(v) else v for v in row])
        return buf.getvalue()


def missing(v: Cell) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# --- cell formatting ------------------------------------------------------------------------------

NA = "n/a"


def num(v: float, digits: int = 3) -> str:
    return NA if missing(v) else f"{v:.{digits}f}"


def pct(v: float, digits: int = 1) -> str:
    return NA if missing(v) else f"{100 * v:.{digits}f}%"


def est(e: Estimate, digits: int = 3) -> str:
    if missing(e.low) or missing(e.high):
        return num(e.value, digits)
    return f"{num(e.value, digits)} [{num(e.low, digits)}, {num(e.high, digits)}]"


def est_pct(e: Estimate) -> str:
    if missing(e.low) or missing(e.high):
        return pct(e.value)
    return f"{pct(e.value)} [{100 * e.low:.1f}, {100 * e.high:.1f}]"


def points(e: Estimate) -> str:
    if missing(e.value):
        return NA
    text = f"{100 * e.value:+.1f}"
    if missing(e.low) or missing(e.high):
        return text
    return f"{text} [{100 * e.low:+.1f}, {100 * e.high:+.1f}]"


def prop(p: Proportion) -> str:
    if p.n == 0:
        return NA
    return f"{pct(p.acc)} ({p.correct:,}/{p.n:,}) [{100 * p.low:.1f}, {100 * p.high:.1f}]"


def prop_csv(p: Proportion) -> tuple[Cell, ...]:
    return (p.correct, p.n, p.acc, p.low, p.high)


def est_csv(e: Estimate) -> tuple[Cell, ...]:
    return (e.value, e.low, e.high)


EST_COLUMNS = ("", "_low", "_high")
PROP_COLUMNS = ("_correct", "_n", "_acc", "_low", "_high")


def columns(names: tuple[str, ...], suffixes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{n}{s}" for n in names for s in suffixes)
