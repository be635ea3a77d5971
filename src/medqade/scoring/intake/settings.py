"""How a submission is scored: :class:`Settings`, passed down from the front ends through
:func:`medqade.scoring.policy.policy.submit` and :func:`medqade.scoring.metrics.records.score` to
:func:`medqade.scoring.metrics.judge.judge_metrics` (one object, not resamples, seed and margin one
by one)."""

from __future__ import annotations

from dataclasses import dataclass, field

from medqade.measures import BOOTSTRAP_SEED, DEFAULT_MARGIN
from medqade.scoring.intake.limits import Limits


@dataclass(frozen=True)
class Settings:
    """How a submission is scored: bootstrap resamples and seed, the verdict's margin, and
    the limits an upload must keep. ``resamples=0`` skips the bootstrap (CIs are null); the
    default seed is that of ``medqade reproduce``."""

    resamples: int = 1000
    seed: int = BOOTSTRAP_SEED
    margin: float = DEFAULT_MARGIN
    limits: Limits = field(default_factory=Limits)
