"""The calibration rows about the reference (:mod:`medqade.analyses.calibration_reference`):
the adjudication flow against a plain vote count over the physicians' codes, and each part's
rows as the whole table shows them."""

from __future__ import annotations

import numpy as np

from medqade import vocab
from medqade.analyses import calibration_reference as ref
from medqade.analyses.calibration import calibration_table
from medqade.analyses.report import Report
from medqade.dataset.release import Release


def test_adjudication_flow_equals_a_vote_count(release: Release) -> None:
    ext = ~release.is_core
    adjudicator = release.roster.physicians.index(release.roster.adjudicator)
    primary = np.delete(release.physician_labels[:, ext], adjudicator, axis=0)
    richtig = (primary == vocab.RICHTIG_CODE).sum(axis=0)
    falsch = (primary == vocab.FALSCH_CODE).sum(axis=0)
    initial = richtig == falsch  # no strict majority among the primary raters
    final = release.consensus[ext] >= 0
    flow = ref.adjudication_flow(release)
    assert flow.initially_unresolved == int(initial.sum()) > 0
    assert flow.resolved == int((initial & final).sum())
    assert flow.resolved + flow.stayed == flow.initially_unresolved
    assert flow.extension_unresolved == int((~final).sum()) == flow.stayed + flow.newly_tied
    assert flow.core_unresolved == int((release.consensus[release.is_core] < 0).sum())
    assert flow.slots == release.n_items * vocab.N_SLOTS


def test_each_part_gives_the_tables_rows(release: Release, report: Report) -> None:
    parts = {
        "3": ref.consensus_rows(release, report),
        "4": ref.tier_rows(release, report),
        "RQ1": ref.rq1_rows(release, report),
        "RQ2": ref.rq2_rows(release, report),
    }
    table = calibration_table(release, report)
    for section, rows in parts.items():
        assert rows and {r.section for r in rows} == {section}
        shown = [r for r in table if r.section == section]
        assert [(r.quantity, r.value, r.low, r.high) for r in rows] == [
            (r.quantity, r.value, r.low, r.high) for r in shown
        ]
    assert all(r.ok for rows in parts.values() for r in rows)
