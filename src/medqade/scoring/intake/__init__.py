"""Reading a submission: uploaded bytes, tables, Inspect logs and metadata in, a checked
:class:`Submission` out, within the upload :class:`Limits`.
"""

from medqade.scoring.intake.decoding import deterministic_decoding
from medqade.scoring.intake.log_rows import rows_of_log
from medqade.scoring.intake.meta import (
    FORM_KEYS,
    META_KEYS,
    PROMPTS,
    SubmissionForm,
    clean_meta,
    merge_meta,
)
from medqade.scoring.intake.normalize import char_ngram_dice, fuzzy_ratio, normalise, token_f1
from medqade.scoring.intake.parsed import FileSummary
from medqade.scoring.intake.settings import Settings
from medqade.scoring.intake.submission import (
    ANSWERS,
    DEFAULT_LIMITS,
    JUDGE,
    KINDS,
    Limits,
    Submission,
    answers_content_hash,
    attach_labels,
    judge_content_hash,
    parse_submission,
    validate_only,
    with_runs,
)

__all__ = [
    "ANSWERS",
    "DEFAULT_LIMITS",
    "FORM_KEYS",
    "JUDGE",
    "KINDS",
    "META_KEYS",
    "PROMPTS",
    "FileSummary",
    "Limits",
    "Settings",
    "Submission",
    "SubmissionForm",
    "answers_content_hash",
    "attach_labels",
    "char_ngram_dice",
    "clean_meta",
    "deterministic_decoding",
    "fuzzy_ratio",
    "judge_content_hash",
    "merge_meta",
    "normalise",
    "parse_submission",
    "rows_of_log",
    "token_f1",
    "validate_only",
    "with_runs",
]
