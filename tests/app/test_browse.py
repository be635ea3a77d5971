"""The Browse index: filters against loops written out in the test (the oracle)."""

from __future__ import annotations

import numpy as np
import pytest

from medqade import vocab
from medqade.app.browse import (
    FLAG_ABSTAINED,
    FLAG_ALL_WRONG,
    FLAG_JUDGE,
    FLAG_SPLIT,
    FLAG_UNRESOLVED,
    BrowseIndex,
    blind_order,
)


def oracle(release, flag: str, judge: int | None = None) -> list[str]:
    out = []
    for i, qid in enumerate(release.item_ids):
        hit = False
        for s in range(vocab.N_SLOTS):
            votes = [int(c) for c in release.physician_labels[:, i, s]]
            cons = int(release.consensus[i, s])
            judges = [int(c) for c in release.evaluator_labels[:, i, s]]
            substantive = [c for c in judges if c in (0, 1)]
            if flag == FLAG_SPLIT:
                hit |= 0 in votes and 1 in votes
            elif flag == FLAG_UNRESOLVED:
                hit |= cons == -1
            elif flag == FLAG_ABSTAINED:
                hit |= 2 in votes
            elif flag == FLAG_ALL_WRONG:
                hit |= cons != -1 and bool(substantive) and all(c != cons for c in substantive)
            elif flag == FLAG_JUDGE:
                c = judges[judge or 0]
                hit |= cons != -1 and c in (0, 1) and c != cons
        if hit:
            out.append(str(qid))
    return out


@pytest.mark.parametrize("flag", [FLAG_SPLIT, FLAG_UNRESOLVED, FLAG_ABSTAINED, FLAG_ALL_WRONG])
def test_mask_flags_match_oracle(sample_release, flag: str) -> None:
    index = BrowseIndex(sample_release)
    keep = index.mask(flags=[flag])
    assert list(sample_release.item_ids[keep]) == oracle(sample_release, flag)


def test_mask_judge_disagrees_matches_oracle(sample_release) -> None:
    index = BrowseIndex(sample_release)
    for k, ev in enumerate(sample_release.roster.evaluators):
        keep = index.mask(flags=[FLAG_JUDGE], judge=ev.name)
        assert list(sample_release.item_ids[keep]) == oracle(sample_release, FLAG_JUDGE, k)


def test_mask_judge_filter_needs_a_judge(sample_release) -> None:
    with pytest.raises(ValueError, match="choose a judge"):
        BrowseIndex(sample_release).mask(flags=[FLAG_JUDGE])


def test_mask_unknown_flag(sample_release) -> None:
    with pytest.raises(ValueError, match="unknown filter"):
        BrowseIndex(sample_release).mask(flags=["nope"])


def test_mask_split_tier_lexical_specialty_text(sample_release) -> None:
    index = BrowseIndex(sample_release)
    assert int(index.mask(split="core").sum()) == 2
    assert list(sample_release.item_ids[index.mask(tier="T4")]) == ["S-E02", "S-E04"]
    assert int(index.mask(lexical="exact match").sum()) == int(sample_release.lexical.sum())
    assert list(sample_release.item_ids[index.mask(specialty="Anatomie")]) == ["S-C01"]
    assert list(sample_release.item_ids[index.mask(text="  mcburney ")]) == ["S-E03"]


def test_add_judge_registers_unique_names(sample_release) -> None:
    index = BrowseIndex(sample_release)
    labels = np.array(sample_release.consensus, dtype=np.int8)
    assert index.add_judge("x", labels) == "x"
    assert index.add_judge("x", labels) == "x (2)"
    assert not index.mask(flags=[FLAG_JUDGE], judge="x").any()


def test_blind_order_is_fixed_per_item() -> None:
    assert blind_order("S-C01") == blind_order("S-C01")
    assert sorted(blind_order("S-C01")) == list(range(vocab.N_SLOTS))
    orders = {tuple(blind_order(f"Q{i}")) for i in range(30)}
    assert len(orders) > 1


def test_browse_review_note_keeps_line_breaks(sample_release) -> None:
    """A review note that spans lines keeps its breaks in the item view (as ``<br>``), each
    line still escaped."""
    index = BrowseIndex(sample_release)
    item = str(sample_release.item_ids[0])
    answer_id = str(sample_release.answers.iloc[0]["answer_id"])
    index.reviews = {answer_id: ["dr-a: Fehler (erste Zeile\nzweite <Zeile>\r\ndritte)"]}
    html = index.view(item).html
    assert "erste Zeile<br>zweite &lt;Zeile&gt;<br>dritte)" in html
    assert "<Zeile>" not in html
