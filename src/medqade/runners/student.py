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

from medqade.files import atomic, file_output
from medqade.files.problems import InputError, Problem
from medqade.files.tables import read_jsonl_text
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
    :func:`medqade.scoring.intake.log_rows.rows_of_log`); failures get ``answer: None``,
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


def earlier_problem(
    path: Path, command: str, line: int | None, message: str, value: Any
) -> Problem:
    """A line of an earlier output that its sidecar marker vouches for but that ``medqade
    COMMAND`` never writes (the file or its marker was edited by hand): what to do instead."""
    marker = file_output.sidecar(Path(path)).name
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return Problem(
        str(path),
        line,
        f"{message}, but its marker {marker} says medqade {command} wrote this file as it is",
        value=shown[:80],
        fix=f"move {Path(path).name} and {marker} away (or delete both) to start over, or "
        "give another --out",
    )


def earlier_text(path: Path, command: str) -> str:
    """The text of an earlier output of ``medqade COMMAND``; bytes that are not UTF-8 raise
    :class:`InputError` naming the line (:func:`earlier_problem`)."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        value = f"byte 0x{data[exc.start]:02X}"
        message = "the line is not UTF-8 text"
        raise InputError(
            str(path), [earlier_problem(path, command, line, message, value)]
        ) from None


def earlier_objects(path: Path, command: str) -> list[tuple[int, dict[str, Any]]]:
    """The JSON objects of an earlier JSON-lines output of ``medqade COMMAND`` at ``path``,
    each with its line number; a line that is not a JSON object raises :class:`InputError`
    naming the file, the line and its text (:func:`earlier_problem`)."""
    records, lines, problems = read_jsonl_text(earlier_text(path, command), str(path))
    if problems:
        raise InputError(
            str(path),
            [earlier_problem(path, command, p.row, p.message, p.value) for p in problems],
        )
    return list(zip(lines, records, strict=True))


def earlier_answers(path: Path, settings: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The answered rows of an earlier ``medqade answer`` output at ``path`` written with the
    same ``settings`` (its sidecar marker), by question id; a line ``medqade answer`` never
    writes raises :class:`InputError` (:func:`earlier_problem`)."""
    path = Path(path)
    if file_output.sidecar_settings(path, ANSWER_OUTPUT) != dict(settings):
        return {}
    if path.suffix.lower() == ".jsonl":
        rows = earlier_objects(path, "answer")
    else:
        rows = _earlier_csv(path)
    problems: list[Problem] = []
    kept: dict[str, dict[str, Any]] = {}
    for line, r in rows:
        qid, answer = r.get("question_id"), r.get("answer")
        if not isinstance(qid, str) or not (answer is None or isinstance(answer, str)):
            message = "a row needs a text question_id and a text (or empty) answer"
            problems.append(earlier_problem(path, "answer", line, message, r))
        elif answer not in (None, "") and not r.get("error"):
            kept[qid] = {"answer": answer}
    if problems:
        raise InputError(str(path), problems)
    return kept


def _earlier_csv(path: Path) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(earlier_text(path, "answer"), newline=""))
    try:
        if reader.fieldnames != ["question_id", "answer"]:
            header = ",".join(reader.fieldnames or [])
            message = "the header is not question_id,answer"
            raise InputError(str(path), [earlier_problem(path, "answer", 1, message, header)])
        return [(reader.line_num, dict(r)) for r in reader]
    except csv.Error as exc:
        message = f"the line is not readable CSV ({exc})"
        problem = earlier_problem(path, "answer", reader.line_num, message, "")
        raise InputError(str(path), [problem]) from None


ANSWER_OUTPUT: Final = "answer submission"
"""The kind in the sidecar marker (:func:`medqade.files.file_output.sidecar`) of ``medqade answer
--out``."""


def check_submission_path(path: Path, inputs: Sequence[tuple[Path, str]] = ()) -> None:
    """Raise ``ValueError`` unless ``path`` ends in ``.jsonl`` or ``.csv`` and the output policy
    (:func:`medqade.files.file_output.check_file`) lets the command write it and its sidecar marker:
    new, or an earlier output of ``medqade answer``; never an input (``inputs``), a link, a build or
    a raw release."""
    if Path(path).suffix.lower() not in SUBMISSION_SUFFIXES:
        raise ValueError(f"--out {path}: use a .jsonl or .csv file name (the format follows it)")
    file_output.check_sidecar_file(path, ANSWER_OUTPUT, inputs)


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
        file_output.sidecar_planned(path, ANSWER_OUTPUT, text.encode("utf-8"), settings=settings)
    )
