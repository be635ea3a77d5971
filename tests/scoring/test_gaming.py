"""Done when: abstaining cannot buy a better verdict or rank (issue 24).

A paper judge abstains where the other paper judges disagree (the answers where abstaining
would pay most if abstentions were dropped pairwise), at growing rates. Its verdicts (core and
extension, every metric) never improve and its ranked metrics never rise, on the point value
and on every resample.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import paired
from medqade.scoring.judge import judge_metrics
from medqade.scoring.replicates import decode

from .conftest import RESAMPLES

JUDGE = "gpt-5.4-nano"
RATES = (0.0, 0.25, 1.0)


def _abstaining(full: Release, rate: float) -> np.ndarray:
    ids = full.roster.evaluator_ids
    k = ids.index(JUDGE)
    others = np.delete(full.evaluator_labels, k, axis=0)
    r = (others == vocab.RICHTIG_CODE).sum(axis=0)
    f = (others == vocab.FALSCH_CODE).sum(axis=0)
    contested = (r > 0) & (f > 0)
    chosen = contested & (np.random.default_rng(0).random(contested.shape) < rate)
    labels = full.evaluator_labels[k].copy()
    labels[chosen] = vocab.ABSTAIN_CODE
    return labels


def test_abstaining_where_judges_disagree_never_improves_verdict_or_rank(full: Release) -> None:
    present = np.ones((full.n_items, vocab.N_SLOTS), dtype=bool)
    found = [
        judge_metrics(full, _abstaining(full, rate), present, resamples=RESAMPLES) for rate in RATES
    ]
    shares = [m["core"]["abstention"] for m in found]
    assert shares[0] < shares[1] < shares[2]  # the core view's own abstention share
    for before, after in pairwise(found):
        for metric in ("kappa", "pa", "pabak"):
            b, a = before["verdicts"][metric], after["verdicts"][metric]
            assert paired.VERDICTS.index(a) >= paired.VERDICTS.index(b), (metric, b, a)
        for metric in ("kappa", "pa", "pabak"):
            b = before["extension_difference"]["verdicts"][metric]
            a = after["extension_difference"]["verdicts"][metric]
            assert paired.VERDICTS.index(a) >= paired.VERDICTS.index(b), (metric, b, a)
            assert after["physician_difference"][metric] <= before["physician_difference"][metric]
        for view in ("core", "full"):
            for metric in ("kappa", "pa"):
                assert after[view][metric] <= before[view][metric]
                rb = decode(before["replicates"][view][metric])
                ra = decode(after["replicates"][view][metric])
                assert rb is not None and ra is not None
                assert np.all(ra <= rb + 1e-12)
    # the paper's agreement when rated would have rewarded the abstentions
    assert found[-1]["core"]["rated"]["kappa"] > found[0]["core"]["rated"]["kappa"]
    assert found[-1]["alt_test"]["rho"] <= found[0]["alt_test"]["rho"]
