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
    # the questions each tier's rate rests on: the core's questions per tier (pandas)
    counts = full.questions[core].assign(tier=full.tier[core]).groupby("tier").size()
    assert found.judge.questions == tuple(int(counts.get(t, 0)) for t in vocab.TIERS)
    assert found.physicians.questions == found.judge.questions


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


def _arrays(tiers: list[int], present_rows: list[bool]) -> tuple[np.ndarray, ...]:
    n = len(tiers)
    labels = np.full((n, 5), vocab.RICHTIG_CODE, dtype=np.int8)
    labels[::3, 0] = vocab.ABSTAIN_CODE
    present = np.repeat(np.array(present_rows)[:, None], 5, axis=1)
    phys = np.stack([labels, labels])
    return labels, present, phys, np.array(tiers)


def test_questions_per_tier_and_the_sparse_tier_warning() -> None:
    """Every tier's rate carries its number of questions (counted here by hand: the questions
    of the tier with a judge row); a tier under 20 questions is named in the warning."""
    tiers = [1] * 30 + [2] * 25 + [3] * 20 + [4] * 11
    present_rows = [True] * len(tiers)
    present_rows[0] = present_rows[40] = False  # no row: not a question the judge rated
    labels, present, phys, t = _arrays(tiers, present_rows)
    found = caution(labels, present, phys, ("a", "b"), t, None)
    assert found is not None
    assert found.judge.questions == (29, 24, 20, 11)
    assert found.physicians.questions == (30, 25, 20, 11)
    assert found.per_physician["a"].questions == (30, 25, 20, 11)
    assert found.warning is not None
    assert found.warning.startswith("tier 4: 11 questions (fewer than 20)")
    assert "tier 3" not in found.warning  # 20 questions is enough
    out = found.to_json()
    assert out["judge"]["questions_by_tier"] == [29, 24, 20, 11]
    assert out["warning"] == found.warning and out["min_tier_questions"] == 20
    labels, present, phys, t = _arrays([1] * 20 + [2] * 20 + [3] * 20 + [4] * 20, [True] * 80)
    wide = caution(labels, present, phys, ("a", "b"), t, None)
    assert wide is not None and wide.warning is None and wide.to_json()["warning"] is None
