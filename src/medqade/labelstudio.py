"""Label Studio JSON exports in, the raw release's ``ratings`` and ``difficulty`` tables out.

The physicians rated in Label Studio. Its JSON export (Label Studio docs, "Label Studio Task
Format", https://labelstud.io/guide/task_format) is a list of tasks::

    {"id": 17, "data": {...}, "annotations": [{"id": 1001, "completed_by": 3,
      "was_cancelled": false, "result": [{"id": "a1", "from_name": "label_1", "to_name": "resp_1",
      "type": "choices", "origin": "manual", "value": {"choices": ["Richtig"]}}, ...]}], ...}

The mapping from a MedQADE task to Label Studio (and back) is fixed here:

``data``
    ``question_id`` (required), the five answers as shown ``resp_1`` .. ``resp_5``, and which
    student model wrote the answer at each position: either ``order`` (a list of five model
    ids, or a JSON list / comma-separated string) or ``model_1`` .. ``model_5``.
``result`` items of ``type: "choices"``
    ``from_name`` ``label_<k>`` (or ``resp_<k>``), k = 1..5: the rating of the answer at
    position k, one of the choices ``Richtig`` / ``Falsch`` / ``Keine Angabe`` (aliases accepted,
    see :func:`medqade.vocab.parse_label`); ``from_name`` ``difficulty``: the item difficulty
    (``Einfach`` / ``Mittel`` / ``Schwer``). Any other choices control is an error; results of
    other types (a free-text ``textarea`` comment, say) are not ratings and are skipped.
``completed_by``
    the Label Studio user (an integer id, or an object with ``id`` and ``email``), mapped to a
    physician id (``P01`` .. ``P10``) by the rater map, a JSON object whose keys are user ids or
    e-mail addresses: ``{"3": "P01", "dr.weber@klinik.example": "P02"}``.
``was_cancelled``
    skipped (cancelled) annotations are left out. A position the rater left empty is a missing
    rating: excluded (listed as a warning), never guessed. ``predictions`` and ``drafts`` are
    not physician ratings and are ignored.
``round``
    one export holds one round (``--round primary`` or ``adjudication``); in the adjudication
    round only the roster's adjudicator may appear. Import the adjudication project's export
    with ``--append`` to add its rows to the primary ones.

Every problem (unknown user, unknown ``from_name``, bad label, task without ``question_id``,
...) is collected and raised as one :class:`~medqade.problems.InputError` naming the task id,
the annotation id and the value.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from medqade import atomic, vocab
from medqade.problems import InputError, Problem, ProblemLog
from medqade.tables import decode_utf8, read_table

RATING_COLUMNS = ("question_id", "rater", "model", "label", "round")
DIFFICULTY_COLUMNS = ("question_id", "rater", "difficulty")
DIFFICULTY_CONTROL = "difficulty"
_POSITION_CONTROL = re.compile(r"^(?:label|resp)_([1-9][0-9]*)$")


@dataclass(frozen=True)
class LabelStudioImport:
    """What one export held: tidy ``ratings`` and ``difficulty`` frames plus counts."""

    ratings: pd.DataFrame
    difficulty: pd.DataFrame
    warnings: tuple[Problem, ...]
    n_tasks: int
    n_annotations: int
    n_cancelled: int


class _Where:
    """Problem factory for one place in the export (task, annotation)."""

    def __init__(self, log: ProblemLog, name: str, task: object, annotation: object = None):
        self.log = log
        self.name = name
        self.task = task
        self.annotation = annotation

    def __call__(
        self,
        message: str,
        column: str | None = None,
        value: object = None,
        fix: str | None = None,
        *,
        warn: bool = False,
    ) -> None:
        row = self.task if isinstance(self.task, int) and not isinstance(self.task, bool) else None
        prefix = "" if row is not None else f"task {self.task!r}: "
        if self.annotation is not None:
            prefix += f"annotation {self.annotation}: "
        problem = Problem(
            self.name,
            row,
            prefix + message,
            column,
            None if value is None else str(value),
            fix,
            row_kind="task",
        )
        (self.log.warn if warn else self.log.error)(problem)


def load_export(path: Path) -> list[dict[str, Any]]:
    """Read a Label Studio JSON export: a list of task objects."""
    path = Path(path)
    name = path.name
    text = decode_utf8(path.read_bytes(), name)
    try:
        tasks = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    exc.lineno,
                    f"malformed JSON ({exc.msg} at column {exc.colno})",
                    fix="export the project again as JSON (not JSON-MIN or CSV)",
                )
            ],
        ) from None
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    "expected a JSON list of task objects",
                    fix="use Label Studio's JSON export (Export > JSON)",
                )
            ],
        )
    return tasks


def load_rater_map(path: Path, roster: vocab.Roster = vocab.DEFAULT_ROSTER) -> dict[str, str]:
    """Read the rater map (Label Studio user id or e-mail -> physician id) and check it."""
    path = Path(path)
    name = path.name
    text = decode_utf8(path.read_bytes(), name)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            name, [Problem(name, exc.lineno, f"malformed JSON ({exc.msg} at column {exc.colno})")]
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    "expected a JSON object",
                    fix='map user ids or e-mails to physician ids: {"3": "P01"}',
                )
            ],
        )
    return check_rater_map(data, roster, name)


def check_rater_map(
    data: Mapping[object, object],
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    name: str = "rater map",
) -> dict[str, str]:
    """Normalise the keys (e-mails case-insensitive) and check every value is a physician."""
    problems = []
    out: dict[str, str] = {}
    for key, value in data.items():
        if str(value) not in roster.physicians:
            problems.append(
                Problem(
                    name,
                    None,
                    f"user {key!s} maps to an unknown physician",
                    value=str(value),
                    fix=f"use one of {', '.join(roster.physicians)}",
                )
            )
            continue
        out[_user_key(key)] = str(value)
    if problems:
        raise InputError(name, problems)
    return out


def _user_key(key: object) -> str:
    return str(key).strip().casefold()


def _rater(completed_by: object, rater_map: Mapping[str, str], where: _Where) -> str | None:
    """Physician id of ``completed_by`` (an int id or a user object with id/email)."""
    candidates: list[object] = []
    if isinstance(completed_by, dict):
        candidates = [completed_by.get("email"), completed_by.get("id")]
        shown: object = completed_by.get("email") or completed_by.get("id")
    else:
        candidates = [completed_by]
        shown = completed_by
    for c in candidates:
        if c is not None and _user_key(c) in rater_map:
            return rater_map[_user_key(c)]
    where(
        "unknown Label Studio user",
        "completed_by",
        shown,
        "add the user's id or e-mail to the rater map (--rater-map)",
    )
    return None


def _positions(data: Mapping[str, Any], where: _Where, roster: vocab.Roster) -> list[str] | None:
    """The student model at each of the five positions, from ``order`` or ``model_<k>``."""
    if "order" in data:
        raw = data["order"]
        order: list[str] | None
        if isinstance(raw, list):
            order = [str(v).strip() for v in raw]
        else:
            text = str(raw).strip()
            try:
                parsed = json.loads(text) if text.startswith("[") else None
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, list):
                order = [str(v).strip() for v in parsed]
            elif text.startswith("["):
                order = None
            else:
                order = [v.strip() for v in text.split(",")]
        shown: object = raw
    elif all(f"model_{k}" in data for k in range(1, vocab.N_SLOTS + 1)):
        order = [str(data[f"model_{k}"]).strip() for k in range(1, vocab.N_SLOTS + 1)]
        shown = order
    else:
        where(
            "task data names no student models",
            "data",
            None,
            "add data.order (five model ids) or data.model_1 .. data.model_5",
        )
        return None
    if order is None or len(order) != vocab.N_SLOTS or set(order) != set(roster.student_ids):
        where(
            "the task's model order must list the five student ids, each once",
            "data.order",
            json.dumps(shown, ensure_ascii=False) if not isinstance(shown, str) else shown,
            f"e.g. {json.dumps(list(roster.student_ids))}",
        )
        return None
    return order


def _choice(value: object) -> tuple[list[object], bool]:
    """The chosen values of a choices result and whether the shape was right."""
    if not isinstance(value, dict) or not isinstance(value.get("choices"), list):
        return [], False
    return list(value["choices"]), True


def convert(
    tasks: Iterable[Mapping[str, Any]],
    rater_map: Mapping[str, str],
    *,
    round: str = vocab.PRIMARY,
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    name: str = "export.json",
) -> LabelStudioImport:
    """Convert parsed export ``tasks`` into ratings and difficulty rows (see module docstring).

    ``rater_map`` keys are normalised with :func:`check_rater_map`. Raises ``InputError``
    listing every problem; missing positions are returned as warnings.
    """
    if round not in vocab.ROUNDS:
        raise ValueError(f"unknown round {round!r}: use one of {', '.join(vocab.ROUNDS)}")
    rater_map = {_user_key(k): v for k, v in rater_map.items()}
    log = ProblemLog()
    ratings: list[dict[str, str]] = []
    difficulty: list[dict[str, str]] = []
    seen: dict[tuple[str, str], object] = {}
    n_tasks = n_annotations = n_cancelled = 0
    for task in tasks:
        n_tasks += 1
        task_id = task.get("id")
        where = _Where(log, name, task_id)
        data = task.get("data")
        if not isinstance(data, dict):
            where("task has no data object", "data")
            continue
        qid = str(data.get("question_id", "")).strip()
        if not qid:
            where(
                "task without question_id",
                "data.question_id",
                data.get("question_id", ""),
                "import the tasks with data.question_id set",
            )
            continue
        order = _positions(data, where, roster)
        annotations = task.get("annotations") or []
        if not isinstance(annotations, list):
            where("annotations must be a list", "annotations")
            continue
        for ann in annotations:
            if not isinstance(ann, dict):
                where("annotation is not a JSON object", "annotations")
                continue
            n_annotations += 1
            if ann.get("was_cancelled"):
                n_cancelled += 1
                continue
            at = _Where(log, name, task_id, ann.get("id"))
            rater = _rater(ann.get("completed_by"), rater_map, at)
            if rater is not None and round == vocab.ADJUDICATION and rater != roster.adjudicator:
                at(
                    f"only the adjudicator {roster.adjudicator} rates in the adjudication round",
                    "completed_by",
                    rater,
                    "import primary-round exports with --round primary",
                )
            if rater is not None:
                earlier = seen.get((qid, rater))
                if earlier is not None:
                    at(
                        f"{rater} already rated question {qid} in annotation {earlier}",
                        "completed_by",
                        rater,
                        "keep one annotation per rater and task (cancel or delete the other)",
                    )
                    continue
                seen[(qid, rater)] = ann.get("id")
            labels: dict[int, str] = {}
            diff: str | None = None
            controls: set[str] = set()
            for item in ann.get("result") or []:
                if not isinstance(item, dict) or item.get("type") != "choices":
                    continue  # free-text comments and other non-choice results are no ratings
                control = str(item.get("from_name", ""))
                if control in controls:
                    at(
                        "two results for the same from_name",
                        "from_name",
                        control,
                        "each control may appear once per annotation",
                    )
                    continue
                controls.add(control)
                chosen, ok = _choice(item.get("value"))
                if not ok or len(chosen) != 1:
                    at(
                        "expected exactly one choice",
                        control,
                        json.dumps(item.get("value"), ensure_ascii=False),
                        'use single-choice controls: value {"choices": ["Richtig"]}',
                    )
                    continue
                match = _POSITION_CONTROL.match(control)
                if control == DIFFICULTY_CONTROL:
                    try:
                        diff = vocab.parse_difficulty(chosen[0])
                    except ValueError as exc:
                        at("bad difficulty", control, chosen[0], str(exc).split(": ", 1)[-1])
                elif match and 1 <= int(match.group(1)) <= vocab.N_SLOTS:
                    k = int(match.group(1))
                    try:
                        labels[k] = vocab.parse_label(chosen[0])
                    except ValueError as exc:
                        at("bad label", control, chosen[0], str(exc).split(": ", 1)[-1])
                else:
                    at(
                        "unknown from_name",
                        "from_name",
                        control,
                        "name the controls label_1 .. label_5 and difficulty",
                    )
            if rater is None or order is None:
                continue
            for k in range(1, vocab.N_SLOTS + 1):
                if k in labels:
                    ratings.append(
                        {
                            "question_id": qid,
                            "rater": rater,
                            "model": order[k - 1],
                            "label": labels[k],
                            "round": round,
                        }
                    )
                else:
                    at(
                        f"no rating for the answer at position {k} ({order[k - 1]}): "
                        "left out as missing",
                        f"label_{k}",
                        warn=True,
                    )
            if diff is not None:
                difficulty.append({"question_id": qid, "rater": rater, "difficulty": diff})
    log.raise_if_any(f"Label Studio export {name}")
    return LabelStudioImport(
        ratings=_sorted(pd.DataFrame(ratings, columns=list(RATING_COLUMNS)), roster),
        difficulty=_sorted(pd.DataFrame(difficulty, columns=list(DIFFICULTY_COLUMNS)), roster),
        warnings=tuple(log.warnings),
        n_tasks=n_tasks,
        n_annotations=n_annotations,
        n_cancelled=n_cancelled,
    )


def _sorted(frame: pd.DataFrame, roster: vocab.Roster) -> pd.DataFrame:
    """Rows by question id, round, student model (roster order), then rater (roster order)."""
    keys = {
        "_model": ("model", {m: i for i, m in enumerate(roster.student_ids)}),
        "_round": ("round", {r: i for i, r in enumerate(vocab.ROUNDS)}),
        "_rater": ("rater", {p: i for i, p in enumerate(roster.physicians)}),
    }
    ranks = {k: frame[c].map(m) for k, (c, m) in keys.items() if c in frame.columns}
    order = ["question_id", *(k for k in ("_round", "_model", "_rater") if k in ranks)]
    ranked = frame.assign(**ranks).sort_values(order, kind="stable")
    return ranked.drop(columns=list(ranks)).reset_index(drop=True)


def merge(
    existing: pd.DataFrame, new: pd.DataFrame, keys: list[str], name: str, roster: vocab.Roster
) -> pd.DataFrame:
    """Append ``new`` rows to an ``existing`` table; a key present in both is an error."""
    columns = list(new.columns)
    old = existing[columns].astype(object)
    clash = old.merge(new[keys], on=keys, how="inner")
    if len(clash):
        problems = [
            Problem(
                name,
                None,
                "already holds this row; the export would add it again",
                "/".join(keys),
                "/".join(str(v) for v in row),
                "import each export once",
            )
            for row in clash[keys].itertuples(index=False)
        ]
        raise InputError(name, problems)
    return _sorted(pd.concat([old, new], ignore_index=True), roster)


def to_csv(frame: pd.DataFrame) -> str:
    """The frame as UTF-8 CSV text with ``\\n`` line endings (header first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(frame.columns)
    writer.writerows(frame.itertuples(index=False))
    return buffer.getvalue()


def _target(
    frame: pd.DataFrame, path: Path, keys: list[str], append: bool, roster: vocab.Roster
) -> pd.DataFrame:
    """The rows ``path`` will hold: ``frame``, merged into the existing table with ``append``."""
    if path.suffix != ".csv":
        raise ValueError(f"{path}: the importer writes CSV; name the output file *.csv")
    if append and path.exists():
        return merge(read_table(path), frame, keys, path.name, roster)
    return frame


def import_export(
    export: Path,
    ratings_out: Path,
    rater_map: Mapping[str, str],
    *,
    difficulty_out: Path | None = None,
    round: str = vocab.PRIMARY,
    append: bool = False,
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
) -> LabelStudioImport:
    """Read ``export``, convert it, and write the ratings (and difficulty) tables as CSV.

    Each file is written atomically, and only after both tables converted and merged cleanly.
    With ``append`` the rows are added to existing tables (e.g. an adjudication-round export
    after the primary one); a row present in both is an error.
    """
    export = Path(export)
    result = convert(load_export(export), rater_map, round=round, roster=roster, name=export.name)
    outputs = [(Path(ratings_out), result.ratings, ["question_id", "model", "rater"])]
    if difficulty_out is not None:
        outputs.append((Path(difficulty_out), result.difficulty, ["question_id", "rater"]))
    merged = [(path, _target(frame, path, keys, append, roster)) for path, frame, keys in outputs]
    for path, frame in merged:
        atomic.write_text(path, to_csv(frame))
    return result


__all__ = [
    "LabelStudioImport",
    "check_rater_map",
    "convert",
    "import_export",
    "load_export",
    "load_rater_map",
]
