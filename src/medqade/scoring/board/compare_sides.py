"""The two sides of a comparison (``medqade compare``, the Space's Compare): :func:`resolve`.

A side is a paper evaluator (its id), ``physicians`` (the leave-one-out reference), a
baseline judge (its id or name) or a judge row of the caller's board (its record id, or a
unique prefix of at least 8 characters): :func:`resolve` looks a token up in that closed set
only and never treats it as a path, so a token that names a file on the server is refused like
any other unknown id. A token longer than :data:`MAX_TOKEN` characters is refused before any
work. A stored record is compared through its stored upload, read by the caller's path (never
one a token names); when that upload cannot be read or parsed, the message says so without
quoting the file. A judge file the *local* user names is not a token either: the command layer
(``medqade compare``) parses it and passes the :class:`Side` of :func:`submission_side`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from medqade import vocab
from medqade.scoring.intake import (
    DEFAULT_LIMITS,
    JUDGE,
    Limits,
    Submission,
    parse_submission,
)
from medqade.scoring.metrics import BASELINES, baseline_labels
from medqade.scoring.record import RecordMeta, ScoreRecord

if TYPE_CHECKING:
    from medqade.dataset.release import Release

Codes = npt.NDArray[np.int8]
PHYSICIANS: Final = "physicians"
MIN_PREFIX: Final = 8
MAX_TOKEN: Final = 200


class CompareError(ValueError):
    """A side that cannot be resolved or compared; the message says what to pass instead."""


@dataclass(frozen=True, eq=False)
class Side:
    """One side of a comparison: its name, what it is, and its labels (items, slots).

    ``labels`` is ``None`` for the physicians (their numbers are the leave-one-out
    reference); absent answer slots are ``MISSING``.
    """

    token: str
    name: str
    source: str
    labels: Codes | None
    present: npt.NDArray[np.bool_] | None = None
    """The answer slots the side has a row for (``None``: every slot, as for the paper
    evaluators and the baselines, whose missing judgments are missing labels)."""

    @property
    def is_physicians(self) -> bool:
        return self.labels is None

    def to_dict(self) -> dict[str, str]:
        """The side as ``medqade compare --json`` writes it (token, name, source)."""
        return {"token": self.token, "name": self.name, "source": self.source}


def check_token(token: str) -> str:
    """``token`` without surrounding blanks; :class:`CompareError` when it is longer than
    :data:`MAX_TOKEN` characters (no row id is), before anything is looked up."""
    if len(token) > MAX_TOKEN:
        raise CompareError(
            f"a judge row id has at most {MAX_TOKEN} characters, got {len(token):,}; pick a "
            "row from the list (a paper evaluator id, 'physicians', a baseline id or a record id)"
        )
    return token.strip()


def _record_side(
    release: Release,
    token: str,
    records: Sequence[ScoreRecord],
    uploads: Mapping[str, Path],
    limits: Limits,
) -> Side | None:
    if len(token) < MIN_PREFIX:
        return None
    found = [r for r in records if str(r.id or "").startswith(token)]
    ids = {str(r.id) for r in found}
    if len(ids) > 1:
        raise CompareError(f"{token!r} is the prefix of {len(ids)} records; give more characters")
    if not found:
        return None
    record = found[0]
    rid = str(record.id)
    meta = record.meta or RecordMeta()
    name = str(record.name)
    if record.kind != JUDGE:
        raise CompareError(f"record {rid[:16]} ({name}) is a model's answers, not a judge")
    source = str(meta.source or "submission")
    if source == PHYSICIANS:
        return Side(token, name, PHYSICIANS, None)
    model_id = meta.model_id
    if source == "paper" and model_id in release.roster.evaluator_ids:
        return _evaluator_side(release, token, str(model_id))
    if source == "baseline":
        base = next((b for b in BASELINES if b.id == model_id), None)
        if base is not None:
            return Side(token, base.name, "baseline", baseline_labels(release, base))
    path = uploads.get(rid)
    if path is None:
        raise CompareError(f"record {rid[:16]} ({name}) has no stored upload to compare")
    try:
        sub = parse_submission(path.read_bytes(), f"stored{path.suffix}", release, JUDGE, limits)
    except (OSError, ValueError) as exc:  # InputError is a ValueError; never quote the file
        raise CompareError(
            f"the stored upload of record {rid[:16]} ({name}) cannot be read as judge labels "
            f"({type(exc).__name__}); compare another row, or ask the Space's maintainers"
        ) from None
    return submission_side(token, sub, name)


def _evaluator_side(release: Release, token: str, evaluator: str) -> Side:
    k = release.roster.evaluator_ids.index(evaluator)
    return Side(token, release.roster.name(evaluator), "paper", release.evaluator_labels[k])


def submission_side(token: str, sub: Submission, name: str) -> Side:
    """The :class:`Side` of a parsed judge submission (a stored record's upload, or a file the
    local user named on the command line, parsed there); ``name`` is shown unless the
    submission's own metadata names it."""
    if sub.labels is None:
        raise CompareError(f"{name} holds model answers, not judge labels; compare a judge")
    labels = np.where(sub.present, sub.labels, vocab.MISSING_CODE).astype(np.int8)
    return Side(token, name, "submission", labels, np.asarray(sub.present, dtype=bool))


def resolve(
    release: Release,
    token: str,
    records: Sequence[ScoreRecord] = (),
    uploads: Mapping[str, Path] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    also: str = "",
) -> Side:
    """The :class:`Side` that ``token`` names (module docstring for what it may be).

    ``records`` are the rows of the caller's board (reference rows and stored submissions; a
    record not among them cannot be named) and ``uploads`` the stored upload of each record
    id. ``token`` is only ever compared with those ids and names, never opened. Raises
    :class:`CompareError` with a message naming what is accepted (and ``also``, what the
    caller accepts besides, e.g. the CLI's local judge file).
    """
    token = check_token(token)
    roster = release.roster
    if token.casefold() == PHYSICIANS:
        return Side(token, "Physicians (leave-one-out)", PHYSICIANS, None)
    if token in roster.evaluator_ids:
        return _evaluator_side(release, token, token)
    for base in BASELINES:
        if token.casefold() in (base.id.casefold(), base.name.casefold()):
            return Side(token, base.name, "baseline", baseline_labels(release, base))
    side = _record_side(release, token, records, uploads or {}, limits)
    if side is not None:
        return side
    accepted = [
        f"a paper evaluator ({', '.join(roster.evaluator_ids)})",
        f"'{PHYSICIANS}'",
        f"a baseline ({', '.join(b.id for b in BASELINES)})",
        "the record id of a judge row on the leaderboard (at least 8 characters)",
        *([also] if also else []),
    ]
    raise CompareError(
        f"{token!r} is not {', '.join(accepted[:-1])} or {accepted[-1]}; give one of these"
    )


__all__ = [
    "MAX_TOKEN",
    "MIN_PREFIX",
    "PHYSICIANS",
    "CompareError",
    "Side",
    "check_token",
    "resolve",
    "submission_side",
]
