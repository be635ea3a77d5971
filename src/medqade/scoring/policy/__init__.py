"""What is accepted and kept: the one submission policy both front ends call, the results folder
and its store, rescoring, names that would pass for another row, and the verifications that a
verified record needs.
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
from medqade.scoring.policy.verification import (
    Verification,
    read_verification,
    reference_of,
    results_folder_of,
    stored_verifications,
    verification_of,
    verification_targets,
    verified_refusal,
    write_verification,
)
from medqade.scoring.policy.verification import (
    check_targets as check_verification_targets,
)

__all__ = [
    "MIRROR_IGNORE",
    "MIRROR_PATTERNS",
    "Outcome",
    "RateLimit",
    "ResultsStore",
    "Settings",
    "Submitter",
    "Upload",
    "Verification",
    "check",
    "check_results_folder",
    "check_verification_targets",
    "default_results_dir",
    "flag_sentence",
    "on_space",
    "read_verification",
    "reference_of",
    "rescore",
    "results_folder_of",
    "score_line",
    "size_refusal",
    "stored_verifications",
    "submit",
    "upload_suffix",
    "verification_of",
    "verification_targets",
    "verified_refusal",
    "write_verification",
]
