"""What a ranked board resolves, and ranks that depend only on the rows compared (issue 33):
the string baselines are shown but never ranked, a high-variance verified row changes no other
row's rank interval, the board's resolution is said in words, and ``compare`` says when a pair
is separated pairwise but not on the board."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pytest

from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures.estimate import Estimate
from medqade.measures.ranking import Resolution, rank_board
from medqade.scoring import Settings, parse_submission, reference_records
from medqade.scoring.board.comparison import compare, resolve
from medqade.scoring.board.simultaneous import board_pair, resolution_note
from medqade.scoring.board.tables import board_key, leaderboard
from medqade.scoring.record.score_record import ScoreRecord

from ..helpers import codes_to_rows, scored

RESAMPLES = 200


def _intervals(judges: pd.DataFrame) -> dict[str, tuple[Any, Any]]:
    ranked = judges[judges["rank"].notna()]
    return {
        str(i): (int(b), int(w))
        for i, b, w in zip(ranked["id"], ranked["rank"], ranked["rank_worst"], strict=True)
    }


def _noisy_judge(release: Release, seed: int = 3) -> dict[str, Any]:
    """A verified judge that labels at random and abstains on 40% of the answers."""
    rng = np.random.default_rng(seed)
    shape = release.consensus.shape
    codes = np.where(rng.random(shape) < 0.5, vocab.RICHTIG_CODE, vocab.FALSCH_CODE)
    codes = np.where(rng.random(shape) < 0.4, vocab.ABSTAIN_CODE, codes).astype(np.int8)
    sub = parse_submission(codes_to_rows(release, codes).encode(), "noisy.csv", release)
    return scored(
        release, sub, {"name": "random, abstaining", "verified": True}, resamples=RESAMPLES
    )


def _check_invariance(refs: Sequence[ScoreRecord], noisy: dict[str, Any]) -> None:
    baselines = [r for r in refs if (r.meta and r.meta.source) == "baseline"]
    others = [r for r in refs if r not in baselines]
    assert len(baselines) == 5
    for view in ("core", "full"):
        alone = _intervals(leaderboard(others, view=view).judges_frame())
        with_baselines = leaderboard(refs, view=view).judges_frame()
        shown = with_baselines[with_baselines["source"] == "baseline"]
        assert len(shown) == 5 and shown["rank"].isna().all()  # shown, never ranked
        assert _intervals(with_baselines) == alone
        with_noisy = _intervals(leaderboard([*refs, noisy], view=view).judges_frame())
        assert str(noisy["id"]) in with_noisy  # the noisy row is ranked ...
        with_noisy.pop(str(noisy["id"]))
        k = len(alone)
        # ... and every other row keeps its interval (worst counts one more row below it
        # only where the noisy row is significantly worse than that row)
        for rid, (best, worst) in alone.items():
            new_best, new_worst = with_noisy[rid]
            assert new_best == best
            assert new_worst in (worst, worst + 1) and k + 1 >= new_worst


def test_sample_baselines_and_a_noisy_row_change_no_other_interval(sample: Release) -> None:
    refs = reference_records(sample, Settings(resamples=RESAMPLES))
    _check_invariance(refs, _noisy_judge(sample))


def test_release_baselines_and_a_noisy_row_change_no_other_interval(full: Release) -> None:
    refs = reference_records(full, Settings(resamples=RESAMPLES))
    noisy = _noisy_judge(full)
    _check_invariance(refs, noisy)
    # the noisy row is the widest row of the board: unstudentized, it set everyone's c
    tables = leaderboard([*refs, noisy])
    board = tables.judges_board
    assert board is not None
    i = board.index(board_key(noisy["id"], "core", "kappa"))
    assert i is not None
    others = [j for j in range(len(board.keys)) if j != i]
    assert np.nanmin(board.standard_errors[i]) > np.nanmax(board.standard_errors[others][:, others])


def test_resolution_note_says_what_the_board_resolves(full: Release) -> None:
    refs = reference_records(full, Settings(resamples=RESAMPLES))
    tables = leaderboard(refs)
    res = tables.judges_resolution
    assert isinstance(res, Resolution) and res.rows == 9 and res.pairs == 36
    board = tables.judges_board
    assert board is not None
    pair_se = board.standard_errors[np.triu_indices(9, 1)]
    assert res.smallest_resolvable == pytest.approx(res.critical * pair_se.min(), rel=1e-12)
    assert res.median_resolvable == pytest.approx(res.critical * np.median(pair_se), rel=1e-12)
    note = resolution_note(res, "kappa")
    assert f"{res.smallest_resolvable:.3f}" in note and f"{res.median_resolvable:.3f}" in note
    assert "9 ranked judges" in note and "baselines" in note
    pa = leaderboard(refs, metric="pa").judges_resolution
    pabak = leaderboard(refs, metric="pabak").judges_resolution
    assert pa is not None and pabak is not None  # PABAK = 2 PA - 1, ranked through PA
    assert pabak.median_resolvable == pytest.approx(2 * pa.median_resolvable, rel=1e-12)
    assert pabak.critical == pa.critical
    assert resolution_note(None, "kappa") == ""


def _paper_token(record: ScoreRecord) -> str:
    return str(record.meta.model_id if record.meta else "")


def test_compare_says_when_a_pair_is_separated_pairwise_but_not_on_the_board(
    full: Release,
) -> None:
    refs = reference_records(full, Settings(resamples=RESAMPLES))
    tables = leaderboard(refs)
    board = tables.judges_board
    assert board is not None
    paper = [r for r in refs if r.meta and r.meta.source == "paper" and r.kind == "judge"]
    seen: set[tuple[bool, bool]] = set()
    for x in paper:
        for y in paper:
            if str(x.id) >= str(y.id):
                continue
            c = compare(
                full,
                resolve(full, _paper_token(x), refs),
                resolve(full, _paper_token(y), refs),
                resamples=RESAMPLES,
                ranked=board,
                records=refs,
            )
            assert c.board is not None
            test = board.pair(
                board_key(str(x.id), "core", "kappa"), board_key(str(y.id), "core", "kappa")
            )
            assert test is not None
            assert c.board.test == test and c.board.simultaneous == test.separated
            assert c.board.pairwise == c.overall.kappa.excludes_zero()
            assert c.overall.kappa.value == pytest.approx(test.d, abs=1e-12)
            seen.add((c.board.pairwise, c.board.simultaneous))
            if c.board.pairwise_only:
                assert c.board.text().startswith("Separated pairwise, not simultaneously")
                assert c.to_dict()["board"]["separated_simultaneously"] is False
    assert (True, False) in seen and (True, True) in seen  # both cases occur on this board


def test_board_pair_words_for_each_case() -> None:
    rng = np.random.default_rng(4)
    shared = rng.normal(0, 0.03, 500)
    reps = np.array([0.70, 0.66, 0.40])[:, None] + shared + rng.normal(0, 0.012, (3, 500))
    est = np.array([0.70, 0.66, 0.40])
    board = rank_board(["a", "b", "c"], est, reps)
    yes = Estimate(0.04, 0.01, 0.07)
    no = Estimate(0.04, -0.01, 0.09)
    close = board_pair(board, "a", "b", yes)
    assert close is not None and close.pairwise_only
    assert "critical value" in close.text() and "includes 0" in close.text()
    far = board_pair(board, "a", "c", yes)
    assert far is not None and far.simultaneous and far.text().startswith("Separated on the")
    neither = board_pair(board, "a", "b", no)
    assert neither is not None and neither.text().startswith("Not separated")
    assert board_pair(board, "a", "zzz", yes) is None and board_pair(None, "a", "b", yes) is None
    assert math.isfinite(far.to_dict()["critical"])


def test_compare_with_physicians_labels_the_in_place_kappa(full: Release) -> None:
    """`compare X physicians` showed the judge's kappa in each physician's place (0.7101)
    unlabelled where every other view shows its kappa against the consensus (0.7148): both
    are now kept, the consensus one equal to the leaderboard's."""
    refs = reference_records(full, Settings(resamples=RESAMPLES))
    judges = leaderboard(refs).judges_frame()
    side = resolve(full, "gemini-3-flash-preview")
    c = compare(full, side, resolve(full, "physicians"), resamples=RESAMPLES)
    assert c.judge_side == "a" and c.against_consensus is not None
    row = judges[judges["model_id"] == "gemini-3-flash-preview"].iloc[0]
    assert c.against_consensus.kappa.value == pytest.approx(row["kappa"], abs=1e-15)
    assert c.overall.a.kappa.value != pytest.approx(row["kappa"], abs=1e-4)  # another quantity
    out = c.to_dict()["judge_against_consensus"]
    assert out["kappa"] == pytest.approx(row["kappa"], abs=1e-15) and out["side"] == "a"
    reverse = compare(full, resolve(full, "physicians"), side, resamples=RESAMPLES)
    assert reverse.judge_side == "b"
    two_judges = compare(full, side, resolve(full, "gpt-5.4-mini"), resamples=RESAMPLES)
    assert two_judges.judge_side is None and two_judges.against_consensus is None
