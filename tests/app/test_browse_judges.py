"""The judges Browse filters by: found by name, id or a unique id prefix; a submitted judge
gets a unique name; its per-item disagreement with the consensus equals a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from medqade import vocab
from medqade.app.browse_judges import MIN_ID_PREFIX, PAPER, SUBMITTED, BrowseJudges, disagrees
from medqade.dataset.release import Release


def _loop_disagrees(labels: np.ndarray, consensus: np.ndarray) -> list[bool]:
    out = []
    for item in range(labels.shape[0]):
        hit = False
        for slot in range(labels.shape[1]):
            code, cons = int(labels[item, slot]), int(consensus[item, slot])
            substantive = code in (vocab.RICHTIG_CODE, vocab.FALSCH_CODE)
            if substantive and cons != vocab.MISSING_CODE and code != cons:
                hit = True
        out.append(hit)
    return out


def test_disagrees_matches_a_plain_loop(sample_release: Release) -> None:
    rng = np.random.default_rng(11)
    codes = [vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE, vocab.MISSING_CODE]
    labels = rng.choice(codes, size=sample_release.consensus.shape).astype(np.int8)
    got = disagrees(labels, sample_release.consensus)
    assert got.tolist() == _loop_disagrees(labels, sample_release.consensus)
    assert got.any() and not got.all()


def test_a_judge_is_found_by_name_id_or_a_unique_prefix(sample_release: Release) -> None:
    judges = BrowseJudges(sample_release)
    roster = sample_release.roster
    first = roster.evaluator_ids[0]
    assert judges.choices() == [roster.name(e) for e in roster.evaluator_ids]
    assert judges.name(roster.name(first)) == roster.name(first)
    assert judges.name(f"  {first} ") == roster.name(first)
    labels = np.array(sample_release.consensus, dtype=np.int8)
    record_id = "c0ffee00" + "a" * 56
    name = judges.add("submitted: x", labels, record_id=record_id)
    assert judges.name(record_id[:MIN_ID_PREFIX]) == name
    assert judges.name(record_id[: MIN_ID_PREFIX - 1]) == ""  # too short to be taken
    judges.add("submitted: y", labels, record_id="c0ffee00" + "b" * 56)
    assert judges.name(record_id[:MIN_ID_PREFIX]) == ""  # two records start so
    assert judges.name("nobody") == "" and judges.labels("nobody") is None
    assert judges.disagreement("nobody") is None


def test_a_submitted_judge_gets_a_unique_name_and_its_disagreement(
    sample_release: Release,
) -> None:
    judges = BrowseJudges(sample_release)
    paper = judges.choices()
    labels = np.array(sample_release.consensus, dtype=np.int8)
    assert judges.add(paper[0], labels) == f"{paper[0]} (2)"  # never shadows a paper evaluator
    assert judges.add("x", labels) == "x" and judges.add("x", labels) == "x (2)"
    mask = judges.disagreement("x")
    assert mask is not None and not mask.any()  # the consensus never disagrees with itself
    assert judges.labels("x") is labels
    assert [role for _, _, role in judges.every()] == [PAPER] * len(paper) + [SUBMITTED] * 3
    with pytest.raises(ValueError, match="shape"):
        judges.add("bad", labels[:, :2])
