"""Submission files: parsing and checking judge labels and model answers.

Every file is CSV (UTF-8, comma-delimited, header row), JSON Lines (one object per line) or
Parquet; the format follows the extension (``.csv``, ``.jsonl``, ``.parquet``). Column names
are matched case-insensitively. Labels are ``Richtig`` / ``Falsch`` / ``Keine Angabe`` or the
aliases of :func:`medqade.vocab.parse_label` (``correct``, ``incorrect``, ``abstain``,
``true``, ``false``, ``1``, ``0``); an empty label is *missing* (excluded, never guessed).

Judge labels, row format (``kind="judge"``, format ``rows``)::

    question_id,model,label[,difficulty]
    MQ-C0001,gemini-2.5-flash,Richtig,Einfach

``model`` is the student whose answer is judged (id or display name). ``answer_id``
(``QUESTION/MODEL``) may replace ``question_id`` + ``model``. ``difficulty`` is checked but not
scored (tiers always come from the physicians).

Judge labels, per-question format (format ``per_question``): the output of an evaluator run,
one object per question, ``resp_k`` judging the answer of ``order[k-1]``::

    {"question_id": "MQ-C0001", "order": ["qwen3:4b", ...], "resp_1": "Richtig", ...,
     "resp_5": null, "difficulty": "Mittel"}

Null labels are missing; extra keys (``evaluator``, ``error``, ``raw``) are ignored, but one
file holds one evaluator. In CSV ``order`` is a JSON array or ``a|b|c|d|e``.

Model answers (``kind="answers"``): ``question_id,answer`` (the output of ``medqade answer``;
a null or empty answer is *not answered*: left out of every accuracy, and stated).

Labels for model answers (:func:`attach_labels`): the verdicts of a named judge on the
submitted answers, used for the answers that match no physician-labelled answer::

    question_id,label[,answer]

``answer``, when present, must equal the submitted answer of that question (a guard against
labelling the wrong file). JSON Lines may start with ``{"meta": {"name": ..., "model_id":
..., "family": ..., "core_kappa": ...}}`` describing the judge.

A submission covers the core (1,000 slots, 200 answers), everything (19,000 / 3,800) or a
part; a part is scored on what it covers, flagged ``partial_coverage``, and unscored slots are
never counted as wrong. A JSON Lines file may start with a ``{"meta": {...}}`` header (keys in
:mod:`medqade.scoring.meta`).

Nothing is scored from a file with problems: :func:`parse_submission` raises one
:class:`~medqade.problems.InputError` that lists every problem with file, line (or row),
column, value and fix; notes that do not block scoring are :attr:`Submission.warnings`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.problems import InputError, Problem, ProblemLog
from medqade.scoring.meta import clean_meta
from medqade.scoring.normalize import normalise
from medqade.scoring.upload import (
    LINE,
    NOT_TEXT,
    RawTable,
    cell_text,
    jsonable,
    looks_like_formula,
)
from medqade.scoring.upload import read_upload as _read_upload

if TYPE_CHECKING:
    from medqade.release import Release

JUDGE: Final = "judge"
ANSWERS: Final = "answers"
KINDS: Final = (JUDGE, ANSWERS)
ROWS: Final = "rows"
PER_QUESTION: Final = "per_question"
IGNORED_COLUMNS: Final = frozenset({"evaluator", "error", "raw", "canary", "split", "position"})
_RESP = re.compile(r"^resp_\d+$")


@dataclass(frozen=True)
class Limits:
    """What an upload may be: bytes, rows, and characters per answer."""

    max_bytes: int = 20_000_000
    max_rows: int = 100_000
    max_answer_chars: int = 300


@dataclass(frozen=True, eq=False)
class Submission:
    """A checked submission in the release's item order (arrays are read-only).

    judge: ``labels`` (items, 5) label codes (-1 missing), ``present`` (items, 5) slots that
    have a row. answers: ``answers`` per item (``None``: no row or not answered), ``present``
    (items,) items that have a row, ``answer_labels`` (items,) a judge's codes for them (-1
    none). ``content_hash`` is the SHA-256 of the canonical content (the same labels in CSV
    or JSONL hash the same); ``scope`` is ``core``, ``full`` or ``partial``.
    """

    kind: str
    format: str
    filename: str
    content_hash: str
    n_rows: int
    scope: str
    coverage: Mapping[str, float]
    present: npt.NDArray[np.bool_] = field(repr=False)
    labels: npt.NDArray[np.int8] | None = field(default=None, repr=False)
    answers: tuple[str | None, ...] | None = field(default=None, repr=False)
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    warnings: tuple[Problem, ...] = ()
    answer_labels: npt.NDArray[np.int8] | None = field(default=None, repr=False)
    answer_labels_hash: str | None = None

    def summary(self) -> dict[str, Any]:
        """Plain-dict description (for the Space and ``validate_only``; NaN as ``None``)."""
        summary: dict[str, Any] = jsonable(
            {
                "kind": self.kind,
                "format": self.format,
                "rows": self.n_rows,
                "scope": self.scope,
                "coverage": dict(self.coverage),
                "content_hash": self.content_hash,
                "warnings": [str(w) for w in self.warnings],
            }
        )
        return summary


DEFAULT_LIMITS: Final = Limits()


def _readonly(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    a.setflags(write=False)
    return a


# --- the shared walk over rows ---------------------------------------------------------------


class _Walker:
    """Row-level helpers bound to one table, its release and one problem log."""

    def __init__(self, table: RawTable, release: Release, log: ProblemLog) -> None:
        self.t = table
        self.release = release
        self.log = log
        self.items = release.item_index
        self.example_id = str(release.item_ids[0]) if release.n_items else "?"
        slots: dict[str, int] = {}
        for s, m in enumerate(release.roster.students):
            slots[m.id.casefold()] = s
            slots[m.name.casefold()] = s
        self.slots = slots
        self.exact_slots = {m.id: s for s, m in enumerate(release.roster.students)}
        self.students = ", ".join(release.roster.student_ids)
        self._labels: dict[str, int | str] = {}
        self._difficulties: dict[str, str | None] = {}

    def error(self, line: int, column: str | None, message: str, value: Any, fix: str) -> None:
        shown = None if value is None else str(value)[:80]
        self.log.error(
            Problem(self.t.name, line, message, column, shown, fix, row_kind=self.t.row_kind)
        )

    def text(self, line: int, column: str, value: Any) -> str | None:
        v = cell_text(value)
        if v is NOT_TEXT:
            self.error(line, column, "expected text, got a list or object", value, "give text")
            return None
        return None if v is None else str(v)

    def item(self, line: int, column: str, value: Any) -> int | None:
        if type(value) is str:  # fast path: a known id as written
            hit = self.items.get(value)
            if hit is not None:
                return hit
        qid = self.text(line, column, value)
        if qid is None:
            if cell_text(value) is not NOT_TEXT:
                self.error(line, column, "empty question id", None, "fill in the question id")
            return None
        i = self.items.get(qid.strip())
        if i is None:
            fix = (
                f"use the question ids of this release ({self.release.n_items} items, "
                f"e.g. {self.example_id}); is the file for another release (--data)?"
            )
            if looks_like_formula(qid):
                fix = "remove the spreadsheet formula and write the plain question id"
            self.error(line, column, "unknown question id", qid, fix)
        return i

    def slot(self, line: int, column: str, value: Any) -> int | None:
        if type(value) is str:
            hit = self.exact_slots.get(value)
            if hit is not None:
                return hit
        model = self.text(line, column, value)
        if model is None:
            if cell_text(value) is not NOT_TEXT:
                self.error(line, column, "empty model", None, f"use one of {self.students}")
            return None
        s = self.slots.get(" ".join(model.split()).casefold())
        if s is None:
            self.error(
                line,
                column,
                "unknown model (the student whose answer is judged)",
                model,
                f"use one of the student ids {self.students}",
            )
        return s

    def label(self, line: int, column: str, value: Any) -> int | None:
        """Label code, ``MISSING_CODE`` for null/empty, ``None`` after an error."""
        if type(value) is str:
            known = self._labels.get(value)
            if type(known) is int:
                return known
        if isinstance(value, (bool, np.bool_)):
            return vocab.LABEL_CODES[vocab.parse_label(bool(value))]
        text = self.text(line, column, value)
        if text is None:
            return None if cell_text(value) is NOT_TEXT else vocab.MISSING_CODE
        hit = self._labels.get(text)
        if hit is None:
            try:
                hit = vocab.LABEL_CODES[vocab.parse_label(text)]
            except ValueError as exc:
                hit = str(exc)
            self._labels[text] = hit
        if isinstance(hit, str):
            fix = f"use {', '.join(vocab.LABELS)} (or correct / incorrect / abstain); "
            fix += "leave it empty for a missing label"
            self.error(line, column, "invalid label", text, fix)
            return None
        return hit

    def difficulty(self, line: int, column: str, value: Any) -> None:
        if type(value) is str and value in self._difficulties and not self._difficulties[value]:
            return
        text = self.text(line, column, value)
        if text is None or text in self._difficulties:
            if text is not None and self._difficulties[text] is not None:
                self.error(line, column, "invalid difficulty", text, str(self._difficulties[text]))
            return
        try:
            vocab.parse_difficulty(text)
            self._difficulties[text] = None
        except ValueError:
            fix = (
                f"use {', '.join(vocab.DIFFICULTIES)} (or easy / medium / hard), or leave it empty"
            )
            self._difficulties[text] = fix
            self.error(line, column, "invalid difficulty", text, fix)


def _cells(frame: Any, column: str) -> list[Any]:
    """A column as a list of Python objects (``None`` each when the column is absent)."""
    if column not in frame.columns:
        return [None] * len(frame)
    values: list[Any] = frame[column].tolist()
    return values


def _require(table: RawTable, required: Iterable[str], what: str, log: ProblemLog) -> bool:
    missing = [c for c in required if c not in table.frame.columns]
    if missing:
        log.error(
            Problem(
                table.name,
                None,
                f"missing required column(s) {', '.join(missing)} for {what}",
                value=", ".join(table.columns)[:200] or "(none)",
                fix=f"the header must name {', '.join(required)}",
            )
        )
        return False
    return True


def _ignored(table: RawTable, used: Iterable[str], log: ProblemLog) -> None:
    extra = [c for c in table.columns if c not in set(used) and c not in IGNORED_COLUMNS]
    if extra:
        log.warn(
            Problem(
                table.name,
                None,
                f"column(s) ignored: {', '.join(extra)}",
                fix="remove them, or check their names",
            )
        )


def _summarise(
    log: ProblemLog, table: RawTable, lines: list[int], message: str, fix: str | None = None
) -> None:
    """One warning for a group of rows: at the row itself when there is one, else with the
    count and the first few row numbers."""
    if len(lines) == 1:
        log.warn(Problem(table.name, lines[0], message, fix=fix, row_kind=table.row_kind))
    elif lines:
        shown = ", ".join(str(x) for x in lines[:10]) + (" ..." if len(lines) > 10 else "")
        where = f"{len(lines)} {table.row_kind}s: {shown}"
        log.warn(Problem(table.name, None, f"{message} ({where})", fix=fix))


def _evaluators(table: RawTable, log: ProblemLog) -> None:
    if "evaluator" not in table.frame.columns:
        return
    names = sorted(
        {str(v) for v in table.frame["evaluator"] if cell_text(v) not in (None, NOT_TEXT)}
    )
    if len(names) > 1:
        shown = ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")
        log.error(
            Problem(
                table.name,
                None,
                f"the file holds the labels of {len(names)} evaluators ({shown})",
                column="evaluator",
                fix="submit one evaluator per file (keep the rows of one 'evaluator')",
            )
        )


# --- judge labels ------------------------------------------------------------------------------


def _judge_rows(w: _Walker, log: ProblemLog) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    t = w.t
    n = w.release.n_items
    labels = np.full((n, vocab.N_SLOTS), vocab.MISSING_CODE, dtype=np.int8)
    present = np.zeros((n, vocab.N_SLOTS), dtype=bool)
    first = np.zeros((n, vocab.N_SLOTS), dtype=np.int64)
    frame = t.frame
    by_answer_id = "answer_id" in frame.columns and not {"question_id", "model"} <= set(frame)
    if by_answer_id:
        ok = _require(t, ("answer_id", "label"), "judge labels", log)
    else:
        ok = _require(t, ("question_id", "model", "label"), "judge labels", log)
    if not ok:
        return labels, present
    _ignored(t, ("answer_id", "question_id", "model", "label", "difficulty"), log)
    _evaluators(t, log)
    has_difficulty = "difficulty" in frame.columns
    empty, dupes = [], []
    if by_answer_id:
        cols = [_cells(frame, "answer_id")] * 2
    else:
        cols = [_cells(frame, "question_id"), _cells(frame, "model")]
    diff_col = _cells(frame, "difficulty")
    for line, q_cell, m_cell, l_cell, d_cell in zip(
        _cells(frame, LINE), cols[0], cols[1], _cells(frame, "label"), diff_col, strict=True
    ):
        line = int(line)
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
        if i is None or s is None or code is None:
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
        first[i, s] = line
    _summarise(log, t, empty, "no label: counted as missing, not as an abstention")
    _summarise(log, t, dupes, "repeats an earlier row with the same label: kept once")
    return labels, present


def _order(w: _Walker, line: int, value: Any) -> list[int] | None:
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


def _judge_per_question(
    w: _Walker, log: ProblemLog
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    t = w.t
    n = w.release.n_items
    labels = np.full((n, vocab.N_SLOTS), vocab.MISSING_CODE, dtype=np.int8)
    present = np.zeros((n, vocab.N_SLOTS), dtype=bool)
    first = np.zeros(n, dtype=np.int64)
    resp = [f"resp_{k}" for k in range(1, vocab.N_SLOTS + 1)]
    if not _require(t, ("question_id", "order", *resp), "per-question judge labels", log):
        return labels, present
    _ignored(t, ("question_id", "order", *resp, "difficulty"), log)
    _evaluators(t, log)
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
        strict=True,
    )
    for line, q_cell, o_cell, *rest in records:
        line = int(line)
        *resp_cells, d_cell = rest
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
        first[i] = line
    _summarise(log, t, null_lines, "null labels: counted as missing")
    _summarise(log, t, dupes, "repeats an earlier identical object: kept once")
    return labels, present


# --- model answers -----------------------------------------------------------------------------


def _answer_rows(
    w: _Walker, log: ProblemLog, limits: Limits
) -> tuple[list[str | None], npt.NDArray[np.bool_]]:
    t = w.t
    n = w.release.n_items
    answers: list[str | None] = [None] * n
    present = np.zeros(n, dtype=bool)
    first = np.zeros(n, dtype=np.int64)
    if not _require(t, ("question_id", "answer"), "model answers", log):
        return answers, present
    _ignored(t, ("question_id", "answer"), log)
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
    _summarise(
        log,
        t,
        unanswered,
        "no answer: left out of every accuracy (not counted as wrong)",
    )
    _summarise(log, t, dupes, "repeats an earlier identical answer: kept once")
    _summarise(
        log,
        t,
        formulas,
        "looks like a spreadsheet formula: scored as plain text, and written with a leading ' "
        "in CSV exports",
        fix="check that the file was not mangled by a spreadsheet",
    )
    return answers, present


# --- detection, scope, hashing -----------------------------------------------------------------


def detect_kind(columns: Iterable[str], name: str) -> tuple[str, str]:
    """``(kind, format)`` from normalised column names, or ``InputError`` saying what is
    missing."""
    cols = set(columns)
    per_question = any(c == "order" or _RESP.match(c) for c in cols)
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


def _scope(present_items: npt.NDArray[np.bool_], is_core: npt.NDArray[np.bool_]) -> str:
    if present_items.all():
        return "full"
    if present_items[is_core].all() and not present_items[~is_core].any():
        return "core"
    return "partial"


def _share(x: npt.NDArray[np.bool_]) -> float:
    return float(x.mean()) if x.size else float("nan")


def _coverage(present: npt.NDArray[np.bool_], is_core: npt.NDArray[np.bool_]) -> dict[str, float]:
    return {
        "core": _share(present[is_core]),
        "extension": _share(present[~is_core]),
        "all": _share(present),
    }


def _hash(lines: Iterable[str]) -> str:
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode("utf-8")).hexdigest()


def judge_content_hash(
    release: Release, labels: npt.NDArray[np.int8], present: npt.NDArray[np.bool_]
) -> str:
    """SHA-256 of the labelled slots (release order): the same labels hash the same in any
    file format, and equal the hash of a reference row with these labels."""
    aids = release.item_ids
    students = release.roster.student_ids
    return _hash(
        f"judge\t{aids[i]}/{students[s]}\t{int(labels[i, s])}"
        for i, s in zip(*np.nonzero(present), strict=True)
    )


def answers_content_hash(
    release: Release, answers: Sequence[str | None], present: npt.NDArray[np.bool_]
) -> str:
    """SHA-256 of the submitted answers (release order)."""
    return _hash(
        f"answers\t{release.item_ids[i]}\t{json.dumps(answers[int(i)], ensure_ascii=False)}"
        for i in np.flatnonzero(present)
    )


def _coverage_note(name: str, kind: str, coverage: Mapping[str, float]) -> Problem:
    unit = "answer slots" if kind == JUDGE else "questions"
    return Problem(
        name,
        None,
        f"partial coverage: {coverage['all']:.1%} of all {unit} "
        f"({coverage['core']:.1%} of the core); unscored {unit} are not counted as wrong",
        fix="submit the core (200 questions) or all questions to be ranked",
    )


# --- public ------------------------------------------------------------------------------------


def parse_submission(
    data: bytes,
    filename: str,
    release: Release,
    kind: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Submission:
    """Parse and check an uploaded submission (see the module docstring for the formats).

    ``kind`` (``"judge"`` or ``"answers"``) is detected from the columns when ``None``.
    Raises :class:`~medqade.problems.InputError` listing every problem; nothing is returned
    from a file with problems.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} or None, got {kind!r}")
    name = filename or "submission"
    table = _read_upload(data, name, limits.max_bytes)
    log = ProblemLog()
    for note in table.notes:
        log.warn(note)
    if not len(table.frame):
        raise InputError(
            name,
            [Problem(name, None, "the file has no data rows", fix="add one row per label")],
        )
    if len(table.frame) > limits.max_rows:
        raise InputError(
            name,
            [
                Problem(
                    name,
                    None,
                    f"the file has {len(table.frame):,} rows, more than the limit of "
                    f"{limits.max_rows:,}",
                    fix="submit one evaluator or one model per file",
                )
            ],
        )
    if kind is None:
        detected, fmt = detect_kind(table.columns, name)
    elif kind == JUDGE:
        per_question = any(c == "order" or _RESP.match(c) for c in table.columns)
        detected, fmt = JUDGE, PER_QUESTION if per_question else ROWS
    else:
        detected, fmt = ANSWERS, ANSWERS
    header: dict[str, Any] = {}
    if table.header_meta is not None:
        header, meta_problems = clean_meta(
            table.header_meta, name, table.header_line, release.roster.families
        )
        for p in meta_problems:
            log.error(p)
    walker = _Walker(table, release, log)
    is_core = release.is_core
    if detected == JUDGE:
        walk = _judge_per_question if fmt == PER_QUESTION else _judge_rows
        labels, present = walk(walker, log)
        log.raise_if_any(name)
        scope = _scope(np.asarray(present.all(axis=1)), is_core)
        coverage = _coverage(present, is_core)
        content = judge_content_hash(release, labels, present)
        if scope == "partial":
            log.warn(_coverage_note(name, JUDGE, coverage))
        return Submission(
            kind=JUDGE,
            format=fmt,
            filename=name,
            content_hash=content,
            n_rows=len(table.frame),
            scope=scope,
            coverage=MappingProxyType(coverage),
            present=_readonly(present),
            labels=_readonly(labels),
            meta=MappingProxyType(header),
            warnings=tuple(log.warnings),
        )
    answers, present_items = _answer_rows(walker, log, limits)
    log.raise_if_any(name)
    scope = _scope(present_items, is_core)
    coverage = _coverage(present_items, is_core)
    if scope == "partial":
        log.warn(_coverage_note(name, ANSWERS, coverage))
    content = answers_content_hash(release, answers, present_items)
    return Submission(
        kind=ANSWERS,
        format=ANSWERS,
        filename=name,
        content_hash=content,
        n_rows=len(table.frame),
        scope=scope,
        coverage=MappingProxyType(coverage),
        present=_readonly(present_items),
        answers=tuple(answers),
        meta=MappingProxyType(header),
        warnings=tuple(log.warnings),
    )


def attach_labels(
    submission: Submission,
    data: bytes,
    filename: str,
    release: Release,
    limits: Limits = DEFAULT_LIMITS,
) -> Submission:
    """Add a judge's labels for the submitted answers (format: module docstring).

    Returns a new :class:`Submission`; the header's judge description (name, model_id,
    family, core_kappa) is merged into ``meta["judge"]``.
    """
    if submission.kind != ANSWERS or submission.answers is None:
        raise ValueError("labels can only be attached to a model-answer submission")
    name = filename or "labels"
    table = _read_upload(data, name, limits.max_bytes)
    log = ProblemLog()
    for note in table.notes:
        log.warn(note)
    if not len(table.frame):
        raise InputError(name, [Problem(name, None, "the file has no data rows", fix="add rows")])
    judge: dict[str, Any] = {}
    if table.header_meta is not None:
        cleaned, problems = clean_meta(
            {"judge": table.header_meta}, name, table.header_line, release.roster.families
        )
        for p in problems:
            log.error(p)
        judge = dict(cleaned.get("judge", {}))
    codes = np.full(release.n_items, vocab.MISSING_CODE, dtype=np.int8)
    seen = np.zeros(release.n_items, dtype=bool)
    if _require(table, ("question_id", "label"), "labels of model answers", log):
        _ignored(table, ("question_id", "label", "answer"), log)
        w = _Walker(table, release, log)
        frame = table.frame
        check_answer = "answer" in frame.columns
        answer_col = frame["answer"] if check_answer else [None] * len(frame)
        for line, q_cell, l_cell, a_cell in zip(
            frame[LINE], frame["question_id"], frame["label"], answer_col, strict=True
        ):
            line = int(line)
            i = w.item(line, "question_id", q_cell)
            code = w.label(line, "label", l_cell)
            if i is None or code is None:
                continue
            given = submission.answers[i]
            if given is None:
                w.error(
                    line,
                    "question_id",
                    "the answers file has no answer for this question",
                    release.item_ids[i],
                    "label only questions that the answers file answers",
                )
                continue
            if check_answer:
                text = w.text(line, "answer", a_cell)
                if text is not None and normalise(text) != normalise(given):
                    w.error(
                        line,
                        "answer",
                        "this label is for a different answer than the submitted one",
                        text,
                        f"label the submitted answer {given[:40]!r}, or check the file",
                    )
                    continue
            if seen[i] and codes[i] != code:
                w.error(
                    line,
                    "label",
                    "question labelled twice, with different labels",
                    release.item_ids[i],
                    "keep one label per question",
                )
                continue
            seen[i] = True
            codes[i] = code
    log.raise_if_any(name)
    meta = dict(submission.meta)
    if judge:
        meta["judge"] = {**judge, **dict(meta.get("judge", {}))}
    labels_hash = _hash(
        f"label\t{release.item_ids[i]}\t{int(codes[i])}" for i in np.flatnonzero(seen)
    )
    return replace(
        submission,
        answer_labels=_readonly(codes),
        answer_labels_hash=labels_hash,
        meta=MappingProxyType(meta),
        warnings=submission.warnings + tuple(log.warnings),
    )


def validate_only(
    data: bytes,
    filename: str,
    release: Release,
    kind: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    labels: tuple[bytes, str] | None = None,
) -> dict[str, Any]:
    """Dry run: check a submission (and optional labels ``(bytes, filename)``) without
    scoring. Never raises for a bad file; returns ``{"ok", "kind", "format", "rows",
    "scope", "coverage", "content_hash", "warnings", "problems"}`` (problems as text)."""
    try:
        sub = parse_submission(data, filename, release, kind, limits)
        if labels is not None:
            sub = attach_labels(sub, labels[0], labels[1], release, limits)
    except InputError as exc:
        return {
            "ok": False,
            "kind": kind,
            "format": None,
            "rows": None,
            "scope": None,
            "coverage": None,
            "content_hash": None,
            "warnings": [],
            "problems": [str(p) for p in exc.problems],
        }
    return {"ok": True, **sub.summary(), "problems": []}
