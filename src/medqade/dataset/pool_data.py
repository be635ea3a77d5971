"""The pool of a built release as code arrays, and a judge's pool labels from either source.

:func:`load_pool_labels` reads only what the pool estimate needs from a build folder: the
pool items' stratum and benchmark link (``pool`` config), the benchmark consensus
(``answers`` config) and one judge's labels, either a paper evaluator's from the
``pool_judgments`` config or a judgments file as ``medqade judge`` writes it (JSON lines of
``evaluator, question_id, order, resp_1..resp_5``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq

from medqade import vocab
from medqade.dataset.release import read_meta
from medqade.files.problems import InputError, Problem, ProblemLog
from medqade.files.tables import LINE, read_table
from medqade.raw.check import Checker
from medqade.raw.table_checks import parse_order

Codes = npt.NDArray[np.int8]


@dataclass(frozen=True)
class PoolLabels:
    """One judge on the pool, aligned with the benchmark's physician consensus.

    ``judge_pool`` (N, 5) and ``lexical_pool`` (N,) cover every pool item; ``labelled`` (N,)
    marks the benchmark items, ``consensus`` (n, 5) is their physician consensus in the same
    (pool) order. Codes as in :mod:`medqade.vocab` (``-1`` unresolved or missing).
    """

    judge: str
    students: tuple[str, ...]
    judge_pool: Codes
    lexical_pool: npt.NDArray[np.bool_]
    labelled: npt.NDArray[np.bool_]
    consensus: Codes
    synthetic: bool
    n_missing: int
    """Pool answers the judge file gave no label for (counted as no verdict)."""


def _parquet(folder: Path, config: str, columns: list[str], **kw: object) -> pd.DataFrame:
    files = sorted((folder / "data" / config).glob("*.parquet"))
    if not files:
        raise FileNotFoundError(
            f"{folder}: this release has no {config!r} config; build it from a raw release "
            "with pool.csv and pool_answers.csv (the default synthetic release has one)"
        )
    tables = [pq.read_table(f, columns=columns, **kw) for f in files]
    return pd.DataFrame(pd.concat([t.to_pandas() for t in tables], ignore_index=True))


def pool_evaluators(folder: Path) -> tuple[str, ...]:
    """The judges whose pool labels the release publishes (``release.json``)."""
    return read_meta(Path(folder)).pool_judges


def load_pool_labels(folder: Path, labels: str) -> PoolLabels:
    """The pool arrays of the build ``folder`` with the judge ``labels``: an evaluator id of
    the ``pool_judgments`` config, or the path of a judgments file over the pool."""
    folder = Path(folder)
    meta = read_meta(folder)
    roster = meta.parsed_roster
    students = tuple(roster.student_ids)
    pool = _parquet(folder, "pool", ["question_id", "lexical_match", "in_benchmark"])
    ids = pd.Index(pool["question_id"])  # row k of every (pool items, 5) array is ids[k]
    answers = _parquet(folder, "answers", ["question_id", "model", "consensus"])
    labelled = pool["in_benchmark"].to_numpy(dtype=bool)
    consensus = _slot_codes(answers, "consensus", ids, students)[labelled]

    path = Path(labels)
    if path.suffix.lower() in {".jsonl", ".csv", ".parquet"} or path.exists():
        judge, long = _read_judgment_file(path, set(ids), roster)
    else:
        judges = pool_evaluators(folder)
        if labels not in judges:
            raise ValueError(
                f"{labels!r} is neither a judgments file nor a judge with pool labels in this "
                f"release; use a .jsonl file from `medqade judge --split pool` or one of "
                f"{', '.join(judges) or '(none published)'}"
            )
        judge = labels
        long = _parquet(
            folder,
            "pool_judgments",
            ["question_id", "model", "label"],
            filters=pc.field("evaluator") == labels,
        )
    judge_pool = _slot_codes(long, "label", ids, students)
    n_missing = len(pool) * len(students) - len(long)
    return PoolLabels(
        judge=judge,
        students=students,
        judge_pool=judge_pool,
        lexical_pool=pool["lexical_match"].to_numpy(dtype=bool),
        labelled=labelled,
        consensus=consensus,
        synthetic=meta.is_synthetic,
        n_missing=max(n_missing, 0),
    )


def _slot_codes(
    frame: pd.DataFrame, column: str, ids: pd.Index, students: tuple[str, ...]
) -> Codes:
    """(pool items, 5) codes of ``column`` (a label or null) by the position of the question id
    in ``ids`` (unique) and of the model in ``students``; ``-1`` where absent."""
    out = np.full((len(ids), len(students)), vocab.MISSING_CODE, dtype=np.int8)
    # get_indexer on Arrow strings is ~10x faster than Series.map with a dict (26,598 x 5 rows)
    rows = ids.get_indexer(pd.Index(frame["question_id"]))
    slots = pd.Index(students).get_indexer(pd.Index(frame["model"]))
    labels, codes = zip(*vocab.LABEL_CODES.items(), strict=True)
    found = pd.Index(labels).get_indexer(pd.Index(frame[column]))
    ok = (rows >= 0) & (slots >= 0) & (found >= 0)
    out[rows[ok], slots[ok]] = np.asarray(codes, dtype=np.int8)[found[ok]]
    return out


def _read_judgment_file(
    path: Path, known: set[str], roster: vocab.Roster
) -> tuple[str, pd.DataFrame]:
    """A judge's name and its labels (question_id, model, label) from a judgments file.

    Every row must name a pool item and list the five students in ``order``; a label must be
    Richtig, Falsch, Keine Angabe or empty (no usable verdict). Problems name file and line.
    """
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such judgments file")
    frame = read_table(path)
    log = ProblemLog()
    c = Checker(log, path, frame)
    needed = ("question_id", "order", *(f"resp_{k}" for k in range(1, 6)))
    if not c.require_columns(needed):
        log.raise_if_any(path.name)
    for col in needed:
        frame[col] = frame[col].map(lambda v: "" if v is None else v)
    c.check_known_questions(known)
    c.check_duplicates(["question_id"], "judgment of a pool item")
    students = set(roster.student_ids)
    orders = frame["order"].map(parse_order)
    bad = orders.map(lambda o: o is None or len(o) != vocab.N_SLOTS or set(o) != students)
    for line, value in frame.loc[bad, [LINE, "order"]].itertuples(index=False):
        c.problem(line, "order must list the five student ids, each once", "order", value)
    labels = {
        k: c.canonicalise(f"resp_{k}", vocab.parse_label, allow_empty=True) for k in range(1, 6)
    }
    log.raise_if_any(path.name)
    evaluators = sorted({str(e) for e in frame.get("evaluator", pd.Series(dtype=str)) if e})
    if len(evaluators) > 1:
        raise InputError(
            path.name,
            [
                Problem(
                    path.name,
                    None,
                    f"the file holds {len(evaluators)} judges ({', '.join(evaluators[:4])})",
                    "evaluator",
                    fix="give pool-estimate one judge's file at a time",
                )
            ],
        )
    parts = [
        pd.DataFrame(
            {
                "question_id": frame["question_id"],
                "model": orders.map(lambda o, k=k: o[k - 1]),
                "label": labels[k].where(labels[k] != "", None),
            }
        )
        for k in range(1, 6)
    ]
    return (evaluators[0] if evaluators else path.stem), pd.concat(parts, ignore_index=True)
