"""Result records: one immutable, schema-versioned JSON object per scored submission.

Shape (proportions, not percent; NaN is written as ``null``)::

    {"schema_version": 3, "id": <sha256>, "timestamp": <ISO 8601 UTC>, "kind": "judge"|"answers",
     "scorer_version", "meta": {...}, "dataset": {"hash", "synthetic", "version", "items"},
     "submission": {"content_hash", "format", "rows", "scope", "coverage", ...},
     "settings": {"resamples", "seed", "confidence"},
     # judge
     "core": {"kappa", "kappa_ci", "pa", "pa_ci", "pabak", "pabak_ci", "n", "n_items",
              "coverage", "abstention", "slots": {MODEL: {...}},
              "rated": {"kappa", "kappa_ci", ..., "n"}},  # abstentions dropped pairwise
     "full": {... same, all items ...} | null,
     "physician_reference": {"kappa", "kappa_ci", ..., "rated": {...}},
     "physician_difference": {"primary", "inference", "kappa", "kappa_ci", "pa", ...,
                              "given_panel": {...}, "panel_error": {...}, "n_physicians"},
     "extension_difference": {... same, "n_items"} | null,
     "verdict": <the one word>, "headline": {"rule", "metric", "margin", "decided_on",
                 "kappa", "kappa_ci", "consistency": {...}, "flags"},
     "alt_test": {"unit", "epsilon", "epsilon_reason", "q", "min_instances", "omega",
                  "winning_rate", "rho", "passed", "meaning", "per_physician", "n_items",
                  "by_question": {"unit", "omega", "rho", "passed", "n_items"}},
     "abstention": {"global", "by_tier": [4], "coverage", "answered_share", ...},
     "bias", "confusion", "by_tier", "by_lexical", "disagreements", "ensembles",
     "behaviour", "ranking_fidelity", "length_bias", "output_shares", "agreement_cells",
     "contamination" (only when scored with held-out labels),
     # answers
     "accuracy": {"anchored", "ci", "lower", "upper", "coverage", "pooled_anchors",
                  "by_tier": [4], "by_lexical": {...}, "judged", ...},
     "accuracy_core": {... same on the core ...}, "judge": {...} | null,
     "flags": [...], "warnings": [...]}

Every builder here returns a frozen :class:`~medqade.scoring.record.score_record.ScoreRecord` whose
sections are built typed where they are computed (:mod:`~medqade.scoring.metrics.judge`,
:mod:`~medqade.scoring.metrics.answers`); its JSON is made only where it is written
(:meth:`~medqade.scoring.record.score_record.ScoreRecord.to_json`). The final record holds its
values as they are stored (Python numbers, NaN as ``None``: :func:`finish`), so a record
scored now equals the record read back from its file. ``id`` is
the SHA-256 of the canonical JSON of the final scored record without ``id``, ``timestamp``
and ``space``: the id covers the scored content; a results folder stores its envelope
(``space``: account, key, uploads) beside it, as a new record made with ``dataclasses.replace``
(:meth:`medqade.scoring.policy.store.ResultsStore.add`), never by changing a record. The
timestamp comes from an injectable clock. The same submission, metadata, release, resamples
and seed give the same record.

Schema 3 (this version) decides one verdict per judge from the core and the extension by the
rule of :mod:`medqade.measures.verdicts`, with intervals over questions and physicians; schema
2 scored abstentions as disagreements and compared like for like, schema 1 dropped
abstentions. A record of an older schema is shown as ``stale`` on the leaderboard (no rank,
no verdict) until it is scored again (``medqade rescore``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from medqade import __version__
from medqade.files.problems import InputError, Problem
from medqade.measures import price_note
from medqade.scoring.intake import (
    ANSWERS,
    JUDGE,
    Settings,
    Submission,
    attach_labels,
    clean_meta,
    deterministic_decoding,
    merge_meta,
    parse_submission,
)
from medqade.scoring.metrics.answers import answer_metrics
from medqade.scoring.metrics.duplicates import reference_match
from medqade.scoring.metrics.judge import PARTIAL, judge_metrics
from medqade.scoring.record import (
    DatasetRef,
    RecordMeta,
    RecordSettings,
    ScoreRecord,
    SubmissionInfo,
    dumps,
    jsonable,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release

SCHEMA_VERSION: Final = 3
SCORER_VERSION: Final = f"medqade {__version__} scoring 4"
SYNTHETIC_FLAG: Final = "synthetic_data"
PHYSICIAN_FLAG: Final = "physician_reference"
CONFIDENCE: Final = 0.95
NORMALISATION: Final = "NFKC, casefold, ß/ss, whitespace, edge punctuation, article"
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


OUTSIDE_ID: Final = ("id", "timestamp", "space")
"""The keys the id does not cover: itself, when it was scored, and the store's envelope."""


def record_id(record: ScoreRecord | Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``record`` without :data:`OUTSIDE_ID`."""
    obj = record.to_json() if isinstance(record, ScoreRecord) else record
    body = {k: v for k, v in obj.items() if k not in OUTSIDE_ID}
    return hashlib.sha256(dumps(body).encode("utf-8")).hexdigest()


RECORD_KEYS: Final = ("schema_version", "id", "kind", "submission")
"""Keys every score record has: a JSON file with them is an earlier ``medqade score --out``."""


def is_record_file(path: Path) -> bool:
    """Whether ``path`` holds a score record (an earlier ``medqade score --out``), unchanged
    since it was written (its ``id`` is the hash of its content), which may be replaced."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and all(k in data for k in RECORD_KEYS)
        and data["kind"] in ("judge", "answers")
        and data.get("id") == record_id(data)  # unchanged since written: content-addressed
    )


ORDER: Final = ("schema_version", "id", "timestamp", "kind", "scorer_version", "meta", "dataset")
"""The keys a record writes first, in this order; its sections follow as they were built."""


def finish(draft: ScoreRecord, clock: Clock | None) -> ScoreRecord:
    """The final record of a draft: its values as stored (numpy as Python numbers, NaN as
    ``None``), its flags sorted, then its id of that content and its timestamp, set once."""
    body = jsonable(draft.to_json())  # the values the file will hold, read back below
    body["flags"] = sorted(set(body["flags"]))
    keys = [k for k in ORDER if k in body or k in ("id", "timestamp")]
    record = ScoreRecord.from_json({k: body.get(k) for k in keys} | body)
    now = (clock or utc_now)().astimezone(UTC).isoformat().replace("+00:00", "Z")
    return replace(record, id=record_id(record), timestamp=now)


def dataset_ref(release: Release) -> DatasetRef:
    """The record's ``dataset``: the release it was scored on."""
    return DatasetRef.of(
        hash=release.data_hash,
        synthetic=release.synthetic,
        version=release.meta.version,
        items=release.n_items,
        core_items=int(release.is_core.sum()),
    )


def base_flags(release: Release) -> list[str]:
    return [SYNTHETIC_FLAG] if release.synthetic else []


def _note(p: Problem) -> str:
    where = "" if p.row is None else f"{p.row_kind} {p.row}: "
    text = f"{where}{p.message}"
    if p.fix:
        text += f"; {p.fix}"
    return text


def check_resamples(resamples: int) -> None:
    """``ValueError`` unless ``resamples`` is a non-negative integer."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 0:
        raise ValueError(f"resamples must be a non-negative integer, got {resamples!r}")


def _meta(
    release: Release, submission_meta: Mapping[str, Any], meta: Mapping[str, Any] | None
) -> RecordMeta:
    explicit, problems = clean_meta(
        dict(meta or {}), "metadata", None, release.roster.families, trusted=True
    )
    if problems:
        raise InputError("metadata", problems)
    merged = merge_meta(submission_meta, explicit)
    merged.setdefault("source", "submission")
    merged.setdefault("verified", False)
    return RecordMeta.from_json(merged)  # the submitter's fields: the form's JSON edge


def judge_record(
    release: Release,
    labels: np.ndarray[Any, Any],
    present: np.ndarray[Any, Any],
    meta: RecordMeta,
    submission: SubmissionInfo,
    settings: Settings,
    clock: Clock | None,
    exclude_evaluator: str | None = None,
    extra_flags: tuple[str, ...] = (),
    warnings: tuple[str, ...] = (),
    behaviour: Mapping[str, Any] | None = None,
    invalid: np.ndarray[Any, Any] | None = None,
) -> ScoreRecord:
    """A judge record from label codes (items, 5) and rows ``present`` (items, 5);
    ``behaviour``: positions, runs and usage (:func:`medqade.measures.judge_behaviour.behaviour`);
    ``invalid``: the unparseable replies (``None``: not recorded)."""
    m = judge_metrics(
        release,
        labels,
        present,
        settings,
        family=meta.family,
        model_id=meta.model_id,
        exclude_evaluator=exclude_evaluator,
        behaviour=behaviour,
        invalid=invalid,
    )
    partial = submission.scope == "partial"
    flags = [*base_flags(release), *m.flags, *extra_flags, *([PARTIAL] if partial else [])]
    draft = ScoreRecord.of(
        schema_version=SCHEMA_VERSION,
        kind=JUDGE,
        scorer_version=SCORER_VERSION,
        meta=meta,
        dataset=dataset_ref(release),
        settings=RecordSettings.of(
            resamples=settings.resamples,
            seed=settings.seed,
            confidence=CONFIDENCE,
            margin=settings.margin,
        ),
        flags=tuple(flags),
        warnings=warnings,
        submission=submission,
        core=m.core,
        full=m.full,
        physician_reference=m.physician_reference,
        physician_difference=m.physician_difference,
        verdict=None if partial else m.verdict,  # a part of a design: evidence only, no rank
        headline=m.headline,
        extension_difference=m.extension_difference,
        alt_test=m.alt_test,
        abstention=m.abstention,
        bias=m.bias,
        confusion=m.confusion,
        by_tier=m.by_tier,
        by_lexical=m.by_lexical,
        disagreements=m.disagreements,
        ensembles=m.ensembles,
        replicates=m.replicates,
        behaviour=m.behaviour,
        ranking_fidelity=m.ranking_fidelity,
        length_bias=m.length_bias,
        output_shares=m.output_shares,
        agreement_cells=m.agreement_cells,
        # only a record scored with held-out labels has the key (older records stay byte-equal)
        **({} if m.contamination is None else {"contamination": m.contamination}),
    )
    return finish(draft, clock)


def score(
    release: Release,
    submission: Submission,
    meta: Mapping[str, Any] | None = None,
    settings: Settings | None = None,
    clock: Clock | None = None,
) -> ScoreRecord:
    """Score a parsed :class:`Submission`; return its result record (module docstring).

    ``meta`` (flags or form fields; keys in :mod:`medqade.scoring.intake.meta`, plus ``source`` and
    ``verified``) overrides the file's header metadata key by key. ``settings`` (defaults
    without) give the resamples (``0`` skips the bootstrap: CIs are null), the seed (by
    default that of ``medqade reproduce``, so a reference evaluator's labels score exactly as
    in its Table 3) and the non-inferiority margin of the verdict against physicians. Raises
    :class:`InputError` for bad metadata.
    """
    settings = settings or Settings()
    check_resamples(settings.resamples)
    merged = _meta(release, submission.meta, meta)
    info = SubmissionInfo.of(
        content_hash=submission.content_hash,
        format=submission.format,
        rows=submission.n_rows,
        scope=submission.scope,
        coverage=dict(submission.coverage),
    )
    notes = tuple(_note(w) for w in submission.warnings)
    copy = reference_match(release, submission)  # a copy of a paper row is flagged, named
    copy_flags = () if copy is None else (copy.flag,)
    if copy is not None:
        info = copy.marked(info)
        notes += (copy.note(),)
    if submission.kind == JUDGE:
        if submission.labels is None:
            raise ValueError("a judge submission without labels")
        exclude = merged.model_id
        priced = price_note(merged.usage)  # prices without the counts a cost needs
        notes += () if priced is None else (priced,)
        return judge_record(
            release,
            submission.labels,
            submission.present,
            merged,
            info,
            settings,
            clock,
            exclude_evaluator=exclude if exclude in release.roster.evaluator_ids else None,
            extra_flags=copy_flags,
            warnings=notes,
            behaviour={
                "positions": submission.positions,
                "runs": submission.runs,
                "usage": merged.usage,
                "deterministic": deterministic_decoding(merged.decoding),
            },
            invalid=submission.invalid,
        )
    if submission.answers is None:
        raise ValueError("an answers submission without answers")
    return answers_record(
        release,
        submission.answers,
        merged,
        info.updated(labels_hash=submission.answer_labels_hash),
        settings,
        clock,
        judge_labels=submission.answer_labels,
        extra_flags=copy_flags,
        warnings=notes,
    )


def answers_record(
    release: Release,
    answers: tuple[str | None, ...] | list[str | None],
    meta: RecordMeta,
    submission: SubmissionInfo,
    settings: Settings,
    clock: Clock | None,
    judge_labels: np.ndarray[Any, Any] | None = None,
    warnings: tuple[str, ...] = (),
    extra_flags: tuple[str, ...] = (),
) -> ScoreRecord:
    """A model-answer record from one answer per item (``None`` = not answered)."""
    m = answer_metrics(
        release,
        answers,
        judge_labels,
        judge=meta.judge,
        family=meta.family,
        model_id=meta.model_id,
        settings=settings,
    )
    partial = [PARTIAL] if submission.scope == "partial" else []
    draft = ScoreRecord.of(
        schema_version=SCHEMA_VERSION,
        kind=ANSWERS,
        scorer_version=SCORER_VERSION,
        meta=meta,
        dataset=dataset_ref(release),
        settings=RecordSettings.of(
            resamples=settings.resamples,
            seed=settings.seed,
            confidence=CONFIDENCE,
            normalisation=NORMALISATION,
        ),
        flags=(*base_flags(release), *m.flags, *extra_flags, *partial),
        warnings=(*warnings, *m.warnings),
        submission=submission,
        accuracy=m.accuracy,
        accuracy_core=m.accuracy_core,
        judge=m.judge,
        replicates=m.replicates,
    )
    return finish(draft, clock)


def score_file(
    release: Release,
    path: Path | str,
    kind: str | None = None,
    meta: Mapping[str, Any] | None = None,
    labels: Path | str | None = None,
    settings: Settings | None = None,
    clock: Clock | None = None,
) -> ScoreRecord:
    """Read, check and score a submission file (and optional labels for model answers),
    within ``settings.limits``."""
    settings = settings or Settings()
    path = Path(path)
    sub = parse_submission(path.read_bytes(), path.name, release, kind, settings.limits)
    if labels is not None:
        lpath = Path(labels)
        sub = attach_labels(sub, lpath.read_bytes(), lpath.name, release, settings.limits)
    return score(release, sub, meta, settings, clock)
