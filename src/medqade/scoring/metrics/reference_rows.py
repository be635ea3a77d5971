"""The board's reference rows as records: the paper's nine evaluators, the physicians'
leave-one-out row, the baseline judges and the five students' answers, scored as any
submission is (:mod:`medqade.scoring.metrics.records`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from medqade import vocab
from medqade.measures import release_positions
from medqade.scoring.intake import JUDGE, Settings, answers_content_hash, judge_content_hash
from medqade.scoring.metrics import context
from medqade.scoring.metrics.baselines import BASELINES, baseline_labels
from medqade.scoring.metrics.breakdowns import rate
from medqade.scoring.metrics.judge import RANKED_METRICS
from medqade.scoring.metrics.records import (
    CONFIDENCE,
    PHYSICIAN_FLAG,
    SCHEMA_VERSION,
    SCORER_VERSION,
    Clock,
    answers_record,
    base_flags,
    check_resamples,
    dataset_ref,
    finish,
    judge_record,
)
from medqade.scoring.record import (
    Abstention,
    RecordMeta,
    RecordSettings,
    ScoreRecord,
    SubmissionInfo,
    agreement_block,
    rated_block,
    section,
)

if TYPE_CHECKING:
    from medqade.dataset.release import Release

FULL_COVERAGE: Final = {"core": 1.0, "extension": 1.0, "all": 1.0}


def _present_all(release: Release) -> np.ndarray[Any, Any]:
    return np.ones((release.n_items, vocab.N_SLOTS), dtype=bool)


def physician_record(release: Release, settings: Settings, clock: Clock | None) -> ScoreRecord:
    """The physicians' row: each physician against the consensus of the other nine (core)."""
    resamples, seed = settings.resamples, settings.seed
    core = context.mask(release, context.CORE)
    reference = context.physicians_in_place(release, resamples, seed).agreement
    loo = agreement_block(reference).updated(
        rated=rated_block(context.physician_reference(release, resamples, seed))
    )
    p = release.physician_labels
    rated = p != vocab.MISSING_CODE
    abstained = p == vocab.ABSTAIN_CODE
    tier = np.broadcast_to(release.tier[None, :, None], p.shape)
    draft = ScoreRecord.of(
        schema_version=SCHEMA_VERSION,
        kind=JUDGE,
        scorer_version=SCORER_VERSION,
        meta=RecordMeta.of(
            name="Physicians (leave-one-out)",
            source="physicians",
            verified=True,
            notes="each physician against the consensus of the other nine, core",
        ),
        dataset=dataset_ref(release),
        settings=RecordSettings.of(resamples=resamples, seed=seed, confidence=CONFIDENCE),
        flags=(*base_flags(release), PHYSICIAN_FLAG),
        warnings=(),
        submission=SubmissionInfo.of(content_hash=None, format=None, rows=None, scope="core"),
        core=loo.updated(
            coverage=1.0,
            abstention=rate(abstained[:, core], rated[:, core]),
            n_items=int(core.sum()),
        ),
        full=None,
        physician_reference=loo,
        physician_difference=None,
        verdict=None,
        headline=None,
        extension_difference=None,
        alt_test=None,
        replicates=section(
            {"core": {m: reference.metric(m) for m in RANKED_METRICS}}, resamples, seed
        ),
        abstention=Abstention.of(
            global_=rate(abstained, rated),
            by_tier=tuple(rate(abstained & (tier == t), rated & (tier == t)) for t in vocab.TIERS),
            pooled_over="all physician ratings, all items",
        ),
    )
    return finish(draft, clock)


def _full(content_hash: str, source: str, rows: int) -> SubmissionInfo:
    return SubmissionInfo.of(
        content_hash=content_hash,
        format=source,
        rows=rows,
        scope="full",
        coverage=dict(FULL_COVERAGE),
    )


def reference_records(
    release: Release, settings: Settings | None = None, clock: Clock | None = None
) -> list[ScoreRecord]:
    """Records of the paper's nine evaluators (``source`` paper), the physician
    leave-one-out row (``physicians``, flag ``physician_reference``), the baseline judges
    (``baseline``) and the five students as model-answer rows (``paper``)."""
    settings = settings or Settings()
    check_resamples(settings.resamples)
    roster = release.roster
    present = _present_all(release)
    rows = int(present.sum())
    shown_at = release_positions(
        release.judgments, release.slot_index, roster.evaluator_ids, release.n_items
    )
    out = []
    for k, ev in enumerate(roster.evaluators):
        labels = release.evaluator_labels[k]
        meta = RecordMeta.of(
            name=ev.name,
            model_id=ev.id,
            family=ev.family,
            prompt="official",
            source="paper",
            verified=True,
        )
        info = _full(judge_content_hash(release, labels, present), "release", rows)
        out.append(
            judge_record(
                release,
                labels,
                present,
                meta,
                info,
                settings,
                clock,
                exclude_evaluator=ev.id,
                behaviour={"positions": shown_at[k]},
            )
        )
    out.append(physician_record(release, settings, clock))
    for b in BASELINES:
        labels = baseline_labels(release, b)
        meta = RecordMeta.of(
            name=b.name, model_id=b.id, notes=b.description, source="baseline", verified=True
        )
        info = _full(judge_content_hash(release, labels, present), "baseline", rows)
        out.append(judge_record(release, labels, present, meta, info, settings, clock))
    for s, student in enumerate(roster.students):
        texts = [a if isinstance(a, str) and a.strip() else None for a in release.answer_text[:, s]]
        meta = RecordMeta.of(
            name=student.name,
            model_id=student.id,
            family=student.family,
            prompt="official",
            source="paper",
            verified=True,
        )
        every = np.ones(release.n_items, bool)
        info = _full(answers_content_hash(release, texts, every), "release", release.n_items)
        out.append(
            answers_record(release, texts, meta, info.updated(labels_hash=None), settings, clock)
        )
    return out
