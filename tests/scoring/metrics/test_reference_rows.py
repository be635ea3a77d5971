"""The reference rows as records (:mod:`medqade.scoring.metrics.reference_rows`): one per evaluator,
the physicians' row, the baselines and the students, each content-addressed and scored with
the settings given."""

from __future__ import annotations

from medqade.dataset.release import Release
from medqade.scoring import Settings, record_id
from medqade.scoring.metrics.baselines import BASELINES
from medqade.scoring.metrics.records import PHYSICIAN_FLAG
from medqade.scoring.metrics.reference_rows import physician_record, reference_records


def test_one_record_per_reference_row(sample: Release) -> None:
    refs = reference_records(sample, Settings(resamples=0, seed=4))
    roster = sample.roster
    assert len(refs) == len(roster.evaluators) + 1 + len(BASELINES) + len(roster.students)
    sources = [r.meta.source for r in refs if r.meta is not None]
    assert sources.count("paper") == len(roster.evaluators) + len(roster.students)
    assert sources.count("baseline") == len(BASELINES) and sources.count("physicians") == 1
    assert [r.kind for r in refs].count("answers") == len(roster.students)
    for r in refs:
        assert r.id == record_id(r) and r.settings is not None and r.settings.seed == 4
    assert len({r.id for r in refs}) == len(refs)


def test_the_physicians_row(sample: Release) -> None:
    rec = physician_record(sample, Settings(resamples=0), None)
    assert rec.has_flag(PHYSICIAN_FLAG) and rec.verdict is None and rec.full is None
    assert rec.core is not None and rec.core.coverage == 1.0
    assert rec.core.kappa == rec.physician_reference.kappa  # type: ignore[union-attr]
    assert rec.abstention is not None and rec.abstention["pooled_over"].startswith("all")
    assert rec.submission is not None and rec.submission.scope == "core"
