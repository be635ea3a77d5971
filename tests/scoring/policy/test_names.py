"""Names that would pass for another row (:mod:`medqade.scoring.policy.names`, issue 38): a display
name or model id equal, after case, spacing, punctuation and look-alike folding, to a
reference row's, the physicians' rows' or another account's verified row's is refused."""

from __future__ import annotations

import pytest

from medqade.dataset.release import Release
from medqade.scoring.policy import names
from medqade.scoring.policy.names import Taken, fold, name_problems, reference_names, verified_names
from medqade.scoring.record.score_record import ScoreRecord

CYRILLIC_E = "\u0435"  # looks like e
ZWJ = "\u200d"
ZWSP = "\u200b"

PASSING = [
    "Gemini 3 Flash",
    "gemini 3 flash",
    "GEMINI-3-FLASH",
    "Gemini  3  Flash",  # double spaces
    " Gemini 3 Flash. ",
    f"G{CYRILLIC_E}mini 3 Flash",  # Cyrillic e
    "Ｇｅｍｉｎｉ　３　Ｆｌａｓｈ",  # fullwidth letters and space
    f"Gem{ZWJ}ini 3 Fl{ZWSP}ash",  # zero-width joiner and space
    "Gemíni 3 Flash",  # an accent
    "Gem1ni 3 Flash",  # 1 for i
    "Physicians",
    "Physician ceiling",
    "PHYSICIAN-CEILING",
    f"Physici{chr(0x0430)}ns",  # Cyrillic a
    "Physicians (leave-one-out)",
    "physicians leave one out - ceiling",  # the board's ceiling row
    "Ρhysicians",  # Greek capital Rho
    "gemini-3-flash-preview",  # the evaluator's id
    "Exact match",  # a baseline
    "baseline-exact",
    "P01",  # a physician of the panel
]


@pytest.mark.parametrize("value", PASSING)
def test_names_passing_for_a_reference_row_are_refused(sample: Release, value: str) -> None:
    taken = reference_names(sample.roster)
    for key in ("name", "model_id"):
        (problem,) = name_problems({key: value}, taken, "mine.csv")
        assert problem.column == f"meta.{key}" and problem.value == value
        assert "would pass for" in problem.message and problem.fix
        assert problem.file == "mine.csv"


@pytest.mark.parametrize(
    "value",
    [
        "My judge",
        "Gemini 3 Flash (own prompt, ACME)",
        "acme/gemini-3-flash@2026-01",
        "Physicians' helper v2",
        "Mein Judge",
        "GPT-5.4 Mini fine-tuned",
    ],
)
def test_names_of_ones_own_stand(sample: Release, value: str) -> None:
    assert (
        name_problems({"name": value, "model_id": value}, reference_names(sample.roster), "f") == []
    )


def test_the_line_says_which_row_and_shows_hidden_characters(sample: Release) -> None:
    taken = reference_names(sample.roster)
    (problem,) = name_problems({"name": f"Gemini 3 Fl{chr(0x0430)}sh"}, taken, "mine.csv")
    text = str(problem)
    assert "the paper evaluator Gemini 3 Flash" in text
    assert "Fl\\u0430sh" in text  # the look-alike named by its code point
    assert "choose a name of your own run" in text
    (problem,) = name_problems({"name": "Physician ceiling"}, taken, "mine.csv")
    assert "the physicians' row" in problem.message and "own display name" in str(problem.fix)
    (problem,) = name_problems({"name": ZWJ + " " + ZWSP}, taken, "mine.csv")
    assert "no letter or digit" in problem.message


def test_fold_is_the_one_rule() -> None:
    assert fold("Gemini 3 Flash") == fold(f"G{CYRILLIC_E}mini\u00a03\u2003Flash!")
    assert fold("GPT-4o") != fold("GPT-4")
    assert fold("Gemini 3 Flash (own)") != fold("Gemini 3 Flash")
    assert fold("ﬁne") == fold("fine")  # a ligature
    assert fold("rn") == fold("m") and fold("vv") == fold("w")
    assert fold("") == "" and fold(ZWJ) == ""
    assert set(names.CHECKED_KEYS) == {"name", "model_id"}


def test_another_accounts_verified_row_is_taken_not_ones_own() -> None:
    def record(account: str, verified: bool, name: str) -> ScoreRecord:
        return ScoreRecord.from_json(
            {
                "id": f"{account}-{name}",
                "kind": "judge",
                "meta": {"name": name, "model_id": f"{name}-id", "verified": verified},
                "space": {"account": account},
            }
        )

    records = [
        record("alice", True, "Alice Judge"),
        record("bob", False, "Bob Judge"),
        record("me", True, "My Judge"),
    ]
    taken = verified_names(records, ("me", "my-old-hash"))
    assert {t.shown for t in taken} == {"Alice Judge", "Alice Judge-id"}
    (problem,) = name_problems({"name": "alice  judge"}, taken, "f")
    assert "another account's verified row Alice Judge" in problem.message
    assert name_problems({"name": "Bob Judge"}, taken, "f") == []  # not verified
    assert name_problems({"name": "My Judge"}, taken, "f") == []  # one's own
    assert Taken("X", "y").folded == "x"
