"""The per-physician report on the full synthetic release, against pandas + scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analyses.helpers import kappa, pa
from medqade import vocab
from medqade.dataset.release import Release
from medqade.measures.physician_reference import leave_one_out
from medqade.measures.rater_report import PanelReport, panel_report
from medqade.measures.raters import OUTLIER_VERDICTS
from medqade.measures.seeds import question_weights

from .conftest import RESAMPLES

CODE = {vocab.FALSCH: 0, vocab.RICHTIG: 1, vocab.KEINE_ANGABE: 2}


@pytest.fixture(scope="module")
def report(full: Release) -> PanelReport:
    return panel_report(full, RESAMPLES)


def _votes(full: Release) -> pd.DataFrame:
    r = full.ratings
    return r[r["round"] != vocab.RERATING].assign(v=lambda f: f["label"].map(CODE))


def test_panel_report_lists_ten_physicians_with_a_verdict(report: PanelReport) -> None:
    assert [r.physician for r in report.raters] == list(vocab.DEFAULT_ROSTER.physicians)
    assert all(r.verdict in OUTLIER_VERDICTS for r in report.raters)
    assert report.n_rerated == 40


def test_panel_report_core_kappa_equals_sklearn_against_the_others_majority(
    full: Release, report: PanelReport
) -> None:
    v = _votes(full)
    core = v[v["split"] == vocab.CORE]
    for p in ("P02", "P10"):
        per_slot = []
        for model in full.roster.student_ids:
            wide = core[core["model"] == model].pivot(
                index="question_id", columns="rater", values="v"
            )
            mine = wide[p].fillna(-1).to_numpy()
            rest = wide.drop(columns=[p])
            r_votes, f_votes = (rest == 1).sum(axis=1), (rest == 0).sum(axis=1)
            ref = np.where(r_votes > f_votes, 1, np.where(f_votes > r_votes, 0, -1))
            per_slot.append(kappa(mine, ref))
        assert math.isclose(report.rater(p).core.kappa.value, np.nanmean(per_slot), rel_tol=1e-9)


def test_panel_report_core_terms_average_to_the_ceiling(full: Release, report: PanelReport) -> None:
    w = question_weights(int(full.is_core.sum()), RESAMPLES)
    ceiling = leave_one_out(full.physician_labels[:, full.is_core], full.roster.student_ids, w)
    assert math.isclose(np.mean([r.core.kappa.value for r in report.raters]), ceiling.kappa.value)
    assert ceiling.kappa.replicates is not None
    reps = np.mean([r.core.kappa.replicates for r in report.raters], axis=0)
    assert np.allclose(reps, ceiling.kappa.replicates)


def test_panel_report_partner_kappa_equals_sklearn(full: Release, report: PanelReport) -> None:
    v = _votes(full)
    ext = v[(v["split"] == vocab.EXTENSION) & (v["round"] == vocab.PRIMARY)]
    pairs = ext.merge(ext, on=["question_id", "model"], suffixes=("", "_o"))
    pairs = pairs[pairs["rater"] != pairs["rater_o"]]
    mine = pairs[pairs["rater"] == "P04"]
    per_slot = [
        kappa(g["v"].to_numpy(), g["v_o"].to_numpy()) for _, g in mine.groupby("model", sort=False)
    ]
    partner = report.rater("P04").partner
    assert partner is not None
    assert math.isclose(partner.kappa.value, np.nanmean(per_slot), rel_tol=1e-9)
    assert report.rater("P10").partner is None


def test_panel_report_intra_rater_equals_sklearn_on_the_rerating_rows(
    full: Release, report: PanelReport
) -> None:
    """Per slot (student model), then the mean over the slots, as the inter-rater kappa."""
    r = full.ratings
    key = ["question_id", "model", "rater"]
    again = r[r["round"] == vocab.RERATING]
    first = r[r["round"] != vocab.RERATING]
    pairs = again.merge(first, on=key, suffixes=("_again", "_first"))
    for p, g in pairs.groupby("rater"):
        per_slot = [
            (kappa(a, b), pa(a, b))
            for a, b in (
                (s["label_first"].map(CODE).to_numpy(), s["label_again"].map(CODE).to_numpy())
                for _, s in g.groupby("model")
            )
        ]
        intra = report.rater(str(p)).intra
        assert intra is not None
        assert math.isclose(intra.kappa.value, np.mean([k for k, _ in per_slot]), rel_tol=1e-9)
        assert math.isclose(intra.pa.value, np.mean([x for _, x in per_slot]), rel_tol=1e-9)
        assert intra.kappa.low <= intra.kappa.value <= intra.kappa.high


def test_panel_report_abstention_counts_match_the_ratings(
    full: Release, report: PanelReport
) -> None:
    v = _votes(full)
    tier = full.questions.set_index("question_id")["difficulty_tier"]
    mine = v[v["rater"] == "P07"].assign(t=lambda f: f["question_id"].map(tier))
    for t in vocab.TIERS:
        sel = mine[mine["t"] == t]
        assert report.rater("P07").abstention[t] == (
            int((sel["label"] == vocab.KEINE_ANGABE).sum()),
            len(sel),
        )


def test_panel_report_verdict_follows_the_adjusted_bounds(report: PanelReport) -> None:
    for r in report.raters:
        low, high = r.gap_bounds
        assert low <= r.gap.low and r.gap.high <= high  # 99.5% is wider than 95%
        if r.verdict == "outlier":
            assert high < 0
        elif r.verdict == "consistent":
            assert low <= 0 <= high


def test_panel_report_outlier_rule_has_its_own_resamples_and_mc_error(
    report: PanelReport,
) -> None:
    """The 99.5% bounds come from OUTLIER_RESAMPLES replicates (not the CI's), each with a
    small Monte-Carlo standard error."""
    d = report.to_dict()
    assert d["outlier_resamples"] == report.outlier_resamples >= 10_000
    for r in report.raters:
        assert r.gap.replicates is not None
        assert r.gap.replicates.shape == (report.outlier_resamples,)
        se_low, se_high = r.gap_bounds_mc_se
        assert 0 < se_low < 0.01 and 0 < se_high < 0.01
    assert d["physicians"][0]["kappa_gap_adjusted_ci_mc_se"] == list(
        report.raters[0].gap_bounds_mc_se
    )
