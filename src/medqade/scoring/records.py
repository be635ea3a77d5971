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
     # answers
     "accuracy": {"anchored", "ci", "lower", "upper", "coverage", "pooled_anchors",
                  "by_tier": [4], "by_lexical": {...}, "judged", ...},
     "accuracy_core": {... same on the core ...}, "judge": {...} | null,
     "flags": [...], "warnings": [...]}

Every builder here returns a frozen :class:`~medqade.scoring.record.ScoreRecord`; its JSON is
made only where it is written (:meth:`~medqade.scoring.record.ScoreRecord.to_json`). ``id`` is
the SHA-256 of the canonical JSON of the final scored record without ``id``, ``timestamp``
and ``space``: the id covers the scored content; a results folder stores its envelope
(``space``: account, key, uploads) beside it, as a new record made with ``dataclasses.replace``
(:meth:`medqade.scoring.store.ResultsStore.add`), never by changing a record. The
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
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from medqade import __version__, vocab
from medqade.files.problems import InputError, Problem
from medqade.measures.paired import DEFAULT_MARGIN
from medqade.measures.position import release_positions
from medqade.measures.seeds import BOOTSTRAP_SEED
from medqade.scoring import context, replicates
from medqade.scoring.answers import answer_metrics
from medqade.scoring.baselines import BASELINES, baseline_labels
from medqade.scoring.duplicates import reference_match
from medqade.scoring.judge import PARTIAL, RANKED_METRICS, judge_metrics, rated_block
from medqade.scoring.meta import clean_meta, deterministic_decoding, merge_meta
from medqade.scoring.outputs import dumps, jsonable
from medqade.scoring.record import ScoreRecord
from medqade.scoring.submission import (
    ANSWERS,
    DEFAULT_LIMITS,
    JUDGE,
    Limits,
    Submission,
    answers_content_hash,
    attach_labels,
    judge_content_hash,
    parse_submission,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release

SCHEMA_VERSION: Final = 3
SCORER_VERSION: Final = f"medqade {__version__} scoring 4"
PHYSICIAN_FLAG: Final = "physician_reference"
SYNTHETIC_FLAG: Final = "synthetic_data"
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


def _finish(record: dict[str, Any], clock: Clock | None) -> ScoreRecord:
    """The final record of the scored sections: its id of its content, then frozen."""
    out = jsonable(record)
    out["flags"] = sorted(set(out["flags"]))
    out["id"] = record_id(out)
    now = (clock or utc_now)()
    out["timestamp"] = now.astimezone(UTC).isoformat().replace("+00:00", "Z")
    order = ("schema_version", "id", "timestamp", "kind", "scorer_version", "meta", "dataset")
    return ScoreRecord.from_json(
        {k: out[k] for k in order} | {k: v for k, v in out.items() if k not in order}
    )


def _dataset(release: Release) -> dict[str, Any]:
    return {
        "hash": release.data_hash,
        "synthetic": release.synthetic,
        "version": release.meta.version,
        "items": release.n_items,
        "core_items": int(release.is_core.sum()),
    }


def _base(
    release: Release, kind: str, meta: Mapping[str, Any], resamples: int, seed: int
) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "scorer_version": SCORER_VERSION,
        "meta": dict(meta),
        "dataset": _dataset(release),
        "settings": {"resamples": resamples, "seed": seed, "confidence": 0.95},
        "flags": [SYNTHETIC_FLAG] if release.synthetic else [],
        "warnings": [],
    }


def _note(p: Problem) -> str:
    where = "" if p.row is None else f"{p.row_kind} {p.row}: "
    text = f"{where}{p.message}"
    if p.fix:
        text += f"; {p.fix}"
    return text


def _check_resamples(resamples: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 0:
        raise ValueError(f"resamples must be a non-negative integer, got {resamples!r}")


def _meta(
    release: Release, submission_meta: Mapping[str, Any], meta: Mapping[str, Any] | None
) -> dict[str, Any]:
    explicit, problems = clean_meta(
        dict(meta or {}), "metadata", None, release.roster.families, trusted=True
    )
    if problems:
        raise InputError("metadata", problems)
    merged = merge_meta(submission_meta, explicit)
    merged.setdefault("source", "submission")
    merged.setdefault("verified", False)
    return merged


def judge_record(
    release: Release,
    labels: np.ndarray[Any, Any],
    present: np.ndarray[Any, Any],
    meta: Mapping[str, Any],
    submission: Mapping[str, Any],
    resamples: int,
    seed: int,
    clock: Clock | None,
    exclude_evaluator: str | None = None,
    extra_flags: tuple[str, ...] = (),
    warnings: tuple[str, ...] = (),
    margin: float = DEFAULT_MARGIN,
    behaviour: Mapping[str, Any] | None = None,
) -> ScoreRecord:
    """A judge record from label codes (items, 5) and rows ``present`` (items, 5);
    ``behaviour``: positions, runs and usage (:func:`medqade.measures.behaviour.behaviour`)."""
    record = _base(release, JUDGE, meta, resamples, seed)
    record["settings"]["margin"] = margin
    record["submission"] = dict(submission)
    metrics = judge_metrics(
        release,
        labels,
        present,
        family=meta.get("family"),
        model_id=meta.get("model_id"),
        exclude_evaluator=exclude_evaluator,
        resamples=resamples,
        seed=seed,
        margin=margin,
        behaviour=behaviour,
    )
    record["flags"] += metrics.pop("flags") + list(extra_flags)
    if submission.get("scope") == "partial":
        record["flags"].append(PARTIAL)
        metrics["verdict"] = None  # a part of a design: evidence only, no verdict, no rank
    record.update(metrics)
    record["warnings"] += list(warnings)
    return _finish(record, clock)


def score(
    release: Release,
    submission: Submission,
    meta: Mapping[str, Any] | None = None,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    clock: Clock | None = None,
    margin: float = DEFAULT_MARGIN,
) -> ScoreRecord:
    """Score a parsed :class:`Submission`; return its result record (module docstring).

    ``meta`` (flags or form fields; keys in :mod:`medqade.scoring.meta`, plus ``source`` and
    ``verified``) overrides the file's header metadata key by key. ``resamples=0`` skips the
    bootstrap (CIs are null). The default ``seed`` is that of ``medqade reproduce``, so a
    reference evaluator's labels score exactly as in its Table 3. ``margin`` is the
    non-inferiority margin of the verdict against physicians. Raises
    :class:`InputError` for bad metadata.
    """
    _check_resamples(resamples)
    merged = _meta(release, submission.meta, meta)
    info: dict[str, Any] = {
        "content_hash": submission.content_hash,
        "format": submission.format,
        "rows": submission.n_rows,
        "scope": submission.scope,
        "coverage": dict(submission.coverage),
    }
    notes = tuple(_note(w) for w in submission.warnings)
    copy = reference_match(release, submission)  # a copy of a paper row is flagged, named
    copy_flags = () if copy is None else (copy.flag,)
    if copy is not None:
        info.update(copy.info())
        notes += (copy.note(),)
    if submission.kind == JUDGE:
        if submission.labels is None:
            raise ValueError("a judge submission without labels")
        exclude = merged.get("model_id")
        return judge_record(
            release,
            submission.labels,
            submission.present,
            merged,
            info,
            resamples,
            seed,
            clock,
            exclude_evaluator=exclude if exclude in release.roster.evaluator_ids else None,
            extra_flags=copy_flags,
            warnings=notes,
            margin=margin,
            behaviour={
                "positions": submission.positions,
                "runs": submission.runs,
                "usage": merged.get("usage"),
                "deterministic": deterministic_decoding(merged.get("decoding")),
            },
        )
    if submission.answers is None:
        raise ValueError("an answers submission without answers")
    info["labels_hash"] = submission.answer_labels_hash
    return answers_record(
        release,
        submission.answers,
        merged,
        info,
        resamples,
        seed,
        clock,
        judge_labels=submission.answer_labels,
        extra_flags=copy_flags,
        warnings=notes,
    )


def answers_record(
    release: Release,
    answers: tuple[str | None, ...] | list[str | None],
    meta: Mapping[str, Any],
    submission: Mapping[str, Any],
    resamples: int,
    seed: int,
    clock: Clock | None,
    judge_labels: np.ndarray[Any, Any] | None = None,
    warnings: tuple[str, ...] = (),
    extra_flags: tuple[str, ...] = (),
) -> ScoreRecord:
    """A model-answer record from one answer per item (``None`` = not answered)."""
    record = _base(release, ANSWERS, meta, resamples, seed)
    record["submission"] = dict(submission)
    metrics = answer_metrics(
        release,
        answers,
        judge_labels,
        judge=meta.get("judge"),
        family=meta.get("family"),
        model_id=meta.get("model_id"),
        resamples=resamples,
        seed=seed,
    )
    record["flags"] += metrics.pop("flags") + list(extra_flags)
    if submission.get("scope") == "partial":
        record["flags"].append(PARTIAL)
    record["warnings"] += list(warnings) + metrics.pop("warnings")
    record.update(metrics)
    record["settings"]["normalisation"] = (
        "NFKC, casefold, ß/ss, whitespace, edge punctuation, article"
    )
    return _finish(record, clock)


def score_file(
    release: Release,
    path: Path | str,
    kind: str | None = None,
    meta: Mapping[str, Any] | None = None,
    labels: Path | str | None = None,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    clock: Clock | None = None,
    limits: Limits = DEFAULT_LIMITS,
    margin: float = DEFAULT_MARGIN,
) -> ScoreRecord:
    """Read, check and score a submission file (and optional labels for model answers)."""
    path = Path(path)
    sub = parse_submission(path.read_bytes(), path.name, release, kind, limits)
    if labels is not None:
        lpath = Path(labels)
        sub = attach_labels(sub, lpath.read_bytes(), lpath.name, release, limits)
    return score(release, sub, meta, resamples, seed, clock, margin)


# --- reference rows ------------------------------------------------------------------------------


def _present_all(release: Release) -> np.ndarray[Any, Any]:
    return np.ones((release.n_items, vocab.N_SLOTS), dtype=bool)


def _share(num: np.ndarray[Any, Any], den: np.ndarray[Any, Any]) -> float:
    d = int(den.sum())
    return int(num.sum()) / d if d else float("nan")


def _physician_record(
    release: Release, resamples: int, seed: int, clock: Clock | None
) -> ScoreRecord:
    record = _base(
        release,
        JUDGE,
        {
            "name": "Physicians (leave-one-out)",
            "source": "physicians",
            "verified": True,
            "notes": "each physician against the consensus of the other nine, core",
        },
        resamples,
        seed,
    )
    core = context.mask(release, context.CORE)
    reference = context.physicians_in_place(release, resamples, seed).agreement
    loo = reference.to_dict()
    loo["rated"] = rated_block(context.physician_reference(release, resamples, seed))
    p = release.physician_labels
    rated = p != vocab.MISSING_CODE
    abstained = p == vocab.ABSTAIN_CODE
    tier = np.broadcast_to(release.tier[None, :, None], p.shape)
    record.update(
        {
            "submission": {"content_hash": None, "format": None, "rows": None, "scope": "core"},
            "core": loo
            | {
                "coverage": 1.0,
                "abstention": _share(abstained[:, core], rated[:, core]),
                "n_items": int(core.sum()),
            },
            "full": None,
            "physician_reference": loo,
            "physician_difference": None,
            "verdict": None,
            "headline": None,
            "extension_difference": None,
            "alt_test": None,
            "replicates": replicates.section(
                {"core": {m: reference.metric(m) for m in RANKED_METRICS}}, resamples, seed
            ),
            "abstention": {
                "global": _share(abstained, rated),
                "by_tier": [
                    _share(abstained & (tier == t), rated & (tier == t)) for t in vocab.TIERS
                ],
                "pooled_over": "all physician ratings, all items",
            },
        }
    )
    record["flags"].append(PHYSICIAN_FLAG)
    return _finish(record, clock)


def reference_records(
    release: Release,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    clock: Clock | None = None,
    margin: float = DEFAULT_MARGIN,
) -> list[ScoreRecord]:
    """Records of the paper's nine evaluators (``source`` paper), the physician
    leave-one-out row (``physicians``, flag ``physician_reference``), the baseline judges
    (``baseline``) and the five students as model-answer rows (``paper``)."""
    _check_resamples(resamples)
    roster = release.roster
    present = _present_all(release)
    shown_at = release_positions(
        release.judgments, release.slot_index, roster.evaluator_ids, release.n_items
    )
    out = []
    for k, ev in enumerate(roster.evaluators):
        labels = release.evaluator_labels[k]
        meta = {
            "name": ev.name,
            "model_id": ev.id,
            "family": ev.family,
            "prompt": "official",
            "source": "paper",
            "verified": True,
        }
        info = {
            "content_hash": judge_content_hash(release, labels, present),
            "format": "release",
            "rows": int(present.sum()),
            "scope": "full",
            "coverage": {"core": 1.0, "extension": 1.0, "all": 1.0},
        }
        out.append(
            judge_record(
                release,
                labels,
                present,
                meta,
                info,
                resamples,
                seed,
                clock,
                exclude_evaluator=ev.id,
                margin=margin,
                behaviour={"positions": shown_at[k]},
            )
        )
    out.append(_physician_record(release, resamples, seed, clock))
    for b in BASELINES:
        labels = baseline_labels(release, b)
        meta = {
            "name": b.name,
            "model_id": b.id,
            "notes": b.description,
            "source": "baseline",
            "verified": True,
        }
        info = {
            "content_hash": judge_content_hash(release, labels, present),
            "format": "baseline",
            "rows": int(present.sum()),
            "scope": "full",
            "coverage": {"core": 1.0, "extension": 1.0, "all": 1.0},
        }
        out.append(
            judge_record(
                release, labels, present, meta, info, resamples, seed, clock, margin=margin
            )
        )
    for s, student in enumerate(roster.students):
        texts = [a if isinstance(a, str) and a.strip() else None for a in release.answer_text[:, s]]
        meta = {
            "name": student.name,
            "model_id": student.id,
            "family": student.family,
            "prompt": "official",
            "source": "paper",
            "verified": True,
        }
        info = {
            "content_hash": answers_content_hash(release, texts, np.ones(release.n_items, bool)),
            "format": "release",
            "rows": release.n_items,
            "scope": "full",
            "coverage": {"core": 1.0, "extension": 1.0, "all": 1.0},
            "labels_hash": None,
        }
        out.append(answers_record(release, texts, meta, info, resamples, seed, clock))
    return out
