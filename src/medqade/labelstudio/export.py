"""A Label Studio JSON export as a file: loading it, telling a ratings export from a review
export, and the problem factory both importers name tasks and annotations with.

The mapping of a task's fields is documented in :mod:`medqade.labelstudio.ratings` (ratings)
and :mod:`medqade.labelstudio.reviews` (reviews)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.files.tables import decode_utf8

EXPORT_AS_JSON = "export the project as JSON (Export > JSON), not JSON-MIN, CSV or TSV"
"""The hint for every export that is not Label Studio's full JSON."""


_FLAT_KEYS = ("annotator", "annotation_id")
"""Keys of a JSON-MIN row (one flat row per annotation, no ``data`` / ``annotations``)."""


_SHOWN_CHARS = 80


RATINGS_EXPORT = "ratings"


REVIEWS_EXPORT = "reviews"


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


def refuse(name: str, message: str, fix: str, row: int | None = None) -> InputError:
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
            raise refuse(
                name,
                f"this is a {header} export (a header line of columns, not Label Studio's JSON)",
                EXPORT_AS_JSON,
            ) from None
        raise refuse(
            name, f"malformed JSON ({exc.msg} at column {exc.colno})", EXPORT_AS_JSON, exc.lineno
        ) from None
    if not isinstance(tasks, list) or not all(isinstance(t, dict) for t in tasks):
        raise refuse(name, "expected a JSON list of task objects", EXPORT_AS_JSON)
    flat = [
        t
        for t in tasks
        if "data" not in t and "annotations" not in t and any(k in t for k in _FLAT_KEYS)
    ]
    if tasks and len(flat) == len(tasks):
        raise refuse(
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
    raise refuse(
        name,
        f"this is {what} export (its tasks carry "
        + ("data.order / data.resp_k" if kind == RATINGS_EXPORT else "data.model and data.answer")
        + f"), not {'a review' if kind == RATINGS_EXPORT else 'a ratings'} export",
        f"use `medqade {command}` for it",
    )


def shown_json(value: object) -> str:
    return clip(json.dumps(value, ensure_ascii=False, default=str))


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def clip(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


__all__ = [
    "EXPORT_AS_JSON",
    "check_export_kind",
    "clip",
    "export_kind",
    "load_export",
    "plural",
    "refuse",
    "shown_json",
]
