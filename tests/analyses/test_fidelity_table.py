"""Table S8 (ranking fidelity of the reference evaluators): Kendall's tau-b of every
evaluator equals scipy's on the students' accuracies counted from the judgments table, its
interval an explicit loop over the resampled questions, and an evaluator's row equals the
``ranking_fidelity`` of its score record (same resamples and seed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from medqade import vocab
from medqade.analyses.fidelity_table import NAME, fidelity_table, paper_fidelity
from medqade.analyses.report import Report
from medqade.dataset.release import Release
from medqade.measures.seeds import STREAM_ALL, question_weights

from .conftest import RESAMPLES, SEED


def _accuracies(release: Release, evaluator: str) -> tuple[list[float], list[float]]:
    """From the judgments table: per student the share of Richtig among the answers whose
    consensus is resolved, as the evaluator and as the consensus labels them."""
    j = release.judgments
    mine = j[j["evaluator"] == evaluator].set_index(["question_id", "model"])["label"]
    judge, phys = [], []
    for s, student in enumerate(release.roster.student_ids):
        ref = pd.Series(release.consensus[:, s], index=release.item_ids)
        resolved = ref[ref.isin([vocab.FALSCH_CODE, vocab.RICHTIG_CODE])]
        labels = [mine.get((q, student)) for q in resolved.index]
        judge.append(sum(x == vocab.RICHTIG for x in labels) / len(resolved))
        phys.append(float((resolved == vocab.RICHTIG_CODE).mean()))
    return judge, phys


def test_s8_tau_equals_scipy_on_the_judgments_table(report: Report, release: Release) -> None:
    table = next(t for t in report.tables() if t.name == NAME)
    assert [r[0] for r in table.csv_rows] == list(release.roster.evaluator_ids)
    tau_at = table.csv_header.index("kendall_tau_b")
    worst_at = table.csv_header.index("largest_error_student")
    for row in table.csv_rows:
        judge, phys = _accuracies(release, str(row[0]))
        assert row[tau_at] == pytest.approx(kendalltau(judge, phys).statistic, abs=1e-12)
        errors = np.abs(np.subtract(judge, phys))
        assert row[worst_at] == release.roster.student_ids[int(np.argmax(errors))]
    assert "fidelity" in report.to_dict()


def test_s8_interval_equals_an_explicit_resampling_loop(release: Release) -> None:
    w = question_weights(release.n_items, 25, SEED, STREAM_ALL)
    ev = release.roster.evaluator_ids[0]
    found = paper_fidelity(release, w)[ev]
    lab = release.evaluator_labels[0]
    ref = release.consensus
    taus = []
    for r in range(w.shape[0]):
        drawn = np.repeat(np.arange(release.n_items), w[r])
        lab_r, ref_r = lab[drawn], ref[drawn]
        resolved = np.isin(ref_r, (0, 1))
        j = [(lab_r[resolved[:, s], s] == 1).mean() for s in range(vocab.N_SLOTS)]
        p = [(ref_r[resolved[:, s], s] == 1).mean() for s in range(vocab.N_SLOTS)]
        taus.append(kendalltau(j, p).statistic)
    assert [found.tau.low, found.tau.high] == pytest.approx(
        list(np.nanpercentile(taus, [2.5, 97.5])), abs=1e-12
    )


def test_an_evaluator_s_row_equals_its_score_record(report: Report, release: Release) -> None:
    from medqade.scoring import Settings, parse_submission, score

    ev = release.roster.evaluator_ids[3]
    codes = release.evaluator_labels[release.roster.evaluator_ids.index(ev)]
    lines = ["question_id,model,label"]
    for i, qid in enumerate(release.item_ids):
        for s, model in enumerate(release.roster.student_ids):
            lines.append(f"{qid},{model},{vocab.CODE_LABELS.get(int(codes[i, s]), '')}")
    sub = parse_submission("\n".join(lines).encode(), "j.csv", release)
    record = score(release, sub, settings=Settings(resamples=RESAMPLES, seed=SEED))
    got = record.ranking_fidelity
    assert report.fidelity is not None and got is not None and got.split == "all"
    mine = report.fidelity[ev]
    assert got.kendall_tau_b == mine.tau.value
    assert got.kendall_tau_b_ci == (mine.tau.low, mine.tau.high)


def test_the_table_names_the_students_and_formats_intervals(release: Release) -> None:
    found = paper_fidelity(release, None)
    table = fidelity_table(found, release.roster)
    assert len(table.rows) == len(release.roster.evaluator_ids)
    first = next(iter(found.values()))
    assert table.rows[0][1] == f"{first.tau.value:.3f}"  # no resamples: no interval
    assert table.rows[0][3] == release.roster.name(first.largest_error_student)
    assert table.to_csv().splitlines()[0].startswith("evaluator,kendall_tau_b,")
