"""Model-answer rows (:mod:`medqade.scoring.intake.answer_rows`): one answer per question in the
release's order, and every row that cannot stand named with its line."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from medqade.dataset.release import Release
from medqade.files.problems import ProblemLog
from medqade.scoring.intake.answer_rows import answer_rows
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.rows import Walker
from medqade.scoring.intake.upload import read_upload


def _walk(
    release: Release, text: str, limits: Limits | None = None
) -> tuple[list[Any], npt.NDArray[np.bool_], ProblemLog]:
    table = read_upload(text.encode("utf-8"), "a.csv", 10**6)
    log = ProblemLog()
    answers, present = answer_rows(Walker(table, release, log), log, limits or Limits())
    return answers, present, log


def test_answers_land_in_the_release_s_order(sample: Release) -> None:
    ids = [str(q) for q in sample.item_ids]
    text = f"question_id,answer\n{ids[2]}, N. medianus \n{ids[0]},Femur\n{ids[1]},\n"
    answers, present, log = _walk(sample, text)
    assert answers[:3] == ["Femur", None, "N. medianus"]
    assert present.tolist()[:3] == [True, True, True] and not present[3:].any()
    assert log.errors == []


def test_rows_that_cannot_stand_are_named(sample: Release) -> None:
    ids = [str(q) for q in sample.item_ids]
    text = (
        "question_id,answer\n"
        f"{ids[0]},Femur\n"
        f"{ids[0]},Tibia\n"  # line 3: answered twice, differently
        "S-NOPE,Femur\n"  # line 4: unknown question
        f"{ids[1]},{'x' * 20}\n"  # line 5: over the limit below
    )
    answers, present, log = _walk(sample, text, Limits(max_answer_chars=10))
    assert answers[0] == "Femur" and present[0] and not present[1]
    by_line = {p.row: p.message for p in log.errors}
    assert "question answered twice, differently than in line 2" in by_line[3]
    assert 4 in by_line
    assert "more than the limit of 10" in by_line[5]


def test_missing_columns_are_refused(sample: Release) -> None:
    _, present, log = _walk(sample, "question_id,antwort\nS-C01,Femur\n")
    assert not present.any() and log.errors
    assert "answer" in str(log.errors[0])
