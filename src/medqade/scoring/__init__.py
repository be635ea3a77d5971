"""Scoring submissions against physician consensus: judge labels and model answers.

The library behind ``medqade score`` and the leaderboard Space (which imports only this
package; nothing here imports gradio). Frozen dataclasses inside, JSON only at the edges
(``record.to_json()`` where a record is written; docs/architecture.md names them)::

    sub = parse_submission(data, "run.jsonl", release)        # InputError lists every problem
    record = score(release, sub, {"name": "My judge", "family": "GPT"})  # a ScoreRecord
    board = leaderboard([*reference_records(release), record], view="core")  # a Board

Modules: :mod:`~medqade.scoring.intake.submission` (formats, checks; helped by :mod:`~.kinds`,
:mod:`~.rows`, :mod:`~.judge_rows`, :mod:`~.answer_rows` and :mod:`~.coverage`),
:mod:`~.judge` and :mod:`~.answers` (metrics), :mod:`~.baselines` (judges without an LLM),
:mod:`~.records` (result records), :mod:`~.leaderboard`, :mod:`~.meta` (metadata fields),
:mod:`~.normalize` (answer normalisation) and :mod:`~.upload` (reading uploads, safe CSV out).
"""

from medqade.scoring.board import (
    JUDGE_COLUMNS,
    MODEL_COLUMNS,
    Board,
    Interval,
    JudgeRow,
    ModelRow,
    leaderboard,
)
from medqade.scoring.intake import (
    KINDS,
    META_KEYS,
    Limits,
    Settings,
    Submission,
    attach_labels,
    normalise,
    parse_submission,
    validate_only,
)
from medqade.scoring.metrics import (
    BASELINES,
    SCHEMA_VERSION,
    SCORER_VERSION,
    Baseline,
    baseline_labels,
    prepare,
    record_id,
    reference_records,
    score,
    score_file,
)
from medqade.scoring.record import csv_cell, csv_text

__all__ = [
    "BASELINES",
    "JUDGE_COLUMNS",
    "KINDS",
    "META_KEYS",
    "MODEL_COLUMNS",
    "SCHEMA_VERSION",
    "SCORER_VERSION",
    "Baseline",
    "Board",
    "Interval",
    "JudgeRow",
    "Limits",
    "ModelRow",
    "Settings",
    "Submission",
    "attach_labels",
    "baseline_labels",
    "csv_cell",
    "csv_text",
    "leaderboard",
    "normalise",
    "parse_submission",
    "prepare",
    "record_id",
    "reference_records",
    "score",
    "score_file",
    "validate_only",
]
