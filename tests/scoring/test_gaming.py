"""Done when: abstaining cannot buy a better verdict or rank (issue 24), nor can the public
core (issue 33).

A paper judge abstains where the other paper judges disagree (the answers where abstaining
would pay most if abstentions were dropped pairwise), at growing rates. Its one verdict and its
core and extension differences never improve and its ranked metrics never rise, on the point
value and on every resample. A file with a strong judge's labels on the 200 public core
questions and a weak judge's on the extension gets neither the strong judge's verdict nor a
rank, and a flag that says why.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures import paired
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.measures.verdicts import CORE_ABOVE_EXTENSION
from medqade.scoring.board.tables import leaderboard
from medqade.scoring.intake.settings import Settings
from medqade.scoring.metrics.judge import judge_metrics
from medqade.scoring.metrics.records import judge_record
from medqade.scoring.metrics.reference_rows import reference_records
from medqade.scoring.record.replicates import decode
from medqade.scoring.record.score_record import RecordMeta, SubmissionInfo

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
        judge_metrics(full, _abstaining(full, rate), present, Settings(resamples=RESAMPLES))
        for rate in RATES
    ]
    shares = [m.core.abstention for m in found if m.core is not None]
    assert shares[0] < shares[1] < shares[2]  # the core view's own abstention share
    for before, after in pairwise(found):
        b, a = before.verdict, after.verdict
        assert paired.VERDICTS.index(a) >= paired.VERDICTS.index(b), (b, a)
        assert after.headline.kappa <= before.headline.kappa  # type: ignore[operator]
        for metric in ("kappa", "pa", "pabak"):
            for design in ("physician_difference", "extension_difference"):
                assert getattr(after, design).value(metric) <= getattr(before, design).value(metric)
        for view in ("core", "full"):
            for metric in ("kappa", "pa"):
                assert getattr(after, view).value(metric) <= getattr(before, view).value(metric)
                rb = decode(before.replicates[view][metric])  # type: ignore[index]
                ra = decode(after.replicates[view][metric])  # type: ignore[index]
                assert rb is not None and ra is not None
                assert np.all(ra <= rb + 1e-12)
    # the paper's agreement when rated would have rewarded the abstentions
    assert found[-1].core.rated.kappa > found[0].core.rated.kappa  # type: ignore[union-attr,operator]
    assert found[-1].alt_test.rho <= found[0].alt_test.rho  # type: ignore[union-attr,operator]


STRONG, WEAK = "gemini-3-flash-preview", "gemma3:4b"


def test_a_strong_judge_on_the_public_core_and_a_weak_one_elsewhere_gets_neither(
    full: Release,
) -> None:
    core = np.asarray(full.is_core, dtype=bool)
    ids = full.roster.evaluator_ids
    strong, weak = (full.evaluator_labels[ids.index(e)] for e in (STRONG, WEAK))
    hybrid = np.where(core[:, None], strong, weak)
    meta = {"name": "hybrid", "verified": True}
    present = np.ones(hybrid.shape, dtype=bool)
    submission = {"content_hash": None, "format": "csv", "rows": None, "scope": "full"}
    records = [
        judge_record(
            full,
            labels,
            present,
            RecordMeta.from_json(meta | {"name": name}),
            SubmissionInfo.from_json(submission | {"content_hash": name}),
            Settings(resamples=RESAMPLES, seed=BOOTSTRAP_SEED),
            None,
        )
        for name, labels in (("strong", strong), ("weak", weak), ("hybrid", hybrid))
    ]
    strong_rec, weak_rec, hybrid_rec = records
    assert CORE_ABOVE_EXTENSION in (hybrid_rec.flags or ())
    assert hybrid_rec.headline is not None and hybrid_rec.headline.decided_on == "extension"
    assert hybrid_rec.verdict == weak_rec.verdict != strong_rec.verdict
    assert hybrid_rec.headline.kappa == weak_rec.extension_difference.kappa  # type: ignore[union-attr]
    judges = leaderboard(
        [*reference_records(full, Settings(resamples=RESAMPLES)), *records]
    ).judges_frame()
    row = judges[judges["name"] == "hybrid"].iloc[0]
    assert row["status"] == CORE_ABOVE_EXTENSION and pd.isna(row["rank"])
    assert row["verdict"] == weak_rec.verdict
    assert not pd.isna(judges[judges["name"] == "strong"].iloc[0]["rank"])
