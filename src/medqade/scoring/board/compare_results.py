"""What a comparison of two sides found (:func:`medqade.scoring.board.comparison.compare`): the
paired
:class:`Difference` of one group of answers and the whole :class:`Comparison`, with the JSON
that ``medqade compare --json`` and the Space's Compare write (:meth:`Comparison.to_dict`, the
one JSON edge of a comparison).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from medqade.measures import METRICS as MEASURED_METRICS
from medqade.measures import Agreement, Estimate, RankingFidelity, difference
from medqade.scoring.board.compare_sides import Side
from medqade.scoring.board.simultaneous import BoardPair

METRICS: Final = MEASURED_METRICS


@dataclass(frozen=True, eq=False)
class Difference:
    """A - B for kappa, PA and PABAK (paired intervals) on one group of answers."""

    a: Agreement
    b: Agreement
    kappa: Estimate
    pa: Estimate
    pabak: Estimate

    @classmethod
    def of(cls, a: Agreement, b: Agreement) -> Difference:
        return cls(
            a,
            b,
            difference(a.kappa, b.kappa),
            difference(a.pa, b.pa),
            difference(a.pabak, b.pabak),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for m in METRICS:
            est: Estimate = getattr(self, m)
            out |= est.to_dict(m)
            out[f"{m}_significant"] = est.excludes_zero()
        out["a"] = {m: self.a.metric(m).value for m in METRICS} | {"n": self.a.n}
        out["b"] = {m: self.b.metric(m).value for m in METRICS} | {"n": self.b.n}
        return out


@dataclass(frozen=True, eq=False)
class Comparison:
    """Everything ``medqade compare`` prints (see :meth:`to_dict` for the JSON shape)."""

    a: Side
    b: Side
    view: str
    n_items: int
    resamples: int
    seed: int
    overall: Difference
    slots: Mapping[str, Difference]
    tiers: Mapping[int, Difference | None]
    disagreements: tuple[dict[str, Any], ...]
    n_disagreements: int
    n_both: int
    versus_physicians: Mapping[str, Any] | None = None
    breakdowns: Mapping[str, Mapping[str, Difference | None]] | None = None
    """Two judges: the paired differences per group of every breakdown dimension but the tier
    (specialty, lexical; :mod:`medqade.measures.breakdown`)."""
    board: BoardPair | None = None
    """Two judges ranked on the same board (kappa, this view): the board's simultaneous test
    of the pair beside the paired one (:mod:`medqade.scoring.board.simultaneous`)."""
    against_consensus: Agreement | None = None
    """A judge against the physicians: the judge's agreement with the consensus of all ten,
    as ``score`` and the leaderboard show it (the ``overall`` numbers of the judge are its
    agreement *in each physician's place*, a different quantity)."""
    fidelity: tuple[RankingFidelity | None, RankingFidelity | None] = (None, None)
    """Each side's ranking fidelity (A, B) on the view's items with the same resamples
    (:mod:`medqade.measures.fidelity`); ``None`` for the physicians, whose consensus is the
    reference it is measured against."""

    @property
    def tau_difference(self) -> Estimate | None:
        """Kendall's tau-b of A minus that of B, paired over the same resamples (two judges)."""
        a, b = self.fidelity
        return None if a is None or b is None else difference(a.tau, b.tau)

    @property
    def judge_side(self) -> str | None:
        """``a`` or ``b``: the judge compared with the physicians (``None``: two judges)."""
        if self.a.is_physicians == self.b.is_physicians:
            return None
        return "b" if self.a.is_physicians else "a"

    @property
    def better(self) -> str | None:
        """``a`` or ``b`` when its kappa is significantly higher on the paired test, else
        ``None``."""
        k = self.overall.kappa
        if not k.excludes_zero():
            return None
        return "a" if k.low > 0 else "b"

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "view": self.view,
            "n_items": self.n_items,
            "settings": {"resamples": self.resamples, "seed": self.seed, "confidence": 0.95},
            "difference": self.overall.to_dict(),
            "better": self.better,
            "slots": {name: d.to_dict() for name, d in self.slots.items()},
            "tiers": {str(t): None if d is None else d.to_dict() for t, d in self.tiers.items()},
            "disagreements": {
                "n": self.n_disagreements,
                "n_both_labelled": self.n_both,
                "answers": list(self.disagreements),
            },
            "versus_physicians": None
            if self.versus_physicians is None
            else dict(self.versus_physicians),
            "breakdowns": None
            if self.breakdowns is None
            else {
                dim: {g: None if d is None else d.to_dict() for g, d in found.items()}
                for dim, found in self.breakdowns.items()
            },
            "board": None if self.board is None else self.board.to_dict(),
            "ranking_fidelity": {
                "a": None if self.fidelity[0] is None else self.fidelity[0].to_json(),
                "b": None if self.fidelity[1] is None else self.fidelity[1].to_json(),
                "tau_difference": None
                if self.tau_difference is None
                else self.tau_difference.to_dict("kendall_tau_b"),
            },
            "judge_against_consensus": None
            if self.against_consensus is None
            else {m: self.against_consensus.metric(m).value for m in METRICS}
            | {"n": self.against_consensus.n, "side": self.judge_side},
        }


__all__ = ["METRICS", "Comparison", "Difference"]
