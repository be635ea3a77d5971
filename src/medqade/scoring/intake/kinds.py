"""The kinds and formats of a submission, and telling them apart from a file's columns.

A submission is judge labels (``kind="judge"``, format ``rows`` or ``per_question``) or model
answers (``kind="answers"``, format ``answers``); :func:`detect_kind` decides from the
normalised column names when the caller does not say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from medqade.files.problems import InputError, Problem

JUDGE: Final = "judge"
ANSWERS: Final = "answers"
KINDS: Final = (JUDGE, ANSWERS)
ROWS: Final = "rows"
PER_QUESTION: Final = "per_question"
RESP: Final = re.compile(r"^resp_\d+$")


def detect_kind(columns: Iterable[str], name: str) -> tuple[str, str]:
    """``(kind, format)`` from normalised column names, or ``InputError`` saying what is
    missing."""
    cols = set(columns)
    per_question = any(c == "order" or RESP.match(c) for c in cols)
    rows = "label" in cols and ("model" in cols or "answer_id" in cols)
    if per_question and rows:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    "the file mixes per-question columns (order, resp_k) with row columns "
                    "(model, label)",
                    fix="use one format: question_id,model,label rows or question_id,order,"
                    "resp_1..resp_5 objects",
                )
            ],
        )
    if per_question:
        return JUDGE, PER_QUESTION
    if rows:
        return JUDGE, ROWS
    if "answer" in cols:
        return ANSWERS, ANSWERS
    if "label" in cols:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    "this looks like labels for model answers (question_id, label) without the "
                    "answers",
                    fix="score the answers file and pass this file as its labels "
                    "(medqade score ANSWERS --labels THIS)",
                )
            ],
        )
    raise InputError(
        name,
        [
            Problem(
                name,
                None,
                "cannot tell the kind of submission from the columns",
                value=", ".join(sorted(cols))[:200] or "(none)",
                fix="judge labels need question_id, model, label (or question_id, order, "
                "resp_1..resp_5); model answers need question_id, answer",
            )
        ],
    )
