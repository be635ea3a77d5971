"""Reading a submission: uploaded bytes, tables, Inspect logs and metadata in, a checked
:class:`Submission` out, within the upload :class:`Limits`.
"""

from medqade.scoring.intake.coverage import answers_content_hash, judge_content_hash
from medqade.scoring.intake.decoding import deterministic_decoding
from medqade.scoring.intake.judge_runs import with_runs
from medqade.scoring.intake.kinds import ANSWERS, JUDGE, KINDS
from medqade.scoring.intake.limits import Limits
from medqade.scoring.intake.log_reader import DEFAULT_LIMITS
from medqade.scoring.intake.log_rows import rows_of_log
from medqade.scoring.intake.meta import (
    FORM_KEYS,
    META_KEYS,
    PRICES,
    PROMPTS,
    SubmissionForm,
    clean_meta,
    merge_meta,
)
from medqade.scoring.intake.normalize import char_ngram_dice, fuzzy_ratio, normalise, token_f1
from medqade.scoring.intake.parsed import FileSummary, Submission
from medqade.scoring.intake.settings import Settings
from medqade.scoring.intake.submission import attach_labels, parse_submission, validate_only

__all__ = [
    "ANSWERS",
    "DEFAULT_LIMITS",
    "FORM_KEYS",
    "JUDGE",
    "KINDS",
    "META_KEYS",
    "PRICES",
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
