"""The optional ``reviews`` table of a raw release: reviewed disagreements, validated once.

Table (``reviews.csv``, ``.jsonl`` or ``.parquet``)::

    reviews   question_id, model, reviewer, codes [, note]

One row is one reviewer's verdict on one answer (the answer id is ``question_id/model``):
``codes`` are code ids of the codebook, separated by ``;`` (or a list in JSONL / Parquet),
``note`` free text. The codebook is ``codebook.json`` beside the tables when the release has
one, else the package default (:data:`medqade.raw.codebook.DEFAULT_CODEBOOK`); every row must
satisfy it (known codes, at most one per exclusive group, exactly one per required group).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from medqade import vocab
from medqade.files.problems import InputError, ProblemLog
from medqade.files.tables import LINE, find_table, read_table
from medqade.raw.check import Checker, strip_columns
from medqade.raw.codebook import DEFAULT_CODEBOOK, Codebook, load_codebook

REVIEW_COLUMNS = ("question_id", "model", "reviewer", "codes")
REVIEW_OPTIONAL = ("note",)
CODEBOOK_FILE = "codebook.json"


@dataclass(frozen=True)
class ReviewTable:
    """The validated reviews (``codes`` a list of ids in codebook order) and their codebook."""

    frame: pd.DataFrame
    codebook: Codebook


def split_codes(value: object) -> list[str]:
    """Code ids from a cell: a list, or text separated by ``;`` or ``,``."""
    if isinstance(value, list):
        items = [str(v) for v in value]
    elif hasattr(value, "tolist"):
        items = [str(v) for v in value.tolist()]
    else:
        items = str(value).replace(",", ";").split(";")
    return [s.strip() for s in items if s.strip()]


def release_codebook(folder: Path) -> Codebook:
    """``codebook.json`` of the release folder, or the default codebook."""
    path = Path(folder) / CODEBOOK_FILE
    return load_codebook(path) if path.exists() else DEFAULT_CODEBOOK


def load_reviews(
    folder: Path, log: ProblemLog, roster: vocab.Roster, answers: pd.DataFrame
) -> ReviewTable | None:
    """The validated reviews of ``folder`` (``None`` without the table); problems go to ``log``
    with file, line and value. ``answers`` is the validated answers table."""
    try:  # read even without a reviews table: a broken codebook.json is never ignored
        codebook = release_codebook(folder)
    except InputError as exc:
        log.errors.extend(exc.problems)
        return None
    path = find_table(folder, "reviews")
    if path is None:
        return None
    try:
        checker = Checker(log, path, read_table(path))
    except InputError as exc:
        log.errors.extend(exc.problems)
        return None
    if not checker.require_columns(REVIEW_COLUMNS):
        return None
    checker.check_cells(("codes",))
    checker.check_unknown_columns((*REVIEW_COLUMNS, *REVIEW_OPTIONAL))
    if log.errors:
        return None
    f = checker.frame
    if "note" not in f.columns:
        f["note"] = ""
    strip_columns(f, ["question_id", "model", "reviewer", "note"])
    known = set(zip(answers["question_id"], answers["model"], strict=True))
    for line, qid, model in f[[LINE, "question_id", "model"]].itertuples(index=False):
        if (qid, model) not in known:
            checker.problem(
                line,
                f"no answer {qid}/{model} in the answers table",
                "question_id/model",
                f"{qid}/{model}",
                f"review answers of the release (model one of {', '.join(roster.student_ids)})",
            )
    for line in f.loc[f["reviewer"] == "", LINE]:
        checker.problem(line, "empty reviewer", "reviewer", "", "name who reviewed the answer")
    checker.check_duplicates(["question_id", "model", "reviewer"], "review")
    order = {c: i for i, c in enumerate(codebook.code_ids)}
    codes = []
    unknown: dict[str, int] = {}
    for line, cell in f[[LINE, "codes"]].itertuples(index=False):
        ids = split_codes(cell)
        for message, fix in codebook.problems_with(ids):
            checker.problem(line, message, "codes", "; ".join(ids), fix)
        for c in ids:
            if c not in order:
                unknown[c] = unknown.get(c, 0) + 1
        codes.append(sorted(set(ids), key=lambda c: order.get(c, len(order))))
    if unknown:
        source = (
            f"{CODEBOOK_FILE} of the release"
            if (Path(folder) / CODEBOOK_FILE).exists()
            else "the package's default codebook (the release has no codebook.json)"
        )
        checker.problem(
            None,
            f"{len(unknown)} code(s) are not in the codebook {codebook.name}, {source}: "
            + ", ".join(sorted(unknown)[:12])
            + (", ..." if len(unknown) > 12 else ""),
            "codes",
            fix=f"if the reviews were made with another codebook, copy it to RAW/{CODEBOOK_FILE} "
            "(the file given to medqade import-reviews --codebook) so the build checks against it",
        )
    f["codes"] = codes
    if log.errors:
        return None
    rank = {m: i for i, m in enumerate(roster.student_ids)}
    q_rank = {q: i for i, q in enumerate(dict.fromkeys(answers["question_id"]))}
    f = f.assign(_q=f["question_id"].map(q_rank), _m=f["model"].map(rank))
    f = f.sort_values(["_q", "_m", "reviewer"], kind="stable").drop(columns=["_q", "_m", LINE])
    return ReviewTable(f.reset_index(drop=True), codebook)
