"""Scoring a checked submission against the physicians: judge and answer metrics, the baseline
judges, and :func:`score`, which builds the result record from them.
"""

from medqade.scoring.metrics.baselines import BASELINES, Baseline, baseline_labels
from medqade.scoring.metrics.context import ALL, CORE, mask, physicians_in_place, prepare, weights
from medqade.scoring.metrics.duplicates import reference_match
from medqade.scoring.metrics.judge import against_physicians
from medqade.scoring.metrics.records import (
    PHYSICIAN_FLAG,
    SCHEMA_VERSION,
    SCORER_VERSION,
    is_record_file,
    record_id,
    score,
    score_file,
)
from medqade.scoring.metrics.reference_rows import reference_records

__all__ = [
    "ALL",
    "BASELINES",
    "CORE",
    "PHYSICIAN_FLAG",
    "SCHEMA_VERSION",
    "SCORER_VERSION",
    "Baseline",
    "against_physicians",
    "baseline_labels",
    "is_record_file",
    "mask",
    "physicians_in_place",
    "prepare",
    "record_id",
    "reference_match",
    "reference_records",
    "score",
    "score_file",
    "weights",
]
