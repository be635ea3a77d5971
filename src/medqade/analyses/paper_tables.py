"""The paper's tables of a report (:mod:`medqade.analyses.report`): Tables 1-4 (RQ1 physician
reliability, RQ2 student accuracy, RQ3 evaluator alignment, RQ5 abstention), then S1 (accuracy
by tier), S2 (bias, RQ4) and S3 (ensembles), each in its Markdown and CSV forms. The
supplementary tables S4-S7: :mod:`medqade.analyses.supplement_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from medqade import vocab
from medqade.analyses.cells import (
    EST_COLUMNS,
    NA,
    PROP_COLUMNS,
    Cell,
    Table,
    columns,
    est,
    est_csv,
    est_pct,
    num,
    pct,
    points,
    prop,
    prop_csv,
)
from medqade.analyses.rq1 import PhysicianReliability
from medqade.analyses.rq2 import StudentAccuracy
from medqade.analyses.rq3 import EvaluatorAlignment
from medqade.analyses.rq4 import EvaluatorBias
from medqade.analyses.rq5 import Abstention
from medqade.analyses.verdicts import PhysicianVerdicts
from medqade.measures import PanelReport


class ReportParts(Protocol):
    """What the tables read of a :class:`~medqade.analyses.report.Report` (which has all of
    it): the roster, the results of RQ1-RQ5, the supplementary analyses and the run's meta."""

    @property
    def roster(self) -> vocab.Roster: ...
    @property
    def rq1(self) -> PhysicianReliability: ...
    @property
    def rq2(self) -> StudentAccuracy: ...
    @property
    def rq3(self) -> EvaluatorAlignment: ...
    @property
    def rq4(self) -> EvaluatorBias: ...
    @property
    def rq5(self) -> Abstention: ...
    @property
    def meta(self) -> Mapping[str, Any]: ...
    @property
    def panel(self) -> PanelReport | None: ...
    @property
    def pool(self) -> Any: ...
    @property
    def verdicts(self) -> PhysicianVerdicts | None: ...
    @property
    def positions(self) -> Mapping[str, Any] | None: ...
    @property
    def fidelity(self) -> Mapping[str, Any] | None: ...
    @property
    def pool_fidelity(self) -> Mapping[str, Any] | None: ...


def paper_tables(r: ReportParts) -> tuple[Table, ...]:
    """Tables 1-4 of the paper, then S1 (accuracy by tier), S2 (bias) and S3 (ensembles)."""
    return (
        _table1(r),
        _table2(r),
        _table3(r),
        _table4(r),
        _table_tiers(r),
        _table_bias(r),
        _table_ensembles(r),
    )


def model_name(report: ReportParts, model_id: str) -> str:
    """The roster's display name of a model."""
    return report.roster.name(model_id)


def _table1(r: ReportParts) -> Table:
    rq1 = r.rq1
    rows, csv_rows = [], []
    for m, s in rq1.slots.items():
        rows.append(
            (
                model_name(r, m),
                est(s.kappa),
                est(s.alpha),
                est_pct(s.pa),
                est(s.pabak),
                est(s.fleiss),
                est(s.ac1),
            )
        )
        csv_rows.append(
            (
                m,
                *est_csv(s.kappa),
                *est_csv(s.alpha),
                *est_csv(s.pa),
                *est_csv(s.pabak),
                *est_csv(s.fleiss),
                *est_csv(s.ac1),
            )
        )
    rows.append(
        (
            "**Mean**",
            num(rq1.mean_kappa),
            num(rq1.mean_alpha),
            pct(rq1.mean_pa),
            num(rq1.mean_pabak),
            num(rq1.mean_fleiss),
            num(rq1.mean_ac1),
        )
    )
    nan = float("nan")
    means = (
        rq1.mean_kappa,
        rq1.mean_alpha,
        rq1.mean_pa,
        rq1.mean_pabak,
        rq1.mean_fleiss,
        rq1.mean_ac1,
    )
    csv_rows.append(("mean", *(x for m in means for x in (m, nan, nan))))
    note = (
        f"Core, {rq1.n_items} items, {rq1.n_raters} physicians; 95% CIs from "
        f"{r.meta['resamples']:,} question resamples (percentile); PABAK CI = 2 x PA CI - 1. "
        f"Kappa and PA: mean over physician pairs; Fleiss kappa and Gwet AC1: all "
        f"{rq1.n_raters} physicians at once (missing ratings allowed). "
        f"Difficulty alpha (squared distance on 0/1/2): {est(rq1.difficulty_alpha)}; "
        f"difficulty ICC(2,1) (two-way random, absolute agreement, single rater): "
        f"{est(rq1.difficulty_icc)}."
    )
    header = ("Student slot", "Kappa", "Alpha", "PA", "PABAK", "Fleiss kappa", "Gwet AC1")
    csv_header = (
        "student",
        *columns(("kappa", "alpha", "pa", "pabak", "fleiss", "ac1"), EST_COLUMNS),
    )
    return Table(
        "table1_physician_reliability",
        "Table 1. Physician reliability per student slot (core)",
        header,
        tuple(rows),
        csv_header,
        tuple(csv_rows),
        note,
    )


def _table2(r: ReportParts) -> Table:
    rq2 = r.rq2
    rows, csv_rows = [], []
    for m in rq2.overall:
        diff = rq2.lexical_diff[m].diff
        rows.append(
            (
                model_name(r, m),
                prop(rq2.overall[m]),
                prop(rq2.exact[m]),
                prop(rq2.no_exact[m]),
                points(diff),
            )
        )
        csv_rows.append(
            (
                m,
                *prop_csv(rq2.overall[m]),
                *prop_csv(rq2.exact[m]),
                *prop_csv(rq2.no_exact[m]),
                *est_csv(diff),
            )
        )
    csv_header = (
        "student",
        *columns(("overall", "exact", "no_exact"), PROP_COLUMNS),
        *columns(("diff",), EST_COLUMNS),
    )
    return Table(
        "table2_student_accuracy",
        "Table 2. Student accuracy by lexical stratum",
        ("Student", "Overall", "Exact match", "No match", "Difference (points)"),
        tuple(rows),
        csv_header,
        tuple(csv_rows),
        "Accuracy = Richtig share of consensus-resolved answers, 95% Wilson CIs. Difference = "
        f"exact minus no match, 95% CI from {rq2.contrast_resamples:,} independent-subgroup "
        "bootstrap resamples within each stratum.",
    )


def _table3(r: ReportParts) -> Table:
    rq3 = r.rq3
    entries = [("Physicians (leave-one-out)", "physician_loo", rq3.physician_loo)]
    entries += [(model_name(r, e), e, a) for e, a in rq3.evaluators.items()]
    rows = tuple(
        (label, est_pct(a.pa), est(a.kappa), est(a.pabak), f"{a.n:,}") for label, _key, a in entries
    )
    csv_rows = tuple(
        (key, *est_csv(a.pa), *est_csv(a.kappa), *est_csv(a.pabak), a.n)
        for _label, key, a in entries
    )
    csv_header = ("rater", *columns(("pa", "kappa", "pabak"), EST_COLUMNS), "n")
    return Table(
        "table3_evaluator_alignment",
        "Table 3. Evaluator alignment with the physician consensus (core)",
        ("Evaluator", "PA", "Kappa", "PABAK", "n"),
        rows,
        csv_header,
        csv_rows,
        "Per-slot values against the ten-physician consensus, unweighted mean over the five "
        "slots; abstentions and unresolved consensus excluded pairwise. n = pairable answers. "
        f"95% CIs from {r.meta['resamples']:,} question resamples.",
    )


def _table4(r: ReportParts) -> Table:
    rq5 = r.rq5
    nan = float("nan")
    rows = [("Physicians (median)", *(pct(x, 2) for x in rq5.physician_median), NA)]
    csv_rows: list[tuple[Cell, ...]] = [("physicians_median", *rq5.physician_median, nan)]
    for e, a in rq5.evaluators.items():
        rows.append((model_name(r, e), *(pct(x, 2) for x in a.by_tier), pct(a.global_rate, 2)))
        csv_rows.append((e, *a.by_tier, a.global_rate))
    slots = ", ".join(f"{n:,}" for n in rq5.tier_slots)
    return Table(
        "table4_abstention",
        "Table 4. Abstention (Keine Angabe) by difficulty tier",
        ("Rater", "T1", "T2", "T3", "T4", "Global"),
        tuple(rows),
        ("rater", "t1", "t2", "t3", "t4", "global"),
        tuple(csv_rows),
        "Physicians: abstentions / non-missing ratings per physician and tier, median over "
        f"physicians. Evaluators: abstentions / all answer slots ({slots} per tier); missing "
        "or unparseable judgments count as slots, not as abstentions. Tiers from physician "
        "difficulty.",
    )


def _table_tiers(r: ReportParts) -> Table:
    rq2 = r.rq2
    rows, csv_rows = [], []
    for m, tiers in rq2.by_tier.items():
        rows.append(
            (model_name(r, m), *(prop(p) for p in tiers.values()), points(rq2.tier_diff[m].diff))
        )
        csv_rows.append(
            (
                m,
                *(v for p in tiers.values() for v in prop_csv(p)),
                *est_csv(rq2.tier_diff[m].diff),
            )
        )
    tier_names = tuple(f"t{t}" for t in vocab.TIERS)
    csv_header = (
        "student",
        *columns(tier_names, PROP_COLUMNS),
        *columns(("diff_t1_t4",), EST_COLUMNS),
    )
    return Table(
        "table_s1_accuracy_by_tier",
        "Table S1. Student accuracy by difficulty tier (Figure 2)",
        ("Student", "T1", "T2", "T3", "T4", "T1 - T4 (points)"),
        tuple(rows),
        csv_header,
        tuple(csv_rows),
        "95% Wilson CIs; T1 - T4 with a 95% CI from "
        f"{rq2.contrast_resamples:,} independent-subgroup bootstrap resamples.",
    )


def _table_bias(r: ReportParts) -> Table:
    rq4 = r.rq4
    entries = [("self", b) for b in rq4.self_bias.values()] + [("family", b) for b in rq4.family]
    rows = tuple(
        (kind, model_name(r, b.evaluator), model_name(r, b.student), points(b.delta), f"{b.n:,}")
        for kind, b in entries
    )
    csv_rows = tuple((kind, b.evaluator, b.student, *est_csv(b.delta), b.n) for kind, b in entries)
    return Table(
        "table_s2_bias",
        "Table S2. Self and family bias (Figure 3)",
        ("Kind", "Evaluator", "Student", "Bias (points)", "n"),
        rows,
        ("kind", "evaluator", "student", "delta", "delta_low", "delta_high", "n"),
        csv_rows,
        "Mean of the evaluator's score minus the out-of-family peer mean over the student's "
        f"answers, all items; 95% CIs from {r.meta['resamples']:,} question resamples.",
    )


def _table_ensembles(r: ReportParts) -> Table:
    rq3 = r.rq3
    rows, csv_rows = [], []
    for metric, b in rq3.ensembles.items():
        members = ", ".join(model_name(r, m) for m in b.members)
        rows.append(
            (
                metric,
                members,
                num(b.value, 4),
                f"{model_name(r, b.best_single)} ({num(b.best_single_value, 4)})",
                est(b.diff, 4),
            )
        )
        csv_rows.append(
            (
                metric,
                ";".join(b.members),
                b.value,
                b.best_single,
                b.best_single_value,
                *est_csv(b.diff),
            )
        )
    return Table(
        "table_s3_ensembles",
        "Table S3. Best evaluator ensembles (exploratory, in-sample, core)",
        ("Metric", "Members", "Value", "Best single", "Difference [95% CI]"),
        tuple(rows),
        (
            "metric",
            "members",
            "value",
            "best_single",
            "best_single_value",
            "diff",
            "diff_low",
            "diff_high",
        ),
        tuple(csv_rows),
        f"All {len(rq3.candidates)} subsets of size 1, 3, 5, 7 of the ensemble pool; majority "
        "after removing abstentions, all abstain = missing, tie = Falsch. Paired bootstrap CI "
        "(same question resamples for ensemble and single).",
    )
