"""Pieces shared by the RQ modules: tiers, proportions and JSON values.

Every analysis takes its randomness from an explicit seed through
:mod:`medqade.measures.seeds` (one bootstrap seed, one named stream per analysis), so that the
scorer and the paper tables use the same resamples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab
from medqade.measures import ratio, substantive_scores

Codes = npt.NDArray[np.int8]
FloatArray = npt.NDArray[np.float64]
Weights = npt.NDArray[np.int64]

__all__ = ["Proportion", "json_ready", "physician_tiers", "ratio", "substantive_scores"]


def physician_tiers(difficulty: Codes) -> npt.NDArray[np.int8]:
    """Tier 1-4 per item from the mean physician difficulty; 0 where no physician rated it.

    ``difficulty`` has shape (physicians, items) with scores 0/1/2 and ``-1`` for missing
    (methods section 4). LLM difficulty never enters.
    """
    d = np.asarray(difficulty)
    valid = d >= 0
    total = np.where(valid, d, 0).sum(axis=0, dtype=np.float64)
    count = valid.sum(axis=0)
    mean = np.full(d.shape[1], np.nan)
    np.divide(total, count, out=mean, where=count > 0)
    return vocab.tier_of(mean)


@dataclass(frozen=True)
class Proportion:
    """``correct`` of ``n`` with its 95% Wilson score interval (NaN when ``n == 0``)."""

    correct: int
    n: int
    acc: float
    low: float
    high: float

    @classmethod
    def of(cls, correct: int, n: int) -> Proportion:
        low, high = stats.wilson_interval(float(correct), float(n))
        acc = correct / n if n else float("nan")
        return cls(int(correct), int(n), float(acc), float(low), float(high))

    @property
    def ci(self) -> tuple[float, float]:
        return (self.low, self.high)

    def to_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "n": self.n, "acc": self.acc, "ci": list(self.ci)}


def json_ready(value: Any) -> Any:
    """``value`` with NaN/inf turned into ``None`` and numpy scalars into Python numbers."""
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_ready(v) for v in value.tolist()]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        x = float(value)
        return x if math.isfinite(x) else None
    return value
