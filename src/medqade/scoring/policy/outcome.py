"""What one submission is and what it is answered: :class:`Upload`, :class:`Submitter`,
:class:`Outcome`, and the refusals decided before a file is parsed (its bytes,
:func:`size_refusal`; its lines, :func:`line_refusal`), shared by the Space, ``medqade score``
and ``medqade rescore`` (:mod:`medqade.scoring.policy.policy` for the order of the rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from medqade.files.problems import InputError, Problem
from medqade.measures import CONTAMINATION
from medqade.scoring.intake import FileSummary, Limits, Submission
from medqade.scoring.record import ScoreRecord

PARQUET: Final = ".parquet"
EVAL_LOG: Final = ".eval"


@dataclass(frozen=True)
class Upload:
    """One uploaded file: its bytes, the name messages show, and the suffix it is stored
    with (:func:`medqade.scoring.policy.store.upload_suffix` of its own name)."""

    data: bytes
    shown: str
    suffix: str


@dataclass(frozen=True)
class Submitter:
    """Who submits, as the store keeps it: the stored account form (never a user name),
    earlier stored forms of the same account (counted by the rate limit) and the scheme."""

    account: str
    aliases: tuple[str, ...] = ()
    scheme: str | None = None


@dataclass(frozen=True)
class Outcome:
    """The answer to one submission: a message, and a record, a summary or problems.

    ``submission`` is the parsed upload (when it parsed); ``error`` the exception a refusal
    came from, for a caller that reports it its own way (the CLI re-raises it)."""

    ok: bool
    message: str
    record: ScoreRecord | None = None
    summary: FileSummary | None = None
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    submission: Submission | None = field(default=None, compare=False, repr=False)
    error: Exception | None = field(default=None, compare=False, repr=False)
    dry_run: bool = False
    """A dry run (``validate_only``): ``record`` is what would be stored, and nothing was."""


def size_refusal(shown: str, size: int, limits: Limits, suffix: str = "") -> str | None:
    """Why a file of ``size`` bytes is refused before it is read, or ``None`` (an Inspect log,
    ``suffix`` ``.eval``, may have up to ``limits.max_log_bytes``: it holds every message)."""
    if suffix == EVAL_LOG:
        if size <= limits.max_log_bytes:
            return None
        return (
            f"{shown}: the Inspect log has {size:,} bytes, more than the limit of "
            f"{limits.max_log_bytes:,} bytes; split the run (inspect eval --limit) or submit "
            "the labels as JSON Lines."
        )
    if size <= limits.max_bytes:
        return None
    return (
        f"{shown}: the file has {size:,} bytes, more than the limit of {limits.max_bytes:,} "
        "bytes; remove extra columns or save it as Parquet."
    )


def line_refusal(upload: Upload, limits: Limits) -> str | None:
    """Why a text file is refused for its number of lines before it is parsed, or ``None``
    (a header and a trailing line are allowed beyond ``limits.max_rows``)."""
    if upload.suffix in (PARQUET, EVAL_LOG):  # binary (an Inspect log is a ZIP archive)
        return None
    data = upload.data
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if lines <= limits.max_rows + 2:
        return None
    return (
        f"{upload.shown}: the file has {lines:,} lines, more than the limit of "
        f"{limits.max_rows:,} rows; submit one judge or one model per file."
    )


def duplicate_key(sub: Submission) -> str:
    """The key two submissions share when they are the same content (the submission's
    content hash, plus that of a judge's labels of model answers)."""
    return sub.content_hash + (f"+{sub.answer_labels_hash}" if sub.answer_labels_hash else "")


def problems_message(exc: InputError) -> str:
    """One line for a submission that did not parse (the problems are listed beside it)."""
    n = len(exc.problems)
    return f"{n} problem{'s' if n != 1 else ''} found in {exc.what}; nothing was scored."


def refused(message: str, exc: Exception | None = None) -> Outcome:
    """A refusal: the problems of an :class:`~medqade.files.problems.InputError` with their
    one-line message, else ``message`` with the exception it came from (a ``ValueError`` of
    ``message`` when none)."""
    if isinstance(exc, InputError):
        return Outcome(False, problems_message(exc), problems=tuple(exc.problems), error=exc)
    return Outcome(False, message, error=exc if exc is not None else ValueError(message))


CONTAMINATION_SENTENCE: Final = (
    " Flagged contamination: the judge agrees with the published consensus better than with the "
    "held-out labels, by more than the physicians do, so it gets no verdict and no rank."
)


def flag_sentence(rec: ScoreRecord) -> str:
    """What a submitter is told about a record's flag beyond its numbers (empty when none):
    the held-out check's flag, in words."""
    return CONTAMINATION_SENTENCE if rec.has_flag(CONTAMINATION) else ""


def score_line(rec: ScoreRecord) -> str:
    """The headline of a scored record in words: a judge's core kappa with its 95% CI and
    verdict, a model's accuracy with its 95% CI (what a dry run reports)."""

    def num(x: object) -> str:
        return f"{x:.3f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "n/a"

    def ci(pair: object) -> str:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            return f"95% CI {num(pair[0])} - {num(pair[1])}"
        return "95% CI n/a"

    if rec.kind == "judge":
        core = rec.core
        kappa, interval = (core.kappa, core.kappa_ci) if core is not None else (None, None)
        return f"core kappa {num(kappa)} ({ci(interval)}), verdict {rec.verdict or 'n/a'}"
    acc = next((a for a in (rec.accuracy_core, rec.accuracy) if a and a.json_keys), None)
    return f"accuracy {num(acc.anchored)} ({ci(acc.ci)})" if acc is not None else "accuracy n/a"


__all__ = [
    "CONTAMINATION_SENTENCE",
    "EVAL_LOG",
    "PARQUET",
    "Outcome",
    "Submitter",
    "Upload",
    "duplicate_key",
    "flag_sentence",
    "line_refusal",
    "problems_message",
    "refused",
    "score_line",
    "size_refusal",
]
