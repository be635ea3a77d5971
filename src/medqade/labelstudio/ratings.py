"""Label Studio JSON exports in, the raw release's ``ratings`` and ``difficulty`` tables out.

The physicians rated in Label Studio. Its JSON export (Label Studio docs, "Label Studio Task
Format", https://labelstud.io/guide/task_format) is a list of tasks::

    {"id": 17, "data": {...}, "annotations": [{"id": 1001, "completed_by": 3,
      "was_cancelled": false, "result": [{"id": "a1", "from_name": "label_1", "to_name": "resp_1",
      "type": "choices", "origin": "manual", "value": {"choices": ["Richtig"]}}, ...]}], ...}

Only this JSON export carries what the importer needs; JSON-MIN, CSV and TSV are flat rows
without ``data`` and ``annotations`` and are refused with that hint. The mapping from a MedQADE
task to Label Studio (and back) is fixed here:

``data``
    ``question_id`` (required), the five answers as shown ``resp_1`` .. ``resp_5``, which
    student model wrote the answer at each position: either ``order`` (a list of five model
    ids, or a JSON list / comma-separated string) or ``model_1`` .. ``model_5``, and the
    ``split`` (``core`` / ``extension``), from which the round is inferred.
``result`` items of ``type: "choices"``
    ``from_name`` ``label_<k>`` (or ``resp_<k>``), k = 1..5: the rating of the answer at
    position k, exactly one of the labeling config's choices ``Richtig`` / ``Falsch`` /
    ``Keine Angabe``; ``from_name`` ``difficulty``: the item difficulty (``Einfach`` /
    ``Mittel`` / ``Schwer``). Only these German values are accepted: English words
    (``Correct``, ``Easy``) or numbers mean the project's labeling config differs from the one
    documented in ``tests/fixtures/labelstudio/README.md``, and are refused, naming the accepted
    values. Any other choices control is an error; results of other types (a free-text
    ``textarea`` comment, say) are not ratings and are skipped.
``completed_by``
    the Label Studio user, mapped to a physician id (``P01`` .. ``P10``) by the rater map, a
    JSON object whose keys may mix user ids and e-mail addresses:
    ``{"5": "P01", "dr.schulz@klinik.example": "P02"}``. The Export button's JSON holds only the
    integer user id; an export snapshot made with user details
    (``annotations__completed_by.only_id=false``) holds ``{id, email, ...}`` objects, matched by
    id or e-mail. Label Studio 1.23's members page shows no ids: a snapshot with user details
    shows them beside the e-mails, and ``GET /api/users`` lists them (with an access token from
    ``/api/token/refresh``; see docs/labelstudio.md). Keys that normalise equal (``"3"`` and
    ``" 3"``) must map to the same physician.
    An empty ``completed_by`` (a deleted user) is an error. ``exclude`` names users (id or
    e-mail) whose annotations are left out, e.g. an admin's test annotation; the count is
    reported.
``was_cancelled``
    skipped (cancelled) annotations are left out. A position the rater left empty is a missing
    rating: excluded (listed as a warning), never guessed. ``predictions`` and ``drafts`` are
    not physician ratings and are ignored. Two annotations of one rater on one task are an
    error: delete one in Label Studio and export again.
``round``
    by default inferred per annotation: the roster's adjudicator on an extension item rates in
    the adjudication round, everyone else (and the adjudicator on the core) in the primary
    round. ``round="primary"`` refuses the adjudicator on an extension item;
    ``round="adjudication"`` admits only the adjudicator. Import the adjudication project's
    export with ``--append`` to add its rows to the primary ones.
``answers``
    optionally the raw release's answer texts: then ``data.resp_<k>`` must equal the answer of
    the model at ``order[k]``, so a wrong ``order`` cannot mislabel answers silently.

Every problem (unknown user, unknown ``from_name``, bad label, task without ``question_id``,
...) is collected and raised as one :class:`~medqade.files.problems.InputError` naming the task id,
the annotation id and the value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from medqade import vocab
from medqade.files import atomic
from medqade.files.problems import Problem, ProblemLog
from medqade.files.tables import find_table, read_table
from medqade.labelstudio.export import RATINGS_EXPORT, Where, check_export_kind, load_export, plural
from medqade.labelstudio.raw_tables import (
    DIFFICULTY_COLUMNS,
    RATING_COLUMNS,
    merge,
    rating_columns,
    sorted_rows,
    table_output,
    to_csv,
)
from medqade.labelstudio.tasks import (
    RawTexts,
    check_texts,
    choices,
    load_raw_texts,
    positions,
    rating_rows,
    round_of,
    seen_before,
    split_of,
    task_data,
)
from medqade.labelstudio.users import Users


@dataclass(frozen=True)
class LabelStudioImport:
    """What one export held: tidy ``ratings`` and ``difficulty`` frames plus counts.

    ``round`` is the ``round`` argument, ``None`` when the round was inferred per annotation;
    ``excluded`` counts the annotations left out per excluded user (as given).
    """

    ratings: pd.DataFrame
    difficulty: pd.DataFrame
    warnings: tuple[Problem, ...]
    n_tasks: int
    n_annotations: int
    n_cancelled: int
    round: str | None = None
    excluded: tuple[tuple[str, int], ...] = ()
    checked: str | None = None
    """The raw release the answer texts were checked against (``None``: not checked)."""

    def summary(self) -> list[str]:
        """Lines that say how the rounds were set, who was left out and who rated how much."""
        rounds = Counter(self.ratings["round"])
        counts = ", ".join(f"{n} {r}" for r in vocab.ROUNDS if (n := rounds.get(r, 0)))
        if self.round is None:
            lines = [
                f"round: inferred from the split and the roster ({counts or 'no'} ratings; "
                "the adjudicator on an extension item is the adjudication round)"
            ]
        else:
            lines = [f"round: {self.round} for every annotation (given)"]
        if self.excluded:
            left = ", ".join(f"user {u} ({plural(n, 'annotation')})" for u, n in self.excluded)
            lines.append(f"left out (excluded users): {left}")
        if self.checked is not None:
            lines.append(
                f"answer texts: every data.resp_k is the answer of order[k] in {self.checked}"
            )
        else:
            lines.append("answer texts: not checked against a raw release (give --raw RAW)")
        raters = Counter(self.ratings["rater"])
        if raters:
            lines.append("ratings per rater: " + ", ".join(f"{r} {n}" for r, n in raters.items()))
        return lines


def convert(
    tasks: Iterable[Mapping[str, Any]],
    rater_map: Mapping[str, str],
    *,
    round: str | None = None,
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    name: str = "export.json",
    exclude: Iterable[object] = (),
    raw: RawTexts | None = None,
) -> LabelStudioImport:
    """Convert parsed export ``tasks`` into ratings and difficulty rows (see module docstring).

    ``round`` ``None`` infers it per annotation; ``exclude`` lists users (ids or e-mails) whose
    annotations are left out; with ``raw`` every ``data.resp_<k>`` is checked against the raw
    release's answer of ``order[k]``. Raises ``InputError`` listing every problem; missing
    positions and exclusions that matched nothing are returned as warnings.
    """
    if round is not None and round not in vocab.ROUNDS:
        raise ValueError(f"unknown round {round!r}: use one of {', '.join(vocab.ROUNDS)}")
    tasks = list(tasks)
    check_export_kind(tasks, RATINGS_EXPORT, name)
    users = Users(rater_map, exclude)
    log = ProblemLog()
    ratings: list[dict[str, str]] = []
    difficulty: list[dict[str, str]] = []
    seen: dict[tuple[str, str], object] = {}
    n_tasks = n_annotations = n_cancelled = 0
    for task in tasks:
        n_tasks += 1
        task_id = task.get("id")
        where = Where(log, name, task_id)
        data = task_data(task, where)
        if data is None:
            continue
        qid = str(data["question_id"]).strip()
        order = positions(data, where, roster)
        if order is not None and raw is not None:
            check_texts(qid, data, order, raw, where)
        split = split_of(qid, data, raw)
        annotations = task.get("annotations") or []
        if not isinstance(annotations, list):
            where("annotations must be a list", "annotations")
            continue
        for ann in annotations:
            if not isinstance(ann, dict):
                where("annotation is not a JSON object", "annotations")
                continue
            n_annotations += 1
            if users.is_excluded(ann.get("completed_by")):
                continue
            if ann.get("was_cancelled"):
                n_cancelled += 1
                continue
            at = Where(log, name, task_id, ann.get("id"))
            rater = users.rater(ann.get("completed_by"), at)
            ann_round = None if rater is None else round_of(rater, split, round, roster, at)
            if rater is not None and seen_before(seen, qid, rater, ann.get("id"), at):
                continue
            labels, diff = choices(ann.get("result"), at)
            if rater is None or order is None or ann_round is None:
                continue
            ratings.extend(rating_rows(qid, rater, order, labels, ann, ann_round, at))
            if diff is not None:
                difficulty.append({"question_id": qid, "rater": rater, "difficulty": diff})
    users.report()
    excluded = users.excluded_counts(log, name)
    log.raise_if_any(f"Label Studio export {name}")
    return LabelStudioImport(
        ratings=sorted_rows(pd.DataFrame(ratings, columns=rating_columns(ratings)), roster),
        difficulty=sorted_rows(pd.DataFrame(difficulty, columns=list(DIFFICULTY_COLUMNS)), roster),
        warnings=tuple(log.warnings),
        n_tasks=n_tasks,
        n_annotations=n_annotations,
        n_cancelled=n_cancelled,
        round=round,
        excluded=excluded,
        checked=None if raw is None else raw.name,
    )


def _target(
    frame: pd.DataFrame, path: Path, keys: list[str], append: bool, roster: vocab.Roster
) -> pd.DataFrame:
    """The rows ``path`` will hold: ``frame``, merged into the existing table with ``append``."""
    if append and path.exists():
        return merge(read_table(path), frame, keys, path.name, roster)
    return frame


def import_export(
    export: Path,
    ratings_out: Path,
    rater_map: Mapping[str, str],
    *,
    difficulty_out: Path | None = None,
    round: str | None = None,
    append: bool = False,
    replace: bool = False,
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    exclude: Iterable[object] = (),
    raw: Path | None = None,
    inputs: Iterable[tuple[Path, str]] = (),
) -> LabelStudioImport:
    """Read ``export``, convert it, and write the ratings (and difficulty) tables as CSV.

    The targets are checked first (:func:`table_output`): an existing table needs ``append``
    (every column and row it had is kept, the export's rows are added; a row present in both is
    an error) or ``replace``. Both files are written together or not at all
    (:func:`medqade.files.atomic.write_files`), only after both tables converted and merged cleanly.
    ``raw`` (a raw release folder) checks the tasks' answer texts and supplies the splits; see
    :func:`convert`. ``inputs`` are further files the command read (the rater map).
    """
    export = Path(export)
    read = [(export, "the Label Studio export"), *inputs]
    if raw is not None:
        read += [(p, f"the raw release's {p.name}") for p in _raw_tables(Path(raw))]
    outputs: list[tuple[str, Path, str, tuple[str, ...]]] = [
        ("--out", Path(ratings_out), "ratings", RATING_COLUMNS)
    ]
    if difficulty_out is not None:
        outputs.append(("--difficulty-out", Path(difficulty_out), "difficulty", DIFFICULTY_COLUMNS))
        same = Path(ratings_out).resolve() == Path(difficulty_out).resolve()
        if same:
            raise atomic.OutputRefused(
                f"--difficulty-out {difficulty_out} is the same file as --out; give the "
                "difficulty table its own file (RAW/difficulty.csv)"
            )
    for option, path, table, columns in outputs:
        table_output(
            path,
            table,
            option=option,
            inputs=read,
            append=append,
            replace=replace,
            columns=columns,
        )
    result = convert(
        load_export(export),
        rater_map,
        round=round,
        roster=roster,
        name=export.name,
        exclude=exclude,
        raw=None if raw is None else load_raw_texts(raw),
    )
    keys = ["question_id", "model", "rater"] + (["round"] if round == vocab.RERATING else [])
    frames = {
        "ratings": (result.ratings, keys),
        "difficulty": (result.difficulty, ["question_id", "rater"]),
    }
    planned = []
    for option, path, table, _ in outputs:
        frame, table_keys = frames[table]
        merged = _target(frame, path, table_keys, append, roster)
        planned.append(atomic.Planned(path, to_csv(merged).encode("utf-8"), option))
    atomic.write_files(planned)
    return result


def _raw_tables(folder: Path) -> list[Path]:
    """The tables of the raw release ``folder`` the importer reads (answers, questions)."""
    found = [find_table(folder, name) for name in ("answers", "questions")]
    return [p for p in found if p is not None]


__all__ = ["LabelStudioImport", "convert", "import_export"]
