"""The Alternative Annotator Test (alt-test; Calderon, Reichart & Dror, 2025) on the core.

Can the judge take a physician's place? For every physician ``j`` in turn, on every question
``i``, the judge's alignment with the *other* physicians is compared with ``j``'s alignment
with them:

* ``S(x, i, j)`` = the share of (answer slot, other physician ``k``) pairs of question ``i``,
  over the slots ``j`` rated and the ``k`` with a substantive label on the slot, on which
  ``x`` gives ``k``'s label (an abstention or missing label of the judge never matches:
  abstaining cannot buy alignment; a slot ``j`` abstained on leaves both sides, so a
  physician's caution is not counted against them);
* ``W_f(i, j)`` = 1 when ``S(judge) >= S(j)``, ``W_h(i, j)`` = 1 when ``S(j) >= S(judge)``;
  the advantage probabilities ``rho_f(j)`` and ``rho_h(j)`` are their means over questions;
* per physician the one-sided paired t-test over questions of
  H0: ``rho_f(j) - rho_h(j) <= -epsilon`` (on ``W_f - W_h``), the ``epsilon`` the judge's
  advantage (cost, speed; 0.2 for expert annotators as the paper recommends);
* the Benjamini-Yekutieli procedure at FDR ``q`` (0.05) over the physicians; the winning rate
  ``omega`` is the share of physicians whose H0 is rejected, and the judge passes when
  ``omega >= 0.5``. The average advantage probability ``rho`` is the mean of ``rho_f``.

Questions on which no other physician gave a substantive label are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.agreement import substantive

EPSILON: Final = 0.2
"""The judge's advantage for expert annotators (Calderon et al., 2025)."""
FDR: Final = 0.05
PASS_RATE: Final = 0.5


@dataclass(frozen=True)
class AltTest:
    """The alt-test of one judge against a physician panel."""

    epsilon: float
    q: float
    rho_f: tuple[float, ...]
    rho_h: tuple[float, ...]
    pvalues: tuple[float, ...]
    rejected: tuple[bool, ...]
    n_items: int

    @property
    def winning_rate(self) -> float:
        return float(np.mean(self.rejected)) if self.rejected else float("nan")

    @property
    def passed(self) -> bool:
        return bool(self.rejected) and self.winning_rate >= PASS_RATE

    @property
    def rho(self) -> float:
        """Average advantage probability of the judge over the physicians."""
        return float(np.nanmean(self.rho_f)) if self.rho_f else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "q": self.q,
            "winning_rate": self.winning_rate,
            "passed": self.passed,
            "rho": self.rho,
            "per_physician": [
                {"rho_f": f, "rho_h": h, "p": p, "rejected": r}
                for f, h, p, r in zip(
                    self.rho_f, self.rho_h, self.pvalues, self.rejected, strict=True
                )
            ],
            "n_items": self.n_items,
        }


def _alignment(x: npt.NDArray[np.int64], others: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """``S``: per item, the share of (slot, other rater) pairs with a substantive other label
    on which ``x`` (items, slots) matches; NaN where there is no such pair."""
    valid = others != stats.MISSING  # (raters, items, slots)
    match = valid & (others == x[None])
    num = match.sum(axis=(0, 2)).astype(np.float64)
    den = valid.sum(axis=(0, 2)).astype(np.float64)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def alt_test(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    epsilon: float = EPSILON,
    q: float = FDR,
) -> AltTest:
    """The alt-test of ``labels`` (items, slots) against ``physician_labels`` (physicians,
    items, slots) (module docstring)."""
    judge = substantive(labels)
    phys = substantive(physician_labels)
    rho_f, rho_h, pvalues = [], [], []
    n_items = 0
    for j in range(phys.shape[0]):
        rated = phys[j] != stats.MISSING
        others = np.where(rated[None], np.delete(phys, j, axis=0), stats.MISSING)
        s_f = _alignment(judge, others)
        s_h = _alignment(phys[j], others)
        keep = ~np.isnan(s_f)
        n_items = max(n_items, int(keep.sum()))
        w_f = (s_f[keep] >= s_h[keep]).astype(np.float64)
        w_h = (s_h[keep] >= s_f[keep]).astype(np.float64)
        rho_f.append(float(w_f.mean()) if w_f.size else float("nan"))
        rho_h.append(float(w_h.mean()) if w_h.size else float("nan"))
        pvalues.append(stats.t_test_greater(w_f - w_h, -epsilon)[1])
    rejected = stats.benjamini_yekutieli(pvalues, q)
    return AltTest(
        epsilon=float(epsilon),
        q=float(q),
        rho_f=tuple(rho_f),
        rho_h=tuple(rho_h),
        pvalues=tuple(float(p) for p in pvalues),
        rejected=tuple(bool(r) for r in rejected),
        n_items=n_items,
    )
