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

import csv
import dataclasses
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from medqade import vocab
from medqade.files import atomic
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.files.tables import LINE, decode_utf8, find_table, read_table
from medqade.raw.check import ISO_FORMS, iso_moment

RATING_COLUMNS = ("question_id", "rater", "model", "label", "round")
DIFFICULTY_COLUMNS = ("question_id", "rater", "difficulty")
OPTIONAL_COLUMNS = ("rated_at",)
"""Columns an imported table may have that an existing table may lack (kept empty there)."""
DIFFICULTY_CONTROL = "difficulty"
_POSITION_CONTROL = re.compile(r"^(?:label|resp)_([1-9][0-9]*)$")
EXPORT_AS_JSON = "export the project as JSON (Export > JSON), not JSON-MIN, CSV or TSV"
"""The hint for every export that is not Label Studio's full JSON."""
_FLAT_KEYS = ("annotator", "annotation_id")
"""Keys of a JSON-MIN row (one flat row per annotation, no ``data`` / ``annotations``)."""
WHERE_USER_IDS = (
    "an export snapshot with user details (annotations__completed_by.only_id=false) shows each "
    "user's id beside the e-mail, and GET /api/users lists them (with an access token from "
    "/api/token/refresh; see docs/labelstudio.md)"
)
ID_ONLY = (
    "the Export button's JSON names users by integer id only: map the ids "
    f'({{"5": "P01"}}; {WHERE_USER_IDS}), or export a snapshot with user details '
    "(annotations__completed_by.only_id=false), whose users carry their e-mail"
)
_SHOWN_CHARS = 80
RATINGS_EXPORT = "ratings"
REVIEWS_EXPORT = "reviews"


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
            left = ", ".join(f"user {u} ({_n(n, 'annotation')})" for u, n in self.excluded)
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


@dataclass(frozen=True)
class RawTexts:
    """What the importer checks tasks against: answer texts and splits of a raw release."""

    answers: Mapping[tuple[str, str], str]
    splits: Mapping[str, str]
    name: str = "raw release"


class Where:
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


def _refuse(name: str, message: str, fix: str, row: int | None = None) -> InputError:
    return InputError(name, [Problem(name, row, message, fix=fix)])


def load_export(path: Path) -> list[dict[str, Any]]:
    """Read a Label Studio JSON export: a list of task objects (JSON-MIN and CSV refused)."""
    path = Path(path)
    name = path.name
    text = decode_utf8(path.read_bytes(), name)
    try:
        tasks = json.loads(text)
    except json.JSONDecodeError as exc:
        header = _flat_format(text)
        if header is not None:
            raise _refuse(
                name,
                f"this is a {header} export (a header line of columns, not Label Studio's JSON)",
                EXPORT_AS_JSON,
            ) from None
        raise _refuse(
            name, f"malformed JSON ({exc.msg} at column {exc.colno})", EXPORT_AS_JSON, exc.lineno
        ) from None
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise _refuse(name, "expected a JSON list of task objects", EXPORT_AS_JSON)
    flat = [
        t
        for t in tasks
        if "data" not in t and "annotations" not in t and any(k in t for k in _FLAT_KEYS)
    ]
    if tasks and len(flat) == len(tasks):
        raise _refuse(
            name,
            f"this is a JSON-MIN export ({len(tasks)} flat rows with 'annotator', no 'data' or "
            "'annotations')",
            EXPORT_AS_JSON,
        )
    return tasks


def _flat_format(text: str) -> str | None:
    """``"CSV"`` or ``"TSV"`` when ``text`` (not JSON) starts with a header line of columns."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    if not first or first[0] in "[{":
        return None
    for sep, kind in (("\t", "TSV"), (",", "CSV")):
        columns = [c.strip().strip('"') for c in first.split(sep)]
        if len(columns) > 1 and any(c in _FLAT_KEYS or c == "id" for c in columns):
            return kind
    return None


def export_kind(tasks: Iterable[Mapping[str, Any]]) -> str | None:
    """``"ratings"`` when every task with data is a rating task (``order``, ``model_<k>`` or
    ``resp_<k>``), ``"reviews"`` when every one is a review-queue task (``model`` and
    ``answer``, no positions), else ``None`` (mixed, empty or neither)."""
    kinds = set()
    for task in tasks:
        data = task.get("data")
        if not isinstance(data, Mapping):
            continue
        if any(k in data for k in ("order", "model_1", "resp_1")):
            kinds.add(RATINGS_EXPORT)
        elif "model" in data and "answer" in data:
            kinds.add(REVIEWS_EXPORT)
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def check_export_kind(tasks: Iterable[Mapping[str, Any]], expected: str, name: str) -> None:
    """Refuse an export of the other kind (a review export fed to the ratings importer, or a
    ratings export to the reviews importer) with the command to use instead."""
    kind = export_kind(tasks)
    if kind is None or kind == expected:
        return
    command = "import-labelstudio" if kind == RATINGS_EXPORT else "import-reviews"
    what = "a ratings" if kind == RATINGS_EXPORT else "a review"
    raise _refuse(
        name,
        f"this is {what} export (its tasks carry "
        + ("data.order / data.resp_k" if kind == RATINGS_EXPORT else "data.model and data.answer")
        + f"), not {'a review' if kind == RATINGS_EXPORT else 'a ratings'} export",
        f"use `medqade {command}` for it",
    )


def load_rater_map(path: Path, roster: vocab.Roster = vocab.DEFAULT_ROSTER) -> dict[str, str]:
    """Read the rater map (Label Studio user id or e-mail -> physician id) and check it."""
    path = Path(path)
    example = '{"5": "P01", "a@b.example": "P02"}'
    return check_rater_map(
        read_user_map(path, f"map user ids and/or e-mails to physician ids: {example}"),
        roster,
        path.name,
    )


def read_user_map(path: Path, fix: str) -> dict[object, object]:
    """The JSON object of a user map file (rater map, reviewer map); ``fix`` says what it holds."""
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
        raise _refuse(name, "expected a JSON object", fix)
    return data


def check_rater_map(
    data: Mapping[object, object],
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    name: str = "rater map",
) -> dict[str, str]:
    """Normalise the keys (e-mails case-insensitive) and check every value is a physician."""

    def physician(value: object) -> Problem | None:
        if str(value) in roster.physicians:
            return None
        return Problem(
            name,
            None,
            "maps to an unknown physician",
            value=str(value),
            fix=f"use one of {', '.join(roster.physicians)}",
        )

    return check_user_map(data, name, physician)


def check_user_map(
    data: Mapping[object, object],
    name: str,
    check: Callable[[object], Problem | None],
) -> dict[str, str]:
    """Normalise a user map's keys (ids and e-mails, without surrounding spaces and case) and
    check each value with ``check`` (a problem, or ``None``: fine; its message is prefixed with
    ``user KEY``). Keys that name the same user but map to different values are a problem
    naming both keys; the rater and the reviewer map both go through here."""
    problems = []
    out: dict[str, str] = {}
    given: dict[str, object] = {}
    for key, value in data.items():
        normal = _user_key(key)
        if normal in out and out[normal] != str(value):
            problems.append(
                Problem(
                    name,
                    None,
                    f"the keys {json.dumps(str(given[normal]))} and {json.dumps(str(key))} name "
                    f"the same user but map to {out[normal]} and {value}",
                    value=str(value),
                    fix="keep one key per user (keys are compared without surrounding spaces "
                    "and case)",
                )
            )
            continue
        problem = check(value)
        if problem is not None:
            problems.append(dataclasses.replace(problem, message=f"user {key!s} {problem.message}"))
            continue
        out[normal] = str(value)
        given.setdefault(normal, key)
    if problems:
        raise InputError(name, problems)
    return out


def load_raw_texts(folder: Path) -> RawTexts:
    """The ``answers`` texts and ``questions`` splits of a raw release folder (only these two
    tables are read, so the ratings being imported into it need not be valid yet)."""
    folder = Path(folder)
    tables: dict[str, pd.DataFrame] = {}
    for table, columns in (("answers", ("question_id", "model", "answer")), ("questions", ())):
        path = find_table(folder, table)
        if path is None:
            if table == "questions":
                continue
            raise _refuse(str(folder), f"no {table} table", "pass the raw release folder (--raw)")
        frame = read_table(path)
        missing = [c for c in (*columns, "question_id") if c not in frame.columns]
        if missing:
            raise _refuse(path.name, f"no column {missing[0]!r}", "use a raw release table")
        tables[table] = frame
    a = tables["answers"]
    answers = {
        (str(q).strip(), str(m).strip()): str(t)
        for q, m, t in zip(a["question_id"], a["model"], a["answer"], strict=True)
    }
    splits: dict[str, str] = {}
    q = tables.get("questions")
    if q is not None and "split" in q.columns:
        splits = {
            str(i).strip(): str(v).strip()
            for i, v in zip(q["question_id"], q["split"], strict=True)
        }
    return RawTexts(answers, splits, folder.name or str(folder))


BAD_USER = (
    "completed_by must be a user id or a user object ({id, email, ...})",
    "completed_by",
)
"""Message and column for a ``completed_by`` of another type (a list, a number with a point)."""


def is_user(completed_by: object) -> bool:
    """Whether ``completed_by`` has a shape Label Studio writes: an integer id, a text id or
    e-mail, a user object, or nothing (a deleted user)."""
    if completed_by is None or isinstance(completed_by, (str, dict)):
        return True
    return isinstance(completed_by, int) and not isinstance(completed_by, bool)


def _shown_json(value: object) -> str:
    return _clip(json.dumps(value, ensure_ascii=False, default=str))


def _user_key(key: object) -> str:
    return str(key).strip().casefold()


def user_keys(completed_by: object) -> list[str]:
    """The keys a rater map or exclusion may name ``completed_by`` by (id, e-mail)."""
    if isinstance(completed_by, dict):
        raw = [completed_by.get("id"), completed_by.get("email")]
    else:
        raw = [completed_by]
    return [_user_key(c) for c in raw if c is not None and str(c).strip()]


def _shown_user(completed_by: object) -> object:
    if isinstance(completed_by, dict):
        return completed_by.get("email") or completed_by.get("id")
    return completed_by


class _Users:
    """Maps ``completed_by`` to physicians; collects unknown users, one problem per user."""

    def __init__(self, rater_map: Mapping[str, str], exclude: Iterable[object]) -> None:
        self.rater_map = {_user_key(k): v for k, v in rater_map.items()}
        self.exclude = {_user_key(u): str(u).strip() for u in exclude}
        self.excluded: Counter[str] = Counter()
        self.unknown: dict[str, list[Where]] = {}
        self.by_id_only = False

    def is_excluded(self, completed_by: object) -> bool:
        for key in user_keys(completed_by):
            if key in self.exclude:
                self.excluded[key] += 1
                return True
        return False

    def rater(self, completed_by: object, where: Where) -> str | None:
        if not is_user(completed_by):
            where(*BAD_USER, _shown_json(completed_by), EXPORT_AS_JSON)
            return None
        keys = user_keys(completed_by)
        if not keys:
            where(
                "the annotation has no user (completed_by is empty): Label Studio empties it "
                "when the user was deleted",
                "completed_by",
                json.dumps(completed_by),
                "restore the user in Label Studio, or delete the annotation and export again",
            )
            return None
        if not isinstance(completed_by, dict):
            self.by_id_only = True
        for key in keys:
            if key in self.rater_map:
                return self.rater_map[key]
        self.unknown.setdefault(str(_shown_user(completed_by)), []).append(where)
        return None

    def report(self) -> None:
        """One problem per unknown user, at its first annotation, with the fitting hint."""
        email_keys = any("@" in k for k in (*self.rater_map, *self.exclude))
        for user, places in self.unknown.items():
            more = (
                f" (and {_n(len(places) - 1, 'more annotation')} by this user)"
                if len(places) > 1
                else ""
            )
            if user.isdigit() and email_keys:
                fix = f"the rater map or --exclude-user names e-mails, but {ID_ONLY}"
            elif user.isdigit():
                fix = f"add the user id to the rater map (--rater-map); {WHERE_USER_IDS}"
            else:
                fix = "add the user's id or e-mail to the rater map (--rater-map)"
            fix += f"; or leave the user's annotations out with --exclude-user {user}"
            places[0](f"unknown Label Studio user{more}", "completed_by", user, fix)

    def excluded_counts(self, log: ProblemLog, name: str) -> tuple[tuple[str, int], ...]:
        """Annotations left out per excluded user; a warning for each that matched none."""
        out = []
        for key, given in self.exclude.items():
            n = self.excluded.get(key, 0)
            out.append((given, n))
            if n == 0:
                hint = ID_ONLY if "@" in key and self.by_id_only else None
                log.warn(
                    Problem(
                        name,
                        None,
                        f"excluded user {given} made no annotation in this export",
                        "completed_by",
                        given,
                        hint,
                    )
                )
        return tuple(out)


def _n(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _positions(data: Mapping[str, Any], where: Where, roster: vocab.Roster) -> list[str] | None:
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


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _check_texts(
    qid: str, data: Mapping[str, Any], order: list[str], raw: RawTexts, where: Where
) -> None:
    """``data.resp_<k>`` must be the raw release's answer of ``order[k]``."""
    for k, model in enumerate(order, start=1):
        if f"resp_{k}" not in data:
            continue
        shown = str(data[f"resp_{k}"])
        expected = raw.answers.get((qid, model))
        if expected is None:
            where(
                f"the raw release {raw.name} has no answer of {model} to question {qid}",
                f"data.resp_{k}",
                _clip(shown),
                "import tasks made from this raw release, or pass the right one (--raw)",
            )
        elif expected.strip() != shown.strip():
            where(
                f"data.resp_{k} is not the raw release's answer of order[{k}] = {model} "
                f"(the raw release has {_clip(expected)!r})",
                f"data.resp_{k}",
                _clip(shown),
                "data.order of this task does not match its answers: fix the task's order",
            )


def _choice(value: object) -> tuple[list[object], bool]:
    """The chosen values of a choices result and whether the shape was right."""
    if not isinstance(value, dict) or not isinstance(value.get("choices"), list):
        return [], False
    return list(value["choices"]), True


def _exact_choice(value: object, accepted: tuple[str, ...]) -> str | None:
    """``value`` if it is one of the labeling config's (German) choices, else ``None``."""
    return value if isinstance(value, str) and value in accepted else None


def _accepted_hint(accepted: tuple[str, ...]) -> str:
    return (
        f"the labeling config's choices are {', '.join(accepted)} (German, exactly as written); "
        "English words and numbers are not accepted: set these Choice values in the project's "
        "labeling config and export again"
    )


def _round_of(
    rater: str,
    split: str | None,
    given: str | None,
    roster: vocab.Roster,
    at: Where,
) -> str | None:
    """The round of one annotation: ``given``, or inferred from the split and the roster."""
    is_adj = rater == roster.adjudicator
    if given == vocab.RERATING:  # a re-rating project: every annotation repeats a rating
        return given
    if given == vocab.ADJUDICATION:
        if not is_adj:
            at(
                f"only the adjudicator {roster.adjudicator} rates in the adjudication round",
                "completed_by",
                rater,
                "import primary-round exports with --round primary (or leave --round out)",
            )
            return None
        return given
    if is_adj and split is None and given is None:
        at(
            f"cannot tell the round of the adjudicator {roster.adjudicator}'s annotation: the "
            "task has no data.split",
            "data.split",
            None,
            "add data.split to the tasks, pass the raw release (--raw), or give --round",
        )
        return None
    if is_adj and split == vocab.EXTENSION:
        if given == vocab.PRIMARY:
            at(
                f"the adjudicator {roster.adjudicator} rates extension items only in the "
                f"{vocab.ADJUDICATION} round",
                "completed_by",
                rater,
                "import the adjudication project with --round adjudication, or leave --round "
                "out to infer it",
            )
            return None
        return vocab.ADJUDICATION
    return vocab.PRIMARY


def _split_of(qid: str, data: Mapping[str, Any], raw: RawTexts | None) -> str | None:
    if raw is not None and qid in raw.splits:
        return raw.splits[qid]
    split = str(data.get("split", "")).strip()
    return split if split in vocab.SPLITS else None


def _task_data(task: Mapping[str, Any], where: Where) -> dict[str, Any] | None:
    """The task's ``data`` object when it has one with a ``question_id``, else ``None`` (the
    problem recorded at ``where``)."""
    data = task.get("data")
    if not isinstance(data, dict):
        where("task has no data object", "data", None, EXPORT_AS_JSON)
        return None
    if not str(data.get("question_id", "")).strip():
        where(
            "task without question_id",
            "data.question_id",
            data.get("question_id", ""),
            "import the tasks with data.question_id set",
        )
        return None
    return data


def _seen_before(
    seen: dict[tuple[str, str], object], qid: str, rater: str, annotation: object, at: Where
) -> bool:
    """True (and recorded at ``at``) when ``rater`` already rated ``qid`` in an earlier
    annotation; else the annotation is remembered in ``seen``."""
    earlier = seen.get((qid, rater))
    if earlier is not None:
        at(
            f"{rater} already rated question {qid} in annotation {earlier}",
            "completed_by",
            rater,
            "keep one annotation per rater and task: delete the other one in Label "
            "Studio and export again",
        )
        return True
    seen[(qid, rater)] = annotation
    return False


def _choices(result: object, at: Where) -> tuple[dict[int, str], str | None]:
    """An annotation's ``result`` as the labels by position (1-5) and the difficulty; every
    choice that is not one of them, or not single, is recorded at ``at``."""
    labels: dict[int, str] = {}
    diff: str | None = None
    controls: set[str] = set()
    results = result or []
    if not isinstance(results, list):
        at(
            "result must be a list of results",
            "result",
            _shown_json(results),
            EXPORT_AS_JSON,
        )
        results = []
    for item in results:
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
            diff = _exact_choice(chosen[0], vocab.DIFFICULTIES)
            if diff is None:
                at("bad difficulty", control, chosen[0], _accepted_hint(vocab.DIFFICULTIES))
        elif match and 1 <= int(match.group(1)) <= vocab.N_SLOTS:
            label = _exact_choice(chosen[0], vocab.LABELS)
            if label is None:
                at("bad label", control, chosen[0], _accepted_hint(vocab.LABELS))
            else:
                labels[int(match.group(1))] = label
        else:
            at(
                "unknown from_name",
                "from_name",
                control,
                "name the controls label_1 .. label_5 and difficulty",
            )
    return labels, diff


def _rating_rows(
    qid: str,
    rater: str,
    order: list[str],
    labels: Mapping[int, str],
    ann: Mapping[str, Any],
    ann_round: str,
    at: Where,
) -> list[dict[str, str]]:
    """The ratings rows of one annotation; a position without a label is a warning, a
    re-rating whose ``created_at`` is not an ISO 8601 date or date-time an error."""
    rows: list[dict[str, str]] = []
    when = _rated_at(ann, ann_round).get("rated_at")
    if when and iso_moment(when) is None:
        at(
            "created_at is not an ISO 8601 date-time, so the re-rating has no rated_at",
            "created_at",
            when,
            "export the project again (Export > JSON keeps Label Studio's created_at), or "
            f"correct it in the export to {ISO_FORMS}",
        )
    for k in range(1, vocab.N_SLOTS + 1):
        if k in labels:
            rows.append(
                {
                    "question_id": qid,
                    "rater": rater,
                    "model": order[k - 1],
                    "label": labels[k],
                    "round": ann_round,
                    **_rated_at(ann, ann_round),
                }
            )
        else:
            at(
                f"no rating for the answer at position {k} ({order[k - 1]}): left out as missing",
                f"label_{k}",
                warn=True,
            )
    return rows


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
    users = _Users(rater_map, exclude)
    log = ProblemLog()
    ratings: list[dict[str, str]] = []
    difficulty: list[dict[str, str]] = []
    seen: dict[tuple[str, str], object] = {}
    n_tasks = n_annotations = n_cancelled = 0
    for task in tasks:
        n_tasks += 1
        task_id = task.get("id")
        where = Where(log, name, task_id)
        data = _task_data(task, where)
        if data is None:
            continue
        qid = str(data["question_id"]).strip()
        order = _positions(data, where, roster)
        if order is not None and raw is not None:
            _check_texts(qid, data, order, raw, where)
        split = _split_of(qid, data, raw)
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
            ann_round = None if rater is None else _round_of(rater, split, round, roster, at)
            if rater is not None and _seen_before(seen, qid, rater, ann.get("id"), at):
                continue
            labels, diff = _choices(ann.get("result"), at)
            if rater is None or order is None or ann_round is None:
                continue
            ratings.extend(_rating_rows(qid, rater, order, labels, ann, ann_round, at))
            if diff is not None:
                difficulty.append({"question_id": qid, "rater": rater, "difficulty": diff})
    users.report()
    excluded = users.excluded_counts(log, name)
    log.raise_if_any(f"Label Studio export {name}")
    return LabelStudioImport(
        ratings=_sorted(pd.DataFrame(ratings, columns=_rating_columns(ratings)), roster),
        difficulty=_sorted(pd.DataFrame(difficulty, columns=list(DIFFICULTY_COLUMNS)), roster),
        warnings=tuple(log.warnings),
        n_tasks=n_tasks,
        n_annotations=n_annotations,
        n_cancelled=n_cancelled,
        round=round,
        excluded=excluded,
        checked=None if raw is None else raw.name,
    )


def _rated_at(annotation: Mapping[str, Any], round: str) -> dict[str, str]:
    """A re-rating keeps when it was made: the annotation's ``created_at`` as ``rated_at``."""
    if round != vocab.RERATING:
        return {}
    return {"rated_at": str(annotation.get("created_at") or "").strip()}


def _rating_columns(rows: list[dict[str, str]]) -> list[str]:
    """The ratings columns, with ``rated_at`` when any row is a re-rating."""
    return [*RATING_COLUMNS, *(["rated_at"] if any("rated_at" in r for r in rows) else [])]


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
    """Append ``new`` rows to an ``existing`` table; a key present in both is an error.

    Every column and row of ``existing`` is kept (its columns first, in its order); a column
    only one side has is empty in the other side's rows. ``existing`` must have every column of
    ``new`` except the optional ones (``rated_at``): else it is not a table of this kind.
    """
    old = existing.drop(columns=[LINE], errors="ignore").astype(object)
    missing = [c for c in new.columns if c not in old.columns and c not in OPTIONAL_COLUMNS]
    if missing:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"has no column {missing[0]!r}, so it is not the table the export adds to",
                    fix="--append to the raw release's table of this kind, or choose a new file",
                )
            ],
        )
    columns = [*old.columns, *(c for c in new.columns if c not in old.columns)]
    old = old.reindex(columns=columns, fill_value="")
    added = new.astype(object).reindex(columns=columns, fill_value="")
    problems = _clashes(existing, added, keys, name)
    if problems:
        raise InputError(name, problems)
    return _sorted(pd.concat([old, added], ignore_index=True), roster)


def _clashes(
    existing: pd.DataFrame, added: pd.DataFrame, keys: list[str], name: str
) -> list[Problem]:
    """One problem per row of the export whose ``keys`` the table already holds, naming the
    table's line(s) and, for ratings, the round of the table's row(s) and of the export's
    (``round`` itself, when a key, is said in words and left out of the value)."""
    lines = existing[LINE] if LINE in existing.columns else pd.Series(range(2, len(existing) + 2))
    rounds = "round" in existing.columns and "round" in added.columns
    shown = [k for k in keys if not (rounds and k == "round")]
    held: dict[tuple[str, ...], list[tuple[int, str]]] = {}
    for i, row in enumerate(existing[keys].astype(str).itertuples(index=False)):
        r = str(existing["round"].iloc[i]).strip() if rounds else ""
        held.setdefault(tuple(row), []).append((int(lines.iloc[i]), r))
    problems = []
    for i, row in enumerate(added[keys].astype(str).itertuples(index=False)):
        there = held.get(tuple(row))
        if not there:
            continue
        value = "/".join(v for k, v in zip(keys, row, strict=True) if k in shown)
        if rounds:
            mine = str(added["round"].iloc[i])
            held_as = " and ".join(f"as round {r or '(empty)'} (line {n})" for n, r in there)
            message = f"already holds this rating {held_as}, while the export's row is round {mine}"
            fix = _clash_fix(mine, [r for _, r in there])
        else:
            message = f"already holds this row (line {there[0][0]}); the export would add it again"
            fix = "import each export once"
        problems.append(Problem(name, there[0][0], message, "/".join(shown), value, fix))
    return problems


def _clash_fix(mine: str, held: list[str]) -> str:
    """What to do when the table holds a rating of rounds ``held`` that the export adds again
    as round ``mine``."""
    if mine in held:
        again = "" if mine == vocab.RERATING else "; a re-rating project needs --round rerating"
        return (
            "this export (or one with the same ratings) is already in the table: import each "
            f"export once{again}"
        )
    if all(r == vocab.RERATING for r in held):
        return (
            "a re-rating comes after the first rating: import the first-round export into a new "
            "table (or with --replace), then append the re-rating export with --round rerating "
            "--append; if this export is the re-rating project, give --round rerating"
        )
    return (
        "a physician has one vote per answer (primary, or adjudication on an extension item): "
        "check --round, or leave this rating out of one of the exports"
    )


def to_csv(frame: pd.DataFrame) -> str:
    """The frame as UTF-8 CSV text with ``\\n`` line endings (header first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(frame.columns)
    writer.writerows(frame.itertuples(index=False))
    return buffer.getvalue()


TABLE_FIX = "pass --append to add the rows to it, or --replace to overwrite it"
"""What to do when an importer's output table exists already."""


def table_output(
    path: Path,
    table: str,
    *,
    option: str = "--out",
    inputs: Iterable[tuple[Path, str]] = (),
    append: bool = False,
    replace: bool = False,
    columns: Iterable[str] = (),
) -> Path:
    """Check that an importer may write the raw table ``table`` at ``path``; return it.

    The output policy of :func:`medqade.files.atomic.check_file`: never a link, a folder, an input,
    a build file or another table of a raw release. An existing file needs ``append`` (its
    rows are kept) or ``replace``; both change only a table of this kind (one whose header has
    every column in ``columns``), never any other file.
    """
    if append and replace:
        raise ValueError("--append and --replace exclude each other: choose one")
    path = Path(path)
    if path.suffix != ".csv":
        raise ValueError(f"{path}: the importer writes CSV; name the output file *.csv")
    output = atomic.FileOutput(
        kind=f"{table} table",
        option=option,
        inputs=tuple(inputs),
        table=table,
        change=append or replace,
        fix=TABLE_FIX,
    )
    checked = atomic.check_file(path, output)
    if (append or replace) and checked.exists():
        first = checked.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
        header = {c.strip().lstrip("\ufeff") for c in first.split(",")}
        lacking = [c for c in columns if c not in header]
        if lacking:
            raise atomic.OutputRefused(
                f"{option} {path} is not a {table} table (no column {lacking[0]!r}); "
                "--append and --replace change only such a table: choose another path"
            )
    return path


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


__all__ = [
    "EXPORT_AS_JSON",
    "LabelStudioImport",
    "RawTexts",
    "check_export_kind",
    "check_rater_map",
    "convert",
    "export_kind",
    "import_export",
    "load_export",
    "load_rater_map",
    "load_raw_texts",
    "merge",
    "table_output",
]
