"""Pieces shared by the RQ modules: tiers, seeded resamples, proportions and JSON values.

Every analysis takes its randomness from an explicit seed: core-item resamples (RQ1, RQ3) come
from :func:`medqade.analyses.alignment.question_weights` so that the scorer and the paper tables
use the same index matrix; every other bootstrap draws from its own stream
``numpy.random.default_rng([seed, stream])`` (:func:`stream_rng`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import stats, vocab

Codes = npt.NDArray[np.int8]
FloatArray = npt.NDArray[np.float64]
Weights = npt.NDArray[np.int64]

DEFAULT_SEED: Final = 20260101
"""Seed of the bootstrap resamples when none is given."""

STREAM_LEXICAL: Final = 2
STREAM_TIER: Final = 3
STREAM_BIAS: Final = 4


def stream_rng(seed: int, stream: int) -> np.random.Generator:
    """An independent generator for one analysis: ``default_rng([seed, stream])``."""
    return np.random.default_rng([int(seed), int(stream)])


def weights_from(rng: np.random.Generator, n_items: int, n_resamples: int) -> Weights:
    """Question bootstrap count weights (R, items) drawn from ``rng``."""
    return stats.resample_weights(stats.bootstrap_indices(n_items, n_resamples, rng), n_items)


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


def substantive_scores(codes: npt.ArrayLike) -> FloatArray:
    """Richtig 1.0, Falsch 0.0, everything else (abstention, missing) NaN."""
    c = np.asarray(codes)
    out = np.full(c.shape, np.nan)
    out[c == vocab.RICHTIG_CODE] = 1.0
    out[c == vocab.FALSCH_CODE] = 0.0
    return out


def ratio(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> FloatArray:
    """``numerator / denominator`` with NaN (no warning) where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


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
