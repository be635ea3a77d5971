"""What is accepted and kept: the one submission policy both front ends call, the results folder
and its store, rescoring, and names that would pass for another row.
"""

from medqade.scoring.policy.outcome import (
    Outcome,
    Submitter,
    Upload,
    flag_sentence,
    score_line,
    size_refusal,
)
from medqade.scoring.policy.policy import Settings, check, submit
from medqade.scoring.policy.rescoring import rescore
from medqade.scoring.policy.results_folder import (
    MIRROR_IGNORE,
    MIRROR_PATTERNS,
    RateLimit,
    check_results_folder,
    default_results_dir,
    on_space,
    upload_suffix,
)
from medqade.scoring.policy.store import ResultsStore

__all__ = [
    "MIRROR_IGNORE",
    "MIRROR_PATTERNS",
    "Outcome",
    "RateLimit",
    "ResultsStore",
    "Settings",
    "Submitter",
    "Upload",
    "check",
    "check_results_folder",
    "default_results_dir",
    "flag_sentence",
    "on_space",
    "rescore",
    "score_line",
    "size_refusal",
    "submit",
    "upload_suffix",
]
