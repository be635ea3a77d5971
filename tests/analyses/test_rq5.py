"""RQ5 abstention by tier against plain Python counting."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from medqade.analyses.report import Report
from medqade.dataset.release import Release

from .helpers import TOL


def test_physician_abstention_matches_loops(release: Release, report: Report) -> None:
    labels = release.physician_labels
    tiers = release.tier
    rates: dict[int, list[float]] = {t: [] for t in (1, 2, 3, 4)}
    for p, rater in enumerate(release.roster.physicians):
        for t in (1, 2, 3, 4):
            rated = abstained = 0
            for i in np.flatnonzero(tiers == t):
                for s in range(5):
                    code = int(labels[p, i, s])
                    if code >= 0:
                        rated += 1
                        abstained += code == 2
            got = report.rq5.physician_rates[rater][t - 1]
            if rated == 0:
                assert np.isnan(got)
                continue
            assert got == pytest.approx(abstained / rated, abs=TOL)
            rates[t].append(abstained / rated)
    for t in (1, 2, 3, 4):
        assert report.rq5.physician_median[t - 1] == pytest.approx(
            statistics.median(rates[t]), abs=TOL
        )


def test_evaluator_abstention_uses_all_slots_of_the_tier(release: Release, report: Report) -> None:
    assert report.rq5.tier_slots == (9010, 6330, 2860, 800)
    tiers = release.tier
    for e, ev in enumerate(release.roster.evaluator_ids):
        got = report.rq5.evaluators[ev]
        total = sum(int(x == 2) for x in release.evaluator_labels[e].ravel())
        missing = sum(int(x == -1) for x in release.evaluator_labels[e].ravel())
        assert got.global_rate == pytest.approx(total / 19000, abs=TOL)
        assert got.abstentions == total
        assert got.missing == missing
        for t in (1, 2, 3, 4):
            rows = np.flatnonzero(tiers == t)
            count = sum(int(x == 2) for i in rows for x in release.evaluator_labels[e, i])
            assert got.by_tier[t - 1] == pytest.approx(count / (5 * len(rows)), abs=TOL)
