"""The cost-agreement Pareto frontier of judges: core kappa against cost per 1,000 answers.

One point per judge with a cost: its core kappa (abstentions as disagreements, the headline's)
with its 95% interval, against its cost per 1,000 judged answers, in EUR where at least
:data:`MIN_POINTS` judges were priced (``medqade score --price-in/--price-out``, or ``price_in``
/ ``price_out`` in a submission's ``usage``), else in tokens (input plus output) for the judges
with token counts. The judges on the Pareto frontier
(:func:`medqade.measures.pareto_frontier`: no other judge has a kappa at least as high at a
cost at most as high) are joined by a step line, the best kappa any judge reaches at each
budget, and named in the legend. The cost axis is logarithmic when the costs span a factor of
:data:`LOG_SPAN` or more.

Two sources draw the same figure (:func:`frontier_figure`):

- score records (the Space's Analysis tab; :func:`record_points`), from their ``core`` block
  and ``behaviour.cost``;
- a release (``medqade reproduce``; :func:`release_points`): the reference evaluators' core
  kappa with the cost from a ``usage`` block of the build's ``release.json`` (per evaluator id,
  the keys of a submission's ``usage``). A release without it has no cost: :func:`write_figure`
  then writes nothing and says why.

With fewer than :data:`MIN_POINTS` points there is no frontier to draw: callers show a line
saying what to submit instead of an empty figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from medqade import vocab
from medqade.analyses.figures import FORMATS, HIGHLIGHT, STYLE, WIDTH, figure_bytes, new_figure
from medqade.analyses.figures import watermark as mark_synthetic
from medqade.files import atomic
from medqade.measures import STREAM_CORE, Cost, agreement, pareto_frontier, question_weights

if TYPE_CHECKING:
    from medqade.dataset.release import Release

MIN_POINTS: Final = 2
"""A frontier needs at least two judges with a cost in the same unit."""
LOG_SPAN: Final = 10.0
"""The cost axis is logarithmic when the largest cost is this many times the smallest."""
EUR: Final = "EUR per 1,000 answers"
TOKENS: Final = "tokens per 1,000 answers"
STEM: Final = "figure_cost_frontier"
"""The file name (without extension) ``reproduce`` writes."""
WHY_NOT: Final = (
    "the release carries no token counts for its evaluators (a `usage` block in "
    "release.json), so it has no cost-agreement frontier"
)


@dataclass(frozen=True)
class CostPoint:
    """One judge: its core kappa with the 95% interval and its cost in the figure's unit."""

    name: str
    kappa: float
    low: float
    high: float
    cost: float


@dataclass(frozen=True)
class CostPoints:
    """The points of one figure, their unit (:data:`EUR` or :data:`TOKENS`) and the judges
    with a cost left out because they have it only in the other unit."""

    points: tuple[CostPoint, ...]
    unit: str
    left_out: tuple[str, ...] = ()

    @property
    def drawn(self) -> bool:
        return len(self.points) >= MIN_POINTS

    @property
    def frontier(self) -> tuple[CostPoint, ...]:
        found = pareto_frontier([p.kappa for p in self.points], [p.cost for p in self.points])
        return tuple(self.points[i] for i in found)


def _num(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return math.nan
    return float(x)


def _nonnegative(x: Any) -> float | None:
    value = _num(x)
    return value if math.isfinite(value) and value >= 0 else None


def _name(r: Mapping[str, Any]) -> str:
    meta = r.get("meta") or {}
    return str(meta.get("name") or meta.get("model_id") or str(r.get("id", ""))[:12])


Named = Sequence[tuple[str, float, float, float, Mapping[str, Any]]]


def _choose(named: Named) -> CostPoints:
    """Points from (name, kappa, low, high, cost JSON) in EUR when enough are priced."""

    def tokens(c: Mapping[str, Any]) -> float:
        return _num(c.get("input_tokens_per_1000")) + _num(c.get("output_tokens_per_1000"))

    def usable(x: float) -> bool:
        return math.isfinite(x) and x >= 0

    priced = [n for n in named if usable(_num(n[4].get("eur_per_1000")))]
    unit, value = (
        (EUR, lambda c: _num(c.get("eur_per_1000")))
        if len(priced) >= MIN_POINTS
        else (
            TOKENS,
            tokens,
        )
    )
    points, left_out = [], []
    for name, k, lo, hi, c in named:
        x = value(c)
        if usable(x):
            points.append(CostPoint(name, k, lo, hi, x))
        else:
            left_out.append(name)
    return CostPoints(tuple(points), unit, tuple(left_out))


def record_points(records: Iterable[Mapping[str, Any]]) -> CostPoints:
    """The points of judge records (their JSON) with a core kappa and a ``behaviour.cost``."""
    named = []
    for r in records:
        c = (r.get("behaviour") or {}).get("cost") if r.get("kind") == "judge" else None
        core = r.get("core") or {}
        k = _num(core.get("kappa"))
        if not c or not math.isfinite(k):
            continue
        ci = core.get("kappa_ci") or (None, None)
        named.append((_name(r), k, _num(ci[0]), _num(ci[1]), c))
    return _choose(named)


def release_usage(release: Release) -> Mapping[str, Any]:
    """The ``usage`` block of the build's ``release.json`` (evaluator id to its usage), if any."""
    usage = release.meta.other.get("usage")
    return usage if isinstance(usage, Mapping) else {}


def release_points(release: Release, resamples: int, seed: int) -> CostPoints:
    """The reference evaluators' points (module docstring): core kappa with abstentions as
    disagreements on the core question resamples of judge scoring, cost from the release's
    ``usage`` over the answers each evaluator labelled."""
    usage = release_usage(release)
    roster = release.roster
    core = np.asarray(release.is_core, dtype=bool)
    w = question_weights(int(core.sum()), resamples, seed, STREAM_CORE) if resamples else None
    named = []
    for e, ev in enumerate(roster.evaluator_ids):
        found = usage.get(ev)
        if not isinstance(found, Mapping):
            continue
        labels = release.evaluator_labels[e]
        c = Cost(
            input_tokens=_nonnegative(found.get("input_tokens")),
            output_tokens=_nonnegative(found.get("output_tokens")),
            answers=int((labels != vocab.MISSING_CODE).sum()),
            price_in=_nonnegative(found.get("price_in")),
            price_out=_nonnegative(found.get("price_out")),
        )
        a = agreement(
            labels[core],
            release.consensus[core],
            roster.student_ids,
            w,
            abstain_disagrees=True,
        )
        lo, hi = a.kappa.ci
        named.append((roster.name(ev), a.kappa.value, lo, hi, c.to_json()))
    return _choose(named)


def frontier_figure(found: CostPoints, synthetic: bool = False) -> Figure:
    """Kappa (95% interval) against cost, the frontier as a named step line (module
    docstring). Callers draw it only when :attr:`CostPoints.drawn`."""
    points = found.points
    with mpl.rc_context(STYLE):
        fig = new_figure(WIDTH, 4.4)
        ax = fig.add_subplot()
        x = np.array([p.cost for p in points], dtype=np.float64)
        k = np.array([p.kappa for p in points], dtype=np.float64)
        lo = np.array([p.low for p in points], dtype=np.float64)
        hi = np.array([p.high for p in points], dtype=np.float64)
        err = np.vstack([np.nan_to_num(k - lo), np.nan_to_num(hi - k)])
        ax.errorbar(x, k, yerr=np.abs(err), fmt="o", color="0.45", label="judge (95% interval)")
        positive = x[x > 0]
        log = positive.size == x.size and x.size > 0 and positive.max() >= LOG_SPAN * positive.min()
        if log:
            ax.set_xscale("log")
        front = found.frontier
        if front:
            fx = [p.cost for p in front] + [float(x.max()) * (1.15 if log else 1.0)]
            fy = [p.kappa for p in front] + [front[-1].kappa]
            ax.step(fx, fy, where="post", color=HIGHLIGHT, linewidth=1.8, label="Pareto frontier")
            ax.plot(
                [p.cost for p in front], [p.kappa for p in front], "o", color=HIGHLIGHT, zorder=3
            )
        on_front = {id(p) for p in front}
        for p in points:
            ax.annotate(
                p.name,
                (p.cost, p.kappa),
                textcoords="offset points",
                xytext=(5, 4),
                fontsize=9,
                color=HIGHLIGHT if id(p) in on_front else "0.25",
            )
        n_out = len(found.left_out)
        note = f" ({n_out} judge(s) without a price left out)" if n_out else ""
        ax.set_xlabel(found.unit + (", log scale" if log else "") + note)
        ax.set_ylabel("core kappa (abstentions as disagreements)")
        fig.legend(loc="outside lower center", ncols=2)
        mark_synthetic(fig, synthetic)
    return fig


def write_figure(release: Release, out: Path, resamples: int, seed: int) -> tuple[list[Path], str]:
    """``reproduce``'s cost frontier as PNG and SVG in ``out`` when the release has cost for
    at least :data:`MIN_POINTS` evaluators: the paths written and ``""``, else ``[]`` and
    why not."""
    if not release_usage(release):
        return [], WHY_NOT
    found = release_points(release, resamples, seed)
    if not found.drawn:
        return [], (
            f"only {len(found.points)} evaluator(s) of the release have a cost; a frontier "
            f"needs {MIN_POINTS}"
        )
    fig = frontier_figure(found, release.synthetic)
    written = []
    for fmt in FORMATS:
        path = Path(out) / f"{STEM}.{fmt}"
        atomic.write_bytes(path, figure_bytes(fig, fmt))
        written.append(path)
    return written, ""
