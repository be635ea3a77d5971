"""``medqade judge`` as a library: question sets in, one judgment line per question out.

Each request holds the question, the reference answer as context and the five student
answers in an order drawn per question from ``seed`` (:func:`answer_order`, independent of
``--limit`` and of the concurrency). Each output line follows the paper's contract::

    {"evaluator", "question_id", "order": [5 student ids], "resp_1".."resp_5", "difficulty"}

where ``resp_k`` judges the answer of ``order[k-1]``. An item without a usable verdict has
null labels and difficulty plus ``error`` and ``raw``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pandas as pd

from medqade.files import atomic, file_output
from medqade.files.problems import InputError, Problem
from medqade.runners.prompts import judge_schema, response_keys
from medqade.runners.student import earlier_objects, earlier_problem
from medqade.vocab import DIFFICULTIES, LABELS

RESPONSE_FORMATS: Final = ("json_schema", "json_object", "none")


@dataclass(frozen=True)
class JudgeItem:
    """One question set as the judge sees it; ``answers[k]`` was written by ``order[k]``."""

    question_id: str
    question: str
    reference: str
    order: tuple[str, ...]
    answers: tuple[str | None, ...]


def answer_order(question_id: str, students: Sequence[str], seed: int) -> tuple[str, ...]:
    """The presentation order of ``students`` for one question: a seeded permutation.

    The generator is seeded with ``seed`` and the question id together, so the order of a
    question does not depend on which other questions are asked or in which order.
    """
    rng = random.Random(f"medqade-order:{seed}:{question_id}")
    return tuple(rng.sample(list(students), len(students)))


def judge_items(
    questions: pd.DataFrame,
    answers: pd.DataFrame,
    students: Sequence[str],
    seed: int,
) -> list[JudgeItem]:
    """Pair each question with its students' answers in a seeded order.

    ``questions`` has ``question_id, question, reference_answer``; ``answers`` has
    ``question_id, model, answer`` (a missing answer is shown to the judge as such).
    """
    texts: dict[tuple[str, str], str | None] = {}
    for qid, model, text in zip(
        answers["question_id"], answers["model"], answers["answer"], strict=True
    ):
        texts[(str(qid), str(model))] = None if pd.isna(text) else str(text)
    items = []
    for qid, question, reference in zip(
        questions["question_id"], questions["question"], questions["reference_answer"], strict=True
    ):
        qid = str(qid)
        order = answer_order(qid, students, seed)
        items.append(
            JudgeItem(
                question_id=qid,
                question=str(question),
                reference=str(reference),
                order=order,
                answers=tuple(texts.get((qid, m)) for m in order),
            )
        )
    return items


def response_format(kind: str, n: int) -> dict[str, Any] | None:
    """``json_schema`` (strict schema, the default), ``json_object`` or ``none``."""
    if kind == "json_schema":
        return judge_schema(n)
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "none":
        return None
    raise ValueError(
        f"--response-format must be one of {', '.join(RESPONSE_FORMATS)}, got {kind!r}"
    )


def judgment_rows(
    items: Sequence[JudgeItem],
    asked: Mapping[str, Mapping[str, Any]],
    earlier: Mapping[str, Mapping[str, Any]],
    evaluator: str,
) -> list[dict[str, Any]]:
    """The output lines (see the module docstring), in item order: an item's row from the
    earlier output (``earlier``, kept by a resumed run) or from this run's log (``asked``,
    rows of :func:`medqade.scoring.intake.log_rows.rows_of_log`); an item in neither was not
    answered (an interrupted run) and gets null labels with the error saying so."""
    rows: list[dict[str, Any]] = []
    for item in items:
        keys = (*response_keys(len(item.order)), "difficulty")
        if item.question_id in earlier:
            rows.append(dict(earlier[item.question_id]))
            continue
        got = asked.get(item.question_id, {"error": "error: not asked (the run stopped)"})
        row: dict[str, Any] = {
            "evaluator": evaluator,
            "question_id": item.question_id,
            "order": list(item.order),
        }
        failed = bool(got.get("error"))
        row.update({k: None if failed else got.get(k) for k in keys})
        if failed:
            row["error"] = got["error"]
            row["raw"] = got.get("raw")
        rows.append(row)
    return rows


def earlier_judgments(
    path: Path, settings: Mapping[str, Any], items: Sequence[JudgeItem]
) -> dict[str, dict[str, Any]]:
    """The usable rows of an earlier ``medqade judge`` output at ``path`` written with the same
    ``settings`` (its sidecar marker), by question id: every label set, the item's order. A
    line ``medqade judge`` never writes raises :class:`InputError`
    (:func:`~medqade.runners.student.earlier_problem`)."""
    if file_output.sidecar_settings(Path(path), JUDGE_OUTPUT) != dict(settings):
        return {}
    orders = {item.question_id: list(item.order) for item in items}
    kept: dict[str, dict[str, Any]] = {}
    problems: list[Problem] = []
    for line, row in earlier_objects(Path(path), "judge"):
        why = _not_a_judgment(row)
        if why:
            problems.append(earlier_problem(path, "judge", line, why, row))
            continue
        qid = row["question_id"]
        keys = (*response_keys(len(row["order"])), "difficulty")
        if row.get("error") or qid not in orders or row["order"] != orders[qid]:
            continue
        if all(row.get(k) is not None for k in keys):
            kept[qid] = row
    if problems:
        raise InputError(str(path), problems)
    return kept


def _not_a_judgment(row: Mapping[str, Any]) -> str | None:
    """Why ``row`` is not a line ``medqade judge`` writes (``None`` when it could be)."""
    order = row.get("order")
    if not isinstance(row.get("question_id"), str):
        return "the line has no text question_id"
    if not isinstance(order, list) or not all(isinstance(m, str) for m in order):
        return "the line's order is not a list of model ids"
    for key in response_keys(len(order)):
        if row.get(key) is not None and row.get(key) not in LABELS:
            return f"{key} is not one of {', '.join(LABELS)} or null"
    if row.get("difficulty") is not None and row.get("difficulty") not in DIFFICULTIES:
        return f"difficulty is not one of {', '.join(DIFFICULTIES)} or null"
    return None


JUDGE_OUTPUT: Final = "judge output"
"""The kind in the sidecar marker (:func:`medqade.files.file_output.sidecar`) of ``medqade judge
--out``."""


def check_judgment_path(path: Path, inputs: Sequence[tuple[Path, str]] = ()) -> None:
    """Raise ``ValueError`` unless ``path`` ends in ``.jsonl`` and the output policy
    (:func:`medqade.files.file_output.check_file`) lets the command write it and its sidecar marker:
    new, or an earlier output of ``medqade judge``; never an input (``inputs``), a link, a build or
    a raw release."""
    if Path(path).suffix.lower() != ".jsonl":
        raise ValueError(f"--out {path}: judgments are written as JSON lines; use a .jsonl name")
    file_output.check_sidecar_file(path, JUDGE_OUTPUT, inputs)


def write_judgments(
    path: Path,
    rows: Sequence[Mapping[str, Any]],
    inputs: Sequence[tuple[Path, str]] = (),
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Write one JSON object per line and its sidecar marker (with the run's ``settings``,
    for a resumed run), together and atomically."""
    check_judgment_path(path, inputs)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    atomic.write_files(
        file_output.sidecar_planned(
            Path(path), JUDGE_OUTPUT, text.encode("utf-8"), settings=settings
        )
    )
