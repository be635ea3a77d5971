"""Judge labels: the row format (one row per answer slot) and the per-question format.

Both walks fill a ``(items, 5)`` array of label codes (``MISSING_CODE`` where no label), a
``(items, 5)`` mask of the slots that have a row and a ``(items, 5)`` array of the positions
1-5 at which the judge saw each answer (0 where unknown: from ``order`` in the per-question
format, from an optional ``position`` column in the row format), in the release's order; the
formats are described in :mod:`medqade.scoring.intake.submission`.

A fourth ``(items, 5)`` mask marks the **invalid replies**: answers whose row has no label and
an ``error`` that starts with ``invalid`` (:func:`invalid_error`), as ``medqade judge`` and an
Inspect log of ``medqade/judge`` keep a reply that could not be parsed. Another error (a failed
request, no reply) leaves the answer missing, and a file without an ``error`` column has no
invalid replies (:data:`ERROR_COLUMN`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.files.problems import ProblemLog
from medqade.scoring.intake.rows import Walker, cells, evaluators, ignored, require, summarise
from medqade.scoring.intake.upload_cells import LINE, NOT_TEXT, cell_text

Walked = tuple[
    npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.int8], npt.NDArray[np.bool_]
]
"""Labels, rows, positions and invalid replies, each (items, 5)."""
ERROR_COLUMN: Final = "error"
INVALID_PREFIX: Final = "invalid"


def invalid_error(value: Any) -> bool:
    """Whether an ``error`` cell says the judge's reply could not be parsed (its text starts
    with ``invalid``, as the runners and :mod:`~medqade.scoring.intake.log_rows` write it)."""
    text = cell_text(value)
    return isinstance(text, str) and text.strip().lower().startswith(INVALID_PREFIX)


def _position(w: Walker, line: int, value: Any) -> int | None:
    """A position 1-5, 0 for an empty cell, ``None`` after an error."""
    text = cell_text(value)
    if text is None:
        return 0
    fix = (
        f"write the position 1-{vocab.N_SLOTS} at which the judge saw the answer, or leave it empty"
    )
    if text is NOT_TEXT:  # the cell's own value, not the marker object
        w.error(line, "position", "invalid position: a list or object, not a number", value, fix)
        return None
    try:
        number = float(str(text).strip())
    except ValueError:
        number = math.nan
    if not number.is_integer() or not 1 <= number <= vocab.N_SLOTS:
        w.error(line, "position", "invalid position", text, fix)
        return None
    return int(number)


def _check_positions(w: Walker, positions: npt.NDArray[np.int8], lines: dict[int, int]) -> None:
    """A question whose positions repeat one number is an error (the order cannot be read)."""
    for i, line in lines.items():
        given = positions[i][positions[i] > 0]
        if len(set(given.tolist())) != len(given):
            w.error(
                line,
                "position",
                "two answers of this question have the same position",
                ",".join(str(int(x)) for x in positions[i]),
                f"give each of the {vocab.N_SLOTS} answers of a question its own position",
            )


def judge_rows(w: Walker, log: ProblemLog) -> Walked:
    t = w.t
    n = w.release.n_items
    labels = np.full((n, vocab.N_SLOTS), vocab.MISSING_CODE, dtype=np.int8)
    present = np.zeros((n, vocab.N_SLOTS), dtype=bool)
    positions = np.zeros((n, vocab.N_SLOTS), dtype=np.int8)
    invalid = np.zeros((n, vocab.N_SLOTS), dtype=bool)
    with_position: dict[int, int] = {}
    first = np.zeros((n, vocab.N_SLOTS), dtype=np.int64)
    frame = t.frame
    by_answer_id = "answer_id" in frame.columns and not {"question_id", "model"} <= set(frame)
    if by_answer_id:
        ok = require(t, ("answer_id", "label"), "judge labels", log)
    else:
        ok = require(t, ("question_id", "model", "label"), "judge labels", log)
    if not ok:
        return labels, present, positions, invalid
    ignored(t, ("answer_id", "question_id", "model", "label", "difficulty", "position"), log)
    evaluators(t, log)
    has_difficulty = "difficulty" in frame.columns
    has_position = "position" in frame.columns
    empty, dupes = [], []
    if by_answer_id:
        cols = [cells(frame, "answer_id")] * 2
    else:
        cols = [cells(frame, "question_id"), cells(frame, "model")]
    diff_col = cells(frame, "difficulty")
    pos_col = cells(frame, "position")
    for line, q_cell, m_cell, l_cell, d_cell, p_cell, e_cell in zip(
        cells(frame, LINE),
        cols[0],
        cols[1],
        cells(frame, "label"),
        diff_col,
        pos_col,
        cells(frame, ERROR_COLUMN),
        strict=True,
    ):
        line = int(line)
        shown_at = _position(w, line, p_cell) if has_position else 0
        if by_answer_id:
            text = w.text(line, "answer_id", q_cell)
            qid, _, model = (text or "").rpartition("/")
            if not (qid and model):
                if cell_text(q_cell) is not NOT_TEXT:
                    w.error(line, "answer_id", "not an answer id", text, "write QUESTION_ID/MODEL")
                continue
            i = w.item(line, "answer_id", qid)
            s = w.slot(line, "answer_id", model)
        else:
            i = w.item(line, "question_id", q_cell)
            s = w.slot(line, "model", m_cell)
        code = w.label(line, "label", l_cell)
        if has_difficulty:
            w.difficulty(line, "difficulty", d_cell)
        if i is None or s is None or code is None or shown_at is None:
            continue
        if code == vocab.MISSING_CODE:
            empty.append(line)
        if present[i, s]:
            if labels[i, s] != code:
                w.error(
                    line,
                    "label",
                    f"duplicate row for this question and model, with a different label than "
                    f"{t.row_kind} {first[i, s]}",
                    vocab.CODE_LABELS.get(int(code), ""),
                    "keep one row per question and model",
                )
            else:
                dupes.append(line)
            continue
        present[i, s] = True
        labels[i, s] = code
        invalid[i, s] = code == vocab.MISSING_CODE and invalid_error(e_cell)
        first[i, s] = line
        if shown_at:
            positions[i, s] = shown_at
            with_position.setdefault(i, line)
    _check_positions(w, positions, with_position)
    summarise(log, t, empty, "no label: counted as missing, not as an abstention")
    summarise(log, t, dupes, "repeats an earlier row with the same label: kept once")
    return labels, present, positions, invalid


def _order(w: Walker, line: int, value: Any) -> list[int] | None:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                value = None
        else:
            value = [p for p in re.split(r"[|;,]", text) if p.strip()]
    fix = f"list the {vocab.N_SLOTS} student ids in the order resp_1..resp_{vocab.N_SLOTS} judge"
    if not isinstance(value, list) or len(value) != vocab.N_SLOTS:
        w.error(line, "order", f"expected a list of {vocab.N_SLOTS} student ids", value, fix)
        return None
    slots = [w.slot(line, "order", m) for m in value]
    if any(s is None for s in slots):
        return None
    out = [int(s) for s in slots if s is not None]
    if len(set(out)) != len(out):
        w.error(line, "order", "a student appears twice in the order", value, fix)
        return None
    return out


def judge_per_question(w: Walker, log: ProblemLog) -> Walked:
    t = w.t
    n = w.release.n_items
    labels = np.full((n, vocab.N_SLOTS), vocab.MISSING_CODE, dtype=np.int8)
    present = np.zeros((n, vocab.N_SLOTS), dtype=bool)
    positions = np.zeros((n, vocab.N_SLOTS), dtype=np.int8)
    invalid = np.zeros((n, vocab.N_SLOTS), dtype=bool)
    first = np.zeros(n, dtype=np.int64)
    resp = [f"resp_{k}" for k in range(1, vocab.N_SLOTS + 1)]
    if not require(t, ("question_id", "order", *resp), "per-question judge labels", log):
        return labels, present, positions, invalid
    ignored(t, ("question_id", "order", *resp, "difficulty"), log)
    evaluators(t, log)
    frame = t.frame
    has_difficulty = "difficulty" in frame.columns
    dupes: list[int] = []
    null_lines: list[int] = []
    records = zip(
        frame[LINE],
        frame["question_id"],
        frame["order"],
        *(frame[r] for r in resp),
        frame["difficulty"] if has_difficulty else [None] * len(frame),
        cells(frame, ERROR_COLUMN),
        strict=True,
    )
    for line, q_cell, o_cell, *rest in records:
        line = int(line)
        *resp_cells, d_cell, e_cell = rest
        i = w.item(line, "question_id", q_cell)
        order = _order(w, line, o_cell)
        codes = [w.label(line, r, c) for r, c in zip(resp, resp_cells, strict=True)]
        if has_difficulty:
            w.difficulty(line, "difficulty", d_cell)
        if i is None or order is None or any(c is None for c in codes):
            continue
        row = np.full(vocab.N_SLOTS, vocab.MISSING_CODE, dtype=np.int8)
        for s, c in zip(order, codes, strict=True):
            row[s] = c if c is not None else vocab.MISSING_CODE
        if (row == vocab.MISSING_CODE).any():
            null_lines.append(line)
        if present[i].any():
            if not np.array_equal(labels[i], row):
                w.error(
                    line,
                    "question_id",
                    f"question judged twice, with different labels than {t.row_kind} {first[i]}",
                    w.release.item_ids[i],
                    "keep one object per question",
                )
            else:
                dupes.append(line)
            continue
        labels[i] = row
        present[i] = True
        invalid[i] = (row == vocab.MISSING_CODE).all() and invalid_error(e_cell)
        first[i] = line
        positions[i, order] = np.arange(1, vocab.N_SLOTS + 1)
    summarise(log, t, null_lines, "null labels: counted as missing")
    summarise(log, t, dupes, "repeats an earlier identical object: kept once")
    return labels, present, positions, invalid
