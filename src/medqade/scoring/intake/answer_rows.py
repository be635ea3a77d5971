"""Model answers: one row per question, ``question_id,answer``.

The walk gives the answer of each item in the release's order (``None``: no row or not
answered) and a mask of the items that have a row; the format is described in
:mod:`medqade.scoring.intake.submission`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from medqade.files.problems import ProblemLog
from medqade.scoring.intake.rows import Walker, ignored, require, summarise
from medqade.scoring.intake.upload_cells import LINE, NOT_TEXT, cell_text, looks_like_formula

if TYPE_CHECKING:
    from medqade.scoring.intake.limits import Limits


def answer_rows(
    w: Walker, log: ProblemLog, limits: Limits
) -> tuple[list[str | None], npt.NDArray[np.bool_]]:
    t = w.t
    n = w.release.n_items
    answers: list[str | None] = [None] * n
    present = np.zeros(n, dtype=bool)
    first = np.zeros(n, dtype=np.int64)
    if not require(t, ("question_id", "answer"), "model answers", log):
        return answers, present
    ignored(t, ("question_id", "answer"), log)
    frame = t.frame
    unanswered, dupes, formulas = [], [], []
    for line, q_cell, a_cell in zip(
        frame[LINE], frame["question_id"], frame["answer"], strict=True
    ):
        line = int(line)
        i = w.item(line, "question_id", q_cell)
        text = w.text(line, "answer", a_cell)
        if text is not None:
            text = text.strip()
            if len(text) > limits.max_answer_chars:
                w.error(
                    line,
                    "answer",
                    f"answer has {len(text)} characters, more than the limit of "
                    f"{limits.max_answer_chars}",
                    text[:60] + "...",
                    "submit only the short answer (the missing word or term), no explanation",
                )
                continue
            if looks_like_formula(text):
                formulas.append(line)
        elif cell_text(a_cell) is NOT_TEXT:
            continue
        if i is None:
            continue
        if present[i]:
            if answers[i] != text:
                w.error(
                    line,
                    "answer",
                    f"question answered twice, differently than in {t.row_kind} {first[i]}",
                    text,
                    "keep one answer per question",
                )
            else:
                dupes.append(line)
            continue
        present[i] = True
        answers[i] = text
        first[i] = line
        if text is None:
            unanswered.append(line)
    summarise(
        log,
        t,
        unanswered,
        "no answer: left out of every accuracy (not counted as wrong)",
    )
    summarise(log, t, dupes, "repeats an earlier identical answer: kept once")
    summarise(
        log,
        t,
        formulas,
        "looks like a spreadsheet formula: scored as plain text, and written with a leading ' "
        "in CSV exports",
        fix="check that the file was not mangled by a spreadsheet",
    )
    return answers, present
