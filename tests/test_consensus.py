"""Tests of medqade.consensus (methods digest section 3), expected values derived by hand."""

from __future__ import annotations

import numpy as np
import pytest

from medqade import vocab
from medqade.consensus import majority, majority_of_codes

R, F, A, M = vocab.RICHTIG_CODE, vocab.FALSCH_CODE, vocab.ABSTAIN_CODE, vocab.MISSING_CODE


@pytest.mark.parametrize(
    ("richtig", "falsch", "expected"),
    [
        (2, 0, R),
        (0, 1, F),
        (5, 4, R),
        (4, 5, F),
        (4, 4, M),  # tie
        (0, 0, M),  # no non-abstaining vote
    ],
)
def test_majority_counts(richtig: int, falsch: int, expected: int) -> None:
    assert majority(richtig, falsch).item() == expected


def test_majority_broadcasts_and_returns_int8() -> None:
    got = majority(np.array([[3, 1], [0, 2]]), np.array([[1, 1], [0, 3]]))
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, [[R, M], [M, F]])


def test_majority_of_codes_ignores_abstain_and_missing() -> None:
    # rows = raters, columns = answers
    codes = np.array(
        [
            [R, F, A, A, R],
            [R, F, A, M, F],
            [A, R, M, M, A],
        ]
    )
    # answer 0: 2 R : 0 F -> R; answer 1: 1 R : 2 F -> F; answer 2: no votes -> M;
    # answer 3: no votes -> M; answer 4: 1 R : 1 F -> tie -> M
    np.testing.assert_array_equal(majority_of_codes(codes, axis=0), [R, F, M, M, M])


def test_majority_of_codes_adjudicator_breaks_a_tie() -> None:
    primary = np.array([[R, F], [F, F]])
    adjudicator = np.array([[R, R]])
    before = majority_of_codes(primary, axis=0)
    after = majority_of_codes(np.vstack([primary, adjudicator]), axis=0)
    np.testing.assert_array_equal(before, [M, F])
    np.testing.assert_array_equal(after, [R, F])  # 2 R : 1 F; 1 R : 2 F


def test_majority_of_codes_adjudicator_can_make_a_new_tie() -> None:
    # three votes 2 R : 1 F -> R; the adjudicator's F makes it 2 : 2 -> unresolved
    codes = np.array([[R], [R], [F], [F]])
    np.testing.assert_array_equal(majority_of_codes(codes[:3], axis=0), [R])
    np.testing.assert_array_equal(majority_of_codes(codes, axis=0), [M])
