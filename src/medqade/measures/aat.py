"""The Alternative Annotator Test (alt-test; Calderon, Reichart & Dror, ACL 2025, "The
Alternative Annotator Test for LLM-as-a-Judge") on the core, with the paper's instances.

Can the judge take a physician's place? The paper's instance is one annotated item; here that
is one *answer* (a question's answer slot: five per question). For every physician ``j`` in
turn (leave-one-out):

* the instances of ``j`` are the answers ``j`` labelled substantively (Richtig/Falsch; the
  abstention "Keine Angabe" and a missing label are not labels) on which at least one other
  physician did too (the paper keeps instances with at least two annotators);
* ``S(x, i, j)`` = the share of the other physicians with a substantive label on answer ``i``
  whose label ``x`` matches (the paper's "accuracy" alignment). The judge's abstention or
  missing label never matches: abstaining cannot buy alignment. (The paper's code drops an
  instance the LLM did not label; a judge here cannot choose its instances that way.);
* ``W_f(i, j) = 1[S(judge) >= S(j)]`` and ``W_h(i, j) = 1[S(j) >= S(judge)]``: a tie counts for
  both, as in the paper; the advantage probabilities ``rho_f(j)``, ``rho_h(j)`` are their means;
* per physician the one-sided paired t-test of H0: ``rho_f(j) - rho_h(j) <= -epsilon`` (the
  paper's ``ttest_1samp(W_h - W_f, epsilon, alternative="less")``; the same p-value);
* only a physician with at least ``MIN_INSTANCES`` (30) instances is tested: the paper's
  minimum for the t-test's normality (its code skips the others, and so do we);
* the Benjamini-Yekutieli procedure at FDR ``q`` = 0.05 over the tested physicians; the winning
  rate ``omega`` is the share of them whose H0 is rejected, and the judge passes when
  ``omega >= 0.5``. The average advantage probability ``rho`` (the mean of ``rho_f``) is the
  paper's measure for comparing judges and is shown beside ``omega``.

``epsilon`` = 0.2 is the paper's rule of thumb for expert annotators (0.15 skilled, 0.1 crowd
workers): epsilon is the cost-benefit allowance for the judge's efficiency (cost, speed,
availability), and experts are the most expensive and least available annotators; the paper
adds that a lower inter-annotator agreement calls for a smaller epsilon (the physicians' kappa
is about 0.74). Sources: the paper's FAQ and reference code (github.com/nitaytech/AltTest,
README and ``alt_test_example.ipynb``).

``by_question`` keeps the earlier question-clustered variant as a robustness result, not a
rival verdict: the instance is a question, and ``S`` pools the (answer, other physician) pairs
of the answers ``j`` labelled. With 200 instances instead of about 1,000 it has less power
(bench/alt_test.py measures both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats
from medqade.measures.slots import substantive

ANSWER: Final = "answer"
QUESTION: Final = "question"
EPSILON: Final = 0.2
"""The judge's advantage for expert annotators (Calderon et al., 2025)."""
EPSILON_REASON: Final = (
    "the paper's rule of thumb for expert annotators (0.2; skilled 0.15, crowd workers 0.1): "
    "epsilon is the cost-benefit allowance for the judge's lower cost, speed and availability, "
    "largest for experts, who are reliable but expensive and scarce; physicians are experts"
)
FDR: Final = 0.05
PASS_RATE: Final = 0.5
MIN_INSTANCES: Final = 30
"""Instances a physician needs to be tested (the paper's minimum for the t-test)."""
MEANING: Final = (
    "A pass says the judge agrees with the other physicians about as often as a left-out "
    "physician does, allowing the judge the advantage epsilon; it is evidence under the "
    "leaderboard's single verdict, not a verdict, and does not show the judge is as good as "
    "a physician."
)


def epsilon_reason(epsilon: float) -> str:
    """Why ``epsilon`` (the paper's recommendation, or a caller's choice)."""
    if epsilon == EPSILON:
        return EPSILON_REASON
    return f"set by the caller ({epsilon:g}); the paper recommends {EPSILON:g} for experts"


@dataclass(frozen=True)
class AltTest:
    """The alt-test of one judge against a physician panel; one entry per physician in
    ``rho_f`` .. ``n`` (``p`` NaN and not rejected where the physician was not tested)."""

    epsilon: float
    q: float
    rho_f: tuple[float, ...]
    rho_h: tuple[float, ...]
    pvalues: tuple[float, ...]
    rejected: tuple[bool, ...]
    n: tuple[int, ...]
    unit: str = ANSWER
    min_instances: int = MIN_INSTANCES
    by_question: AltTest | None = None

    @property
    def tested(self) -> tuple[bool, ...]:
        """Which physicians had at least ``min_instances`` instances."""
        return tuple(k >= self.min_instances for k in self.n)

    @property
    def n_items(self) -> int:
        """The most instances any physician had."""
        return max(self.n, default=0)

    @property
    def omega(self) -> float:
        """The winning rate: the share of tested physicians whose H0 is rejected."""
        won = [r for r, t in zip(self.rejected, self.tested, strict=True) if t]
        return float(np.mean(won)) if won else math.nan

    @property
    def winning_rate(self) -> float:
        """Alias of :attr:`omega`."""
        return self.omega

    @property
    def passed(self) -> bool:
        return not math.isnan(self.omega) and self.omega >= PASS_RATE

    @property
    def rho(self) -> float:
        """The average advantage probability: the mean of ``rho_f`` over tested physicians."""
        found = [f for f, t in zip(self.rho_f, self.tested, strict=True) if t]
        return float(np.mean(found)) if found else math.nan

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "unit": self.unit,
            "epsilon": self.epsilon,
            "epsilon_reason": epsilon_reason(self.epsilon),
            "q": self.q,
            "min_instances": self.min_instances,
            "omega": self.omega,
            "winning_rate": self.winning_rate,
            "rho": self.rho,
            "passed": self.passed,
            "meaning": MEANING,
            "per_physician": [
                {"n": k, "tested": t, "rho_f": f, "rho_h": h, "p": p, "rejected": r}
                for k, t, f, h, p, r in zip(
                    self.n,
                    self.tested,
                    self.rho_f,
                    self.rho_h,
                    self.pvalues,
                    self.rejected,
                    strict=True,
                )
            ],
            "n_items": self.n_items,
        }
        if self.by_question is not None:
            b = self.by_question
            out["by_question"] = {
                "unit": b.unit,
                "omega": b.omega,
                "rho": b.rho,
                "passed": b.passed,
                "n_items": b.n_items,
            }
        return out


def _counts(
    judge: npt.NDArray[np.int64], phys: npt.NDArray[np.int64], j: int
) -> tuple[npt.NDArray[np.int64], ...]:
    """Per answer (items, slots), over the other physicians with a substantive label where
    ``j`` has one: how many, how many the judge matches, how many ``j`` matches."""
    others = np.delete(phys, j, axis=0)
    valid = (others != stats.MISSING) & (phys[j] != stats.MISSING)[None]
    den = valid.sum(axis=0)
    num_f = (valid & (others == judge[None])).sum(axis=0)
    num_h = (valid & (others == phys[j][None])).sum(axis=0)
    return den, num_f, num_h


def _one_unit(
    counts: list[tuple[npt.NDArray[np.int64], ...]],
    unit: str,
    epsilon: float,
    q: float,
    min_instances: int,
) -> AltTest:
    rho_f, rho_h, pvalues, n = [], [], [], []
    for den, num_f, num_h in counts:
        if unit == QUESTION:
            den, num_f, num_h = den.sum(axis=1), num_f.sum(axis=1), num_h.sum(axis=1)
        keep = den > 0
        s_f = num_f[keep] / den[keep]
        s_h = num_h[keep] / den[keep]
        w_f = (s_f >= s_h).astype(np.float64)
        w_h = (s_h >= s_f).astype(np.float64)
        n.append(int(keep.sum()))
        rho_f.append(float(w_f.mean()) if w_f.size else math.nan)
        rho_h.append(float(w_h.mean()) if w_h.size else math.nan)
        tested = w_f.size >= min_instances
        pvalues.append(stats.t_test_greater(w_f - w_h, -epsilon)[1] if tested else math.nan)
    tested_at = [k for k, size in enumerate(n) if size >= min_instances]
    rejected = [False] * len(n)
    found = stats.benjamini_yekutieli([pvalues[k] for k in tested_at], q)
    for k, r in zip(tested_at, found, strict=True):
        rejected[k] = bool(r)
    return AltTest(
        epsilon=float(epsilon),
        q=float(q),
        rho_f=tuple(rho_f),
        rho_h=tuple(rho_h),
        pvalues=tuple(float(p) for p in pvalues),
        rejected=tuple(rejected),
        n=tuple(n),
        unit=unit,
        min_instances=int(min_instances),
    )


def alt_test(
    labels: npt.ArrayLike,
    physician_labels: npt.ArrayLike,
    epsilon: float = EPSILON,
    q: float = FDR,
    min_instances: int = MIN_INSTANCES,
) -> AltTest:
    """The alt-test of ``labels`` (items, slots) against ``physician_labels`` (physicians,
    items, slots) with answers as instances, and its question-clustered variant as
    ``by_question`` (module docstring)."""
    judge = substantive(labels)
    phys = substantive(physician_labels)
    counts = [_counts(judge, phys, j) for j in range(phys.shape[0])]
    by_question = _one_unit(counts, QUESTION, epsilon, q, min_instances)
    return replace(_one_unit(counts, ANSWER, epsilon, q, min_instances), by_question=by_question)
