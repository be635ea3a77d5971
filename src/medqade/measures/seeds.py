"""The one bootstrap seed and the random streams drawn from it.

Every bootstrap in MedQADE (``medqade score``, ``reproduce``, ``compare``, ``leaderboard`` and
the Space) resamples questions with generators made here, from :data:`BOOTSTRAP_SEED` unless a
caller passes another seed. Each analysis has its own named stream, so adding one never shifts
the resamples of another: the generator of stream ``s`` is ``default_rng([seed, s])``.

The synthetic release has a seed of its own, :data:`medqade.synthetic.SYNTHETIC_SEED`; it
decides the simulated data, this one decides the resamples.
"""

from __future__ import annotations

import hashlib
from typing import Final

import numpy as np
import numpy.typing as npt

from medqade import stats

Weights = npt.NDArray[np.int64]

BOOTSTRAP_SEED: Final = 20260101
"""Seed of every question bootstrap when none is given."""

STREAM_CORE: Final = 0
"""Resamples of the core questions (RQ1, RQ3, judge scoring on the core, comparisons)."""
STREAM_ALL: Final = 1
"""Resamples of all questions (the full view of judges and models)."""
STREAM_LEXICAL: Final = 2
STREAM_TIER: Final = 3
STREAM_BIAS: Final = 4
STREAM_PANEL_EXTENSION: Final = 16
"""Resamples of the extension questions for the per-physician partner/adjudicator agreement."""
STREAM_RERATING: Final = 17
"""Resamples of the re-rated questions (intra-rater reliability)."""
STREAM_OUTLIER: Final = 18
"""Resamples of the core questions for the outlier rule's far tails (many more than the CIs)."""
STREAM_POSITION: Final = 19
"""Permutations of the presentation positions within questions (the position-effect test),
one stream per judge (:func:`keyed_generator`, keyed by the test's input)."""
STREAM_PHYSICIANS: Final = 20
"""Resamples of the physician panel (the two-way bootstrap behind every verdict,
:mod:`medqade.measures.in_place`), paired with the question resamples by index."""
STREAM_CONTAMINATION: Final = 21
"""Re-draws of the held-out set within its strata (the contamination check's permutation test,
:func:`medqade.measures.holdout_drop.permuted_splits`)."""
STREAM_POOL: Final = 22
"""Resamples of the physician-labelled pool items within their lexical strata (ranking
fidelity at pool scale, :mod:`medqade.measures.pool_ranking`), shared by every judge."""
STREAM_VERIFY_SAMPLE: Final = 23
"""The questions ``medqade verify`` asks again (:func:`medqade.measures.reproduction.sample`)."""
STREAM_VERIFY: Final = 24
"""Resamples of those questions (the re-run's agreement with the stored labels)."""


def check_seed(seed: int) -> int:
    """``seed`` when it is a non-negative integer, else ``ValueError`` with the value."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def generator(seed: int, stream: int) -> np.random.Generator:
    """The generator of ``stream``: ``numpy.random.default_rng([seed, stream])``."""
    return np.random.default_rng([check_seed(seed), int(stream)])


def stream_key(data: bytes) -> int:
    """A stable 128-bit key of ``data`` (the first 16 bytes of its SHA-256, big-endian)."""
    return int.from_bytes(hashlib.sha256(data).digest()[:16], "big")


def keyed_generator(seed: int, stream: int, key: bytes) -> np.random.Generator:
    """The generator of ``stream`` for one rater: ``default_rng([seed, stream, k])`` with
    ``k`` = :func:`stream_key` of ``key``. Raters with different keys draw from different
    streams (their tests are not computed on the same draws); the same seed and key give the
    same draws."""
    return np.random.default_rng([check_seed(seed), int(stream), stream_key(key)])


def weights_from(rng: np.random.Generator, n_items: int, n_resamples: int) -> Weights:
    """Question bootstrap count weights (R, items) drawn from ``rng``."""
    return stats.resample_weights(stats.bootstrap_indices(n_items, n_resamples, rng), n_items)


def question_weights(
    n_items: int, n_resamples: int, seed: int = BOOTSTRAP_SEED, stream: int = STREAM_CORE
) -> Weights:
    """Count weights (R, items) of ``stream``: the same arguments give the same weights."""
    return weights_from(generator(seed, stream), n_items, n_resamples)


def physician_weights(n_physicians: int, n_resamples: int, seed: int = BOOTSTRAP_SEED) -> Weights:
    """Count weights (R, physicians) of the physician panel, stream :data:`STREAM_PHYSICIANS`:
    resample ``b`` draws ``n_physicians`` physicians with replacement. Every judge and both
    designs use the same weights, so verdicts and their comparisons stay paired."""
    return weights_from(generator(seed, STREAM_PHYSICIANS), n_physicians, n_resamples)
