"""``medqade answer`` as a library: cloze questions in, a model-answer submission out.

A submission has one row per question, ``question_id, answer``; an item the model did not
answer usably has ``answer`` null (JSONL, with ``error`` and ``raw``) or empty (CSV).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import pandas as pd

from medqade.files import atomic
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


def submission_rows(
    question_ids: Sequence[str],
    asked: Mapping[str, Mapping[str, Any]],
    earlier: Mapping[str, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Rows ``{"question_id", "answer"}`` in question order, from the earlier output
    (``earlier``, kept by a resumed run) or this run's log (``asked``, rows of
    :func:`medqade.scoring.inspect_log.rows_of_log`); failures get ``answer: None``,
    ``error``, ``raw``."""
    rows: list[dict[str, Any]] = []
    for qid in question_ids:
        if qid in earlier:
            rows.append({"question_id": qid, "answer": earlier[qid]["answer"]})
            continue
        got = asked.get(qid, {"error": "error: not asked (the run stopped)"})
        if got.get("error") or got.get("answer") is None:
            error = got.get("error") or "invalid output"
            rows.append({"question_id": qid, "answer": None, "error": error, "raw": got.get("raw")})
        else:
            rows.append({"question_id": qid, "answer": got["answer"]})
    return rows


def earlier_answers(path: Path, settings: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The answered rows of an earlier ``medqade answer`` output at ``path`` written with the
    same ``settings`` (its sidecar marker), by question id."""
    path = Path(path)
    if atomic.sidecar_settings(path, ANSWER_OUTPUT) != dict(settings):
        return {}
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".jsonl":
        rows = [json.loads(line) for line in text.splitlines()]
    else:
        rows = list(csv.DictReader(io.StringIO(text)))
    return {
        str(r["question_id"]): {"answer": r["answer"]}
        for r in rows
        if r.get("answer") not in (None, "") and not r.get("error")
    }


ANSWER_OUTPUT: Final = "answer submission"
"""The kind in the sidecar marker (:func:`medqade.files.atomic.sidecar`) of ``medqade answer
--out``."""


def check_submission_path(path: Path, inputs: Sequence[tuple[Path, str]] = ()) -> None:
    """Raise ``ValueError`` unless ``path`` ends in ``.jsonl`` or ``.csv`` and the output policy
    (:func:`medqade.files.atomic.check_file`) lets the command write it and its sidecar marker: new,
    or an earlier output of ``medqade answer``; never an input (``inputs``), a link, a build or
    a raw release."""
    if Path(path).suffix.lower() not in SUBMISSION_SUFFIXES:
        raise ValueError(f"--out {path}: use a .jsonl or .csv file name (the format follows it)")
    atomic.check_sidecar_file(path, ANSWER_OUTPUT, inputs)


def write_submission(
    path: Path,
    rows: Sequence[dict[str, Any]],
    inputs: Sequence[tuple[Path, str]] = (),
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Write rows as JSONL or UTF-8 CSV, chosen by the extension of ``path``, with the sidecar
    marker (and the run's ``settings``, for a resumed run), together and atomically."""
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
    atomic.write_files(
        atomic.sidecar_planned(path, ANSWER_OUTPUT, text.encode("utf-8"), settings=settings)
    )
