"""``medqade answer`` as a library: cloze questions in, a model-answer submission out.

A submission has one row per question, ``question_id, answer``; an item the model did not
answer usably has ``answer`` null (JSONL, with ``error`` and ``raw``) or empty (CSV).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import pandas as pd

from medqade import atomic
from medqade.runners.jobs import Job, Outcome
from medqade.runners.prompts import STUDENT_SYSTEM_PROMPT, student_user_message
from medqade.vocab import CORE, EXTENSION

SPLIT_CHOICES: Final = (CORE, EXTENSION, "all")
SUBMISSION_SUFFIXES: Final = (".jsonl", ".csv")


def select_questions(
    questions: pd.DataFrame, split: str = "all", limit: int | None = None
) -> pd.DataFrame:
    """The questions of ``split`` (``core``, ``extension`` or ``all``), the first ``limit``."""
    if split not in SPLIT_CHOICES:
        raise ValueError(f"--split must be one of {', '.join(SPLIT_CHOICES)}, got {split!r}")
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be at least 1, got {limit}")
    chosen = questions if split == "all" else questions[questions["split"] == split]
    if limit is not None:
        chosen = chosen.head(limit)
    return chosen.reset_index(drop=True)


def student_jobs(questions: pd.DataFrame, system_prompt: str = STUDENT_SYSTEM_PROMPT) -> list[Job]:
    """One chat request per question: the system prompt, then the cloze question."""
    system = {"role": "system", "content": system_prompt}
    return [
        Job(str(qid), (system, {"role": "user", "content": student_user_message(str(text))}))
        for qid, text in zip(questions["question_id"], questions["question"], strict=True)
    ]


def submission_rows(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    """Rows ``{"question_id", "answer"}``; failures get ``answer: None``, ``error``, ``raw``."""
    rows: list[dict[str, Any]] = []
    for o in outcomes:
        if o.status == "ok":
            rows.append({"question_id": o.item_id, "answer": o.value})
        else:
            rows.append({"question_id": o.item_id, "answer": None, "error": o.error, "raw": o.raw})
    return rows


ANSWER_OUTPUT: Final = "answer submission"
"""The kind in the sidecar marker (:func:`medqade.atomic.sidecar`) of ``medqade answer --out``."""


def check_submission_path(path: Path, inputs: Sequence[tuple[Path, str]] = ()) -> None:
    """Raise ``ValueError`` unless ``path`` ends in ``.jsonl`` or ``.csv`` and the output policy
    (:func:`medqade.atomic.check_file`) lets the command write it and its sidecar marker: new,
    or an earlier output of ``medqade answer``; never an input (``inputs``), a link, a build or
    a raw release."""
    if Path(path).suffix.lower() not in SUBMISSION_SUFFIXES:
        raise ValueError(f"--out {path}: use a .jsonl or .csv file name (the format follows it)")
    atomic.check_sidecar_file(path, ANSWER_OUTPUT, inputs)


def write_submission(
    path: Path, rows: Sequence[dict[str, Any]], inputs: Sequence[tuple[Path, str]] = ()
) -> None:
    """Write rows as JSONL or UTF-8 CSV, chosen by the extension of ``path``, with the sidecar
    marker, together and atomically."""
    path = Path(path)
    check_submission_path(path, inputs)
    if path.suffix.lower() == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["question_id", "answer"])
        for r in rows:
            writer.writerow([r["question_id"], r["answer"] if r["answer"] is not None else ""])
        text = buf.getvalue()
    atomic.write_files(atomic.sidecar_planned(path, ANSWER_OUTPUT, text.encode("utf-8")))
