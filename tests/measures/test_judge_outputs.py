"""Parse failures kept apart from abstentions: counts against pandas, intervals against a loop
over the drawn questions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from medqade.measures.judge_outputs import KINDS, OutputShares, output_kinds, output_shares
from medqade.measures.seeds import question_weights


def _data(seed: int, n_items: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = rng.choice([0, 1, 2, -1], p=[0.4, 0.4, 0.1, 0.1], size=(n_items, 5))
    invalid = (codes == -1) & (rng.random((n_items, 5)) < 0.5)  # half the blanks are failures
    return codes, invalid


def _frame(codes: np.ndarray, invalid: np.ndarray, items: list[int]) -> pd.DataFrame:
    rows = []
    for i in items:
        for s in range(codes.shape[1]):
            c = codes[i, s]
            kind = (
                "invalid"
                if invalid[i, s]
                else "labelled"
                if c in (0, 1)
                else "abstained"
                if c == 2
                else "missing"
            )
            rows.append({"item": i, "kind": kind})
    return pd.DataFrame(rows)


def test_counts_and_shares_equal_pandas() -> None:
    codes, invalid = _data(0)
    got = output_shares(codes, invalid)
    counts = _frame(codes, invalid, list(range(30)))["kind"].value_counts()
    assert got.counts == tuple(int(counts.get(k, 0)) for k in KINDS)
    assert got.total == codes.size and got.n_items == 30
    for k in KINDS:
        assert got.share(k).value == pytest.approx(counts.get(k, 0) / codes.size, abs=1e-15)
        assert math.isnan(got.share(k).low)
    replies = codes.size - counts.get("missing", 0)
    assert got.invalid_of_replies.value == pytest.approx(counts["invalid"] / replies)
    assert got.count("invalid") > 0 and got.count("missing") > 0  # both kinds occur


def test_intervals_equal_a_loop_over_resampled_questions() -> None:
    codes, invalid = _data(1)
    weights = question_weights(30, 80, seed=3)
    got = output_shares(codes, invalid, weights)
    invalid_reps, abstained_reps = [], []
    for counts in weights:
        df = _frame(codes, invalid, [i for i in range(30) for _ in range(counts[i])])
        invalid_reps.append((df.kind == "invalid").sum() / (df.kind != "missing").sum())
        abstained_reps.append((df.kind == "abstained").mean())
    for est, reps in (
        (got.invalid_of_replies, invalid_reps),
        (got.share("abstained"), abstained_reps),
    ):
        assert np.allclose(est.replicates, reps, atol=1e-15, rtol=0)
        assert est.ci == pytest.approx(tuple(np.percentile(reps, [2.5, 97.5])), abs=1e-12)
        assert est.low < est.value < est.high


def test_an_invalid_reply_is_neither_a_label_nor_an_abstention() -> None:
    """Also the worked example of docs/statistics.md (parse failures)."""
    codes = np.array([[1, 0, 2, -1, -1]])
    invalid = np.array([[False, False, False, True, False]])
    assert output_kinds(codes, invalid).tolist() == [[0, 0, 1, 2, 3]]
    got = output_shares(codes, invalid)
    assert isinstance(got, OutputShares)
    assert got.counts == (2, 1, 1, 1)
    assert [got.share(k).value for k in KINDS] == [0.4, 0.2, 0.2, 0.2]
    assert got.invalid_of_replies.value == 0.25  # 1 of the 4 replies could not be parsed
    js = got.to_json()
    assert js["invalid"] == 1 and js["abstained"] == 1 and js["invalid_of_replies"] == 0.25


def test_contradictions_are_refused() -> None:
    with pytest.raises(ValueError, match="carries a label or an abstention"):
        output_kinds(np.array([[2, 1]]), np.array([[True, False]]))
    with pytest.raises(ValueError, match="shape"):
        output_kinds(np.array([[2, 1]]), np.array([True, False]))
    with pytest.raises(ValueError, match="among"):
        output_kinds(np.array([[3, 1]]), np.array([[False, False]]))
