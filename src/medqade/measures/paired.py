"""Paired comparisons: differences on the same bootstrap resamples and verdicts.

Every labeller is scored on the same questions, so two estimates made with the same count
weights are compared through their replicate differences: the difference of A and B is
``value(A) - value(B)`` with the 95% percentile interval of ``replicates(A) - replicates(B)``
(replicates undefined in either are dropped). This is the interval behind every verdict.
Ranks use simultaneous intervals over all ranked pairs instead (:mod:`medqade.measures.ranking`).

Verdict against the physicians (``d`` = the like-for-like difference judge minus physicians,
:func:`medqade.measures.in_place.judge_in_place`, always on kappa, the rule in
:mod:`medqade.measures.verdicts`; margin ``m`` >= 0). The words name what the 95% interval
of ``d`` shows, one of :data:`VERDICTS`:

* lower bound > 0: :data:`ABOVE` (better than the physicians agree among themselves, which
  for a judge usually means leakage: check it);
* lower bound > ``-m`` and upper bound >= 0: :data:`NON_INFERIOR`;
* lower bound > ``-m`` and upper bound < 0: :data:`NON_INFERIOR_BELOW` (within the margin,
  yet significantly below the physicians);
* upper bound < ``-m``: :data:`INFERIOR`;
* upper bound < 0 (and the interval contains ``-m``): :data:`BELOW` (significantly below the
  physicians, not shown non-inferior);
* otherwise (the interval contains both 0 and ``-m``): :data:`INCONCLUSIVE`;
* no verdict (``None``) when ``d`` or its interval is undefined.

"""

from __future__ import annotations

import math
from typing import Final

from medqade.measures.estimate import Estimate

DEFAULT_MARGIN: Final = 0.05
"""The non-inferiority margin on kappa (:data:`PRIMARY`)."""
PRIMARY: Final = "kappa"
"""The metric the margin is declared on, and whose verdict is the headline."""

ABOVE: Final = "above physicians (check for leakage)"
NON_INFERIOR: Final = "non-inferior"
NON_INFERIOR_BELOW: Final = "non-inferior, yet below physicians"
INCONCLUSIVE: Final = "inconclusive"
BELOW: Final = "below physicians, not shown non-inferior"
INFERIOR: Final = "inferior"
VERDICTS: Final = (ABOVE, NON_INFERIOR, NON_INFERIOR_BELOW, INCONCLUSIVE, BELOW, INFERIOR)
"""Every verdict word, best first: the Space, the CLI and the docs use these strings."""


def check_margin(margin: float) -> float:
    """``margin`` as a float when it is a finite number in [0, 1], else ``ValueError``."""
    if isinstance(margin, bool) or not isinstance(margin, int | float):
        raise ValueError(f"the margin must be a number between 0 and 1, got {margin!r}")
    value = float(margin)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"the margin must be a number between 0 and 1, got {margin!r}")
    return value


def difference(a: Estimate, b: Estimate) -> Estimate:
    """``a - b`` with the paired percentile interval of the replicate differences.

    Both must come from the same resamples (the same weights): the replicates are subtracted
    element by element. Without replicates on either side the bounds are NaN.
    """
    value = a.value - b.value
    if a.replicates is None or b.replicates is None:
        return Estimate(value, math.nan, math.nan)
    if a.replicates.shape != b.replicates.shape:
        raise ValueError(
            "paired estimates need the same resamples; got "
            f"{a.replicates.shape[0]} and {b.replicates.shape[0]} replicates"
        )
    return Estimate.from_replicates(value, a.replicates - b.replicates)


def verdict(diff: Estimate, margin: float = DEFAULT_MARGIN) -> str | None:
    """The verdict of a judge-minus-physicians difference (module docstring)."""
    if not diff.defined:
        check_margin(margin)
        return None
    return verdict_of_bounds(diff.low, diff.high, margin)


def verdict_of_bounds(low: float | None, high: float | None, margin: float) -> str | None:
    """:func:`verdict` from the bounds of a difference (``None`` or NaN: no verdict)."""
    m = check_margin(margin)
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return None
    if low > 0:
        return ABOVE
    if low > -m:
        return NON_INFERIOR if high >= 0 else NON_INFERIOR_BELOW
    if high < -m:
        return INFERIOR
    if high < 0:
        return BELOW
    return INCONCLUSIVE
