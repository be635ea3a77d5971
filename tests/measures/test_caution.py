"""Clinical caution (medqade.measures.caution) against pandas group-bys of the raw tables,
scipy's least-squares slope and a loop over bootstrap resamples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import linregress

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures.caution import caution
from medqade.measures.seeds import question_weights


def _rates(frame, rater_col: str, rater: str, tiers: dict[str, int]) -> list[float]:
    mine = frame[(frame[rater_col] == rater) & frame["label"].notna()]
    tier = mine["question_id"].map(tiers)
    abstained = mine["label"] == vocab.KEINE_ANGABE
    return [float(abstained[tier == t].mean()) for t in vocab.TIERS]


def test_caution_matches_the_tables_and_scipy(full: Release) -> None:
    core = full.is_core
    core_ids = set(full.item_ids[core])
    tiers = dict(zip(full.item_ids, full.tier.tolist(), strict=True))
    ev = full.roster.evaluator_ids[0]
    e = 0
    present = np.ones((int(core.sum()), 5), dtype=bool)
    w = question_weights(int(core.sum()), 30, 3)
    found = caution(
        full.evaluator_labels[e][core],
        present,
        full.physician_labels[:, core],
        full.roster.physicians,
        full.tier[core],
        w,
    )
    assert found is not None
    judgments = full.judgments[full.judgments["question_id"].isin(core_ids)]
    judge_rates = _rates(judgments, "evaluator", ev, tiers)
    assert [x.value for x in found.judge.by_tier] == pytest.approx(judge_rates)
    assert found.judge.slope.value == pytest.approx(linregress(vocab.TIERS, judge_rates).slope)
    votes = full.ratings[
        (full.ratings["round"] != vocab.RERATING) & full.ratings["question_id"].isin(core_ids)
    ]
    slopes = []
    for p in full.roster.physicians:
        rates = _rates(votes, "rater", p, tiers)
        assert [x.value for x in found.per_physician[p].by_tier] == pytest.approx(rates)
        slopes.append(linregress(vocab.TIERS, rates).slope)
    assert found.physicians.slope.value == pytest.approx(np.mean(slopes))
    assert found.difference.value == pytest.approx(found.judge.slope.value - np.mean(slopes))
    # replicate 0 recomputed on the resampled questions
    idx = np.repeat(np.arange(int(core.sum())), w[0])
    lab = full.evaluator_labels[e][core][idx]
    t = full.tier[core][idx]
    rates = [float((lab[t == k] == vocab.ABSTAIN_CODE).mean()) for k in vocab.TIERS]
    reps = found.judge.slope.replicates
    assert reps is not None and reps[0] == pytest.approx(linregress(vocab.TIERS, rates).slope)


def test_no_rows_on_the_core_gives_none(full: Release) -> None:
    core = full.is_core
    absent = np.zeros((int(core.sum()), 5), dtype=bool)
    assert (
        caution(
            full.evaluator_labels[0][core],
            absent,
            full.physician_labels[:, core],
            full.roster.physicians,
            full.tier[core],
            None,
        )
        is None
    )
