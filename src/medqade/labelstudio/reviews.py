"""A reviewed Label Studio export (of the review queue's tasks) in, the ``reviews`` table out.

Uses the ratings importer's machinery (:mod:`medqade.labelstudio.ratings`: the export loader that
refuses JSON-MIN and CSV, problems per task and annotation). Each task's ``data`` carries
``question_id`` and ``model`` (as written by :func:`medqade.labelstudio.review_queue.tasks`); each
annotation that is not cancelled is one review:

``result`` items of ``type: "choices"``
    ``from_name`` a code group id of the codebook; each choice is a code id (the config's
    ``alias``) or the code's label as shown; the codes together must satisfy the codebook;
``type: "textarea"``, ``from_name: "note"``
    the note (several lines joined by a new line);
``completed_by``
    the reviewer: mapped by ``reviewer_map`` (Label Studio user id or e-mail -> name) when
    given, else the user's e-mail when the export carries it, else ``user <id>``.

Every problem is collected and raised as one :class:`~medqade.files.problems.InputError`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from medqade import vocab
from medqade.files import atomic
from medqade.files.problems import Problem, ProblemLog
from medqade.files.tables import read_table
from medqade.labelstudio.export import (
    EXPORT_AS_JSON,
    REVIEWS_EXPORT,
    Where,
    check_export_kind,
    load_export,
)
from medqade.labelstudio.raw_tables import merge, table_output, to_csv
from medqade.labelstudio.review_queue import NOTE_CONTROL
from medqade.labelstudio.users import BAD_USER, WHERE_USER_IDS, is_user, user_keys
from medqade.raw.codebook import Codebook

REVIEW_COLUMNS = ("question_id", "model", "reviewer", "codes", "note")
OTHER_CODEBOOK = (
    "if the project was reviewed with another codebook, pass it with --codebook and copy it to "
    "RAW/codebook.json (the build checks the reviews against that file); else use the labeling "
    "config medqade review-queue wrote with this codebook"
)


@dataclass(frozen=True)
class ReviewImport:
    reviews: pd.DataFrame
    warnings: tuple[Problem, ...]
    n_tasks: int
    n_cancelled: int
    n_excluded: int = 0
    """Annotations left out because their user was excluded."""


def _reviewer(completed_by: object, reviewer_map: Mapping[str, str] | None) -> str | None:
    keys = user_keys(completed_by)
    if reviewer_map is not None:
        return next((reviewer_map[k] for k in keys if k in reviewer_map), None)
    if isinstance(completed_by, Mapping) and completed_by.get("email"):
        return str(completed_by["email"])
    return f"user {keys[0]}" if keys else None


def _codes(
    item: Mapping[str, Any], codebook: Codebook, at: Where, unknown: set[str]
) -> list[str] | None:
    value = item.get("value")
    chosen = value.get("choices") if isinstance(value, Mapping) else None
    if not isinstance(chosen, list):
        at("expected a list of choices", str(item.get("from_name")), value)
        return None
    by_label = {codebook.label(c): c for c in codebook.code_ids}
    out = []
    for choice in chosen:
        code = str(choice) if str(choice) in codebook.code_ids else by_label.get(str(choice))
        if code is None:
            unknown.add(str(choice))
            at(
                f"unknown code (not in the codebook {codebook.name})",
                str(item.get("from_name")),
                choice,
                OTHER_CODEBOOK,
            )
            continue
        if codebook.group_of(code).id != item.get("from_name"):
            at(f"code {code!r} belongs to another group", str(item.get("from_name")), choice)
            continue
        out.append(code)
    return out


def _json(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _note(value: object) -> list[str] | None:
    """The lines of a textarea result's value ``{"text": [...]}`` (a single text is one line);
    ``None`` when the shape is wrong."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return None
    text = value.get("text")
    if text is None:
        return []
    if isinstance(text, str):
        return [text]
    if isinstance(text, list) and all(isinstance(x, str) for x in text):
        return list(text)
    return None


def convert_reviews(
    tasks: list[dict[str, Any]],
    codebook: Codebook,
    *,
    reviewer_map: Mapping[str, str] | None = None,
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    name: str = "export",
) -> ReviewImport:
    """The reviews in ``tasks`` (a loaded export), checked against ``codebook``."""
    check_export_kind(tasks, REVIEWS_EXPORT, name)
    log = ProblemLog()
    rows = []
    seen: dict[tuple[str, str, str], object] = {}
    unknown: set[str] = set()
    cancelled = 0
    groups = {g.id for g in codebook.groups}
    for t_index, task in enumerate(tasks):
        task_id = task.get("id", t_index + 1)
        data = task.get("data")
        where = Where(log, name, task_id)
        if not isinstance(data, Mapping):
            where("task without data", "data", None, "export the review project as JSON")
            continue
        qid = str(data.get("question_id", "")).strip()
        model = str(data.get("model", "")).strip()
        if not qid or model not in roster.student_ids:
            where(
                "task without question_id and a student model",
                "data.model",
                model or None,
                "import tasks written by medqade review-queue",
            )
            continue
        annotations = task.get("annotations") or []
        if not isinstance(annotations, list):
            where("annotations must be a list", "annotations", _json(annotations), EXPORT_AS_JSON)
            continue
        for a_index, ann in enumerate(annotations):
            if not isinstance(ann, Mapping):
                where(
                    f"annotation {a_index + 1} is not a JSON object",
                    "annotations",
                    _json(ann),
                    EXPORT_AS_JSON,
                )
                continue
            at = Where(log, name, task_id, ann.get("id"))
            if ann.get("was_cancelled"):
                cancelled += 1
                continue
            completed_by = ann.get("completed_by")
            if not is_user(completed_by):
                at(*BAD_USER, _json(completed_by), EXPORT_AS_JSON)
                continue
            reviewer = _reviewer(completed_by, reviewer_map)
            if reviewer is None:
                by_id = reviewer_map is not None and not isinstance(completed_by, Mapping)
                at(
                    "the reviewer is not in the reviewer map",
                    "completed_by",
                    completed_by,
                    (
                        "the reviewer map names e-mails, but the Export button's JSON names "
                        'users by integer id only: map the ids ({"5": "Dr. Weber"}; '
                        f"{WHERE_USER_IDS}), or export a snapshot with user details "
                        "(annotations__completed_by.only_id=false)"
                    )
                    if by_id and any("@" in k for k in reviewer_map or {})
                    else 'add the user id or e-mail to the reviewer map ({"5": "Dr. Weber"})',
                )
                continue
            earlier = seen.get((qid, model, reviewer))
            if earlier is not None:
                at(
                    f"{reviewer} already reviewed {qid}/{model} in annotation {earlier}",
                    "completed_by",
                    reviewer,
                    "keep one annotation per reviewer and task: delete the other one in Label "
                    "Studio and export again",
                )
                continue
            seen[(qid, model, reviewer)] = ann.get("id")
            codes: list[str] = []
            notes: list[str] = []
            ok = True
            results = ann.get("result") or []
            if not isinstance(results, list):
                at("result must be a list of results", "result", _json(results), EXPORT_AS_JSON)
                continue
            for item in results:
                if not isinstance(item, Mapping):
                    at("a result is not a JSON object", "result", _json(item), EXPORT_AS_JSON)
                    ok = False
                    continue
                kind, control = item.get("type"), item.get("from_name")
                if not isinstance(control, str):
                    at(
                        "from_name must be the name of a control",
                        "from_name",
                        _json(control),
                        f"name the controls after the code groups: {', '.join(sorted(groups))}",
                    )
                    ok = False
                    continue
                if kind == "choices" and control in groups:
                    got = _codes(item, codebook, at, unknown)
                    ok = ok and got is not None
                    codes.extend(got or [])
                elif kind == "textarea" and control == NOTE_CONTROL:
                    got_notes = _note(item.get("value"))
                    if got_notes is None:
                        at(
                            "the note must be a list of lines",
                            NOTE_CONTROL,
                            _json(item.get("value")),
                            'a textarea result\'s value is {"text": ["line", ...]}',
                        )
                        ok = False
                        continue
                    notes.extend(got_notes)
                elif kind == "choices":
                    at(
                        "unknown from_name",
                        "from_name",
                        control,
                        f"name the controls after the code groups: {', '.join(sorted(groups))}",
                    )
            # the codes together are checked only when every result could be read (a bad
            # from_name would also show up as a missing group)
            for message, fix in codebook.problems_with(codes) if ok else []:
                at(message, "codes", "; ".join(codes), fix)
                ok = False
            if ok:
                order = {c: i for i, c in enumerate(codebook.code_ids)}
                rows.append(
                    {
                        "question_id": qid,
                        "model": model,
                        "reviewer": reviewer,
                        "codes": "; ".join(sorted(set(codes), key=order.__getitem__)),
                        "note": "\n".join(notes).strip(),
                    }
                )
    if unknown:
        shown = ", ".join(sorted(unknown)[:12]) + (", ..." if len(unknown) > 12 else "")
        log.errors.insert(
            0,
            Problem(
                name,
                None,
                f"{len(unknown)} choice(s) are not codes of the codebook {codebook.name}: {shown}",
                fix=OTHER_CODEBOOK,
            ),
        )
    log.raise_if_any(f"Label Studio export {name}")
    frame = pd.DataFrame(rows, columns=list(REVIEW_COLUMNS))
    return ReviewImport(frame, tuple(log.warnings), len(tasks), cancelled)


def _without_users(
    tasks: list[dict[str, Any]], exclude: Iterable[object]
) -> tuple[list[dict[str, Any]], int]:
    """``tasks`` without the annotations of the ``exclude`` users (ids or e-mails), and how
    many were left out."""
    keys = {str(u).strip().casefold() for u in exclude}
    if not keys:
        return tasks, 0
    kept, n = [], 0
    for task in tasks:
        annotations = task.get("annotations")
        if not isinstance(annotations, list):
            kept.append(task)
            continue
        mine = [
            a
            for a in annotations
            if not (isinstance(a, Mapping) and keys & set(user_keys(a.get("completed_by"))))
        ]
        n += len(annotations) - len(mine)
        kept.append({**task, "annotations": mine})
    return kept, n


REVIEW_KEYS = ["question_id", "model", "reviewer"]


def import_reviews(
    export: Path,
    out: Path,
    codebook: Codebook,
    *,
    reviewer_map: Mapping[str, str] | None = None,
    roster: vocab.Roster = vocab.DEFAULT_ROSTER,
    append: bool = False,
    replace: bool = False,
    exclude: Iterable[object] = (),
    inputs: Iterable[tuple[Path, str]] = (),
) -> ReviewImport:
    """Read ``export``, convert it and write the ``reviews`` table ``out`` (CSV, atomically).

    The output policy of :func:`medqade.labelstudio.ratings.table_output`: ``out`` is never the
    export or another input (``inputs``: the codebook, the reviewer map), a build file or another
    table of a raw release; an existing ``out`` needs ``append`` (its rows and columns are
    kept and the export's reviews added; a review present in both is an error) or ``replace``
    (only over a reviews table). ``exclude`` leaves out the annotations of these Label Studio
    users (ids or e-mails), e.g. an admin's test review.
    """
    export, out = Path(export), Path(out)
    table_output(
        out,
        "reviews",
        inputs=[(export, "the Label Studio export"), *inputs],
        append=append,
        replace=replace,
        columns=REVIEW_COLUMNS,
    )
    tasks, n_excluded = _without_users(load_export(export), exclude)
    result = convert_reviews(
        tasks, codebook, reviewer_map=reviewer_map, roster=roster, name=export.name
    )
    frame = result.reviews
    if append and out.exists():
        frame = merge(read_table(out), frame, REVIEW_KEYS, out.name, roster)
    atomic.write_files([atomic.Planned(out, to_csv(frame).encode("utf-8"))])
    return dataclasses.replace(result, n_excluded=n_excluded)
