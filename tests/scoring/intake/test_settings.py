"""Scoring settings (:mod:`medqade.scoring.intake.settings`): one object carries resamples, seed and
margin from the front ends to the metrics, and the record states what it was scored with."""

from __future__ import annotations

import dataclasses
import math

import pytest

from medqade.dataset.release import Release
from medqade.measures.paired import DEFAULT_MARGIN
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.scoring import Settings, parse_submission, score
from medqade.scoring.intake.limits import Limits

from ..helpers import judge_rows


def test_defaults_are_the_papers() -> None:
    s = Settings()
    assert (s.resamples, s.seed, s.margin) == (1000, BOOTSTRAP_SEED, DEFAULT_MARGIN)
    assert s.limits == Limits()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.resamples = 3  # type: ignore[misc]


def test_the_record_is_scored_with_the_settings_given(sample: Release) -> None:
    data = judge_rows(sample, "gemma3:4b").to_csv(index=False).encode()
    sub = parse_submission(data, "j.csv", sample)
    none = score(sample, sub, settings=Settings(resamples=0, seed=3, margin=0.1))
    assert none.settings is not None
    assert (none.settings.resamples, none.settings.seed, none.settings.margin) == (0, 3, 0.1)
    assert none.core is not None and none.core.kappa_ci == (None, None)  # no bootstrap
    assert none.headline is not None and none.headline.margin == 0.1
    some = score(sample, sub, settings=Settings(resamples=5, seed=3))
    assert some.core is not None and some.core.kappa_ci is not None
    assert all(isinstance(x, float) and math.isfinite(x) for x in some.core.kappa_ci)
    assert some.core.kappa == none.core.kappa  # the point estimate does not resample
    with pytest.raises(ValueError, match="resamples must be a non-negative integer"):
        score(sample, sub, settings=Settings(resamples=-1))
    with pytest.raises(ValueError, match="margin must be a number"):
        score(sample, sub, settings=Settings(margin=2.0))
