"""One task of a ratings export, read field by field: the student model at each position, the
answer texts checked against a raw release, the round of an annotation, its choices (labels
and difficulty) and the ratings rows they make."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from medqade import vocab
from medqade.files.tables import find_table, read_table
from medqade.labelstudio.export import EXPORT_AS_JSON, Where, clip, refuse, shown_json
from medqade.raw.check import ISO_FORMS, iso_moment

DIFFICULTY_CONTROL = "difficulty"


_POSITION_CONTROL = re.compile(r"^(?:label|resp)_([1-9][0-9]*)$")


@dataclass(frozen=True)
class RawTexts:
    """What the importer checks tasks against: answer texts and splits of a raw release."""

    answers: Mapping[tuple[str, str], str]
    splits: Mapping[str, str]
    name: str = "raw release"


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
            raise refuse(str(folder), f"no {table} table", "pass the raw release folder (--raw)")
        frame = read_table(path)
        missing = [c for c in (*columns, "question_id") if c not in frame.columns]
        if missing:
            raise refuse(path.name, f"no column {missing[0]!r}", "use a raw release table")
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


def positions(data: Mapping[str, Any], where: Where, roster: vocab.Roster) -> list[str] | None:
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


def check_texts(
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
                clip(shown),
                "import tasks made from this raw release, or pass the right one (--raw)",
            )
        elif expected.strip() != shown.strip():
            where(
                f"data.resp_{k} is not the raw release's answer of order[{k}] = {model} "
                f"(the raw release has {clip(expected)!r})",
                f"data.resp_{k}",
                clip(shown),
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


def round_of(
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


def split_of(qid: str, data: Mapping[str, Any], raw: RawTexts | None) -> str | None:
    if raw is not None and qid in raw.splits:
        return raw.splits[qid]
    split = str(data.get("split", "")).strip()
    return split if split in vocab.SPLITS else None


def task_data(task: Mapping[str, Any], where: Where) -> dict[str, Any] | None:
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


def seen_before(
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


def choices(result: object, at: Where) -> tuple[dict[int, str], str | None]:
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
            shown_json(results),
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


def rating_rows(
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
    when = rated_at(ann, ann_round).get("rated_at")
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
                    **rated_at(ann, ann_round),
                }
            )
        else:
            at(
                f"no rating for the answer at position {k} ({order[k - 1]}): left out as missing",
                f"label_{k}",
                warn=True,
            )
    return rows


def rated_at(annotation: Mapping[str, Any], round: str) -> dict[str, str]:
    """A re-rating keeps when it was made: the annotation's ``created_at`` as ``rated_at``."""
    if round != vocab.RERATING:
        return {}
    return {"rated_at": str(annotation.get("created_at") or "").strip()}


__all__ = [
    "RawTexts",
    "check_texts",
    "choices",
    "load_raw_texts",
    "positions",
    "rated_at",
    "rating_rows",
    "round_of",
    "seen_before",
    "split_of",
    "task_data",
]
