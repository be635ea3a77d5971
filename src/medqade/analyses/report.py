"""Every number of the paper from one release: :func:`reproduce` and the :class:`Report`.

``reproduce(release)`` runs RQ1-RQ5 and the supplementary analyses with seeded bootstrap
resamples and returns a frozen :class:`Report`: ``to_dict()`` (the ``report.json`` shape, NaN as
``None``), ``to_json()``, ``tables()`` (Tables 1-4 and the supplementary tables, S4 the
physicians one by one from :mod:`medqade.analyses.panel_table`, S5 the pool when present, S6
every evaluator's verdict against the physicians from :mod:`medqade.analyses.verdicts`, each
with a Markdown and a CSV form) and ``to_markdown()``. The same release, resamples and seed give the
same numbers, and ``to_json()`` the same bytes.

Randomness: the core-item resamples of RQ1 and RQ3 are one index matrix
(:func:`~medqade.measures.seeds.question_weights` with ``seed``, the core stream), shared by
every pair, slot, evaluator and ensemble, and by judge scoring of submissions; the extension
verdicts of S6 use the all-items stream, as judge scoring does; RQ2's two contrasts and RQ4
draw from their own streams of ``seed``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from medqade import __version__, vocab
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
from medqade.analyses.common import json_ready
from medqade.analyses.panel_table import panel_table
from medqade.analyses.pool_table import pool_table
from medqade.analyses.rq1 import PhysicianReliability, physician_reliability
from medqade.analyses.rq2 import StudentAccuracy, student_accuracy
from medqade.analyses.rq3 import EvaluatorAlignment, evaluator_alignment
from medqade.analyses.rq4 import EvaluatorBias, evaluator_bias
from medqade.analyses.rq5 import Abstention, abstention
from medqade.analyses.supplementary import Supplementary, supplementary
from medqade.analyses.verdicts import JudgeVerdict, PhysicianVerdicts, physician_verdicts
from medqade.dataset.release import Release
from medqade.measures import paired
from medqade.measures.estimate import Estimate
from medqade.measures.rater_report import PanelReport, panel_report
from medqade.measures.seeds import (
    BOOTSTRAP_SEED,
    STREAM_ALL,
    STREAM_BIAS,
    check_seed,
    physician_weights,
    question_weights,
)

SYNTHETIC_BANNER = (
    "SYNTHETIC DATA: this release was simulated (medqade.synthetic); its numbers exercise the "
    "pipeline and are not the paper's physician results."
)

# --- the report -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """All analyses of one release (see the module docstring)."""

    roster: vocab.Roster
    rq1: PhysicianReliability
    rq2: StudentAccuracy
    rq3: EvaluatorAlignment
    rq4: EvaluatorBias
    rq5: Abstention
    supplementary: Supplementary
    meta: Mapping[str, Any]
    panel: PanelReport | None = None
    pool: Any = None
    """S5, a :class:`medqade.analyses.pool_table.PoolReport` when the release has a pool."""
    verdicts: PhysicianVerdicts | None = None
    """S6, every evaluator's verdict against the physicians (:mod:`medqade.analyses.verdicts`)."""
    positions: Mapping[str, Any] | None = None
    """S7, every evaluator's :class:`~medqade.measures.position.PositionBias`."""

    @property
    def synthetic(self) -> bool:
        return bool(self.meta.get("synthetic", False))

    def to_dict(self) -> dict[str, Any]:
        """The ``report.json`` object: proportions (not percent), NaN as ``None``."""
        out: dict[str, Any] = json_ready(
            {
                "rq1": self.rq1.to_dict(),
                "rq2": self.rq2.to_dict(),
                "rq3": self.rq3.to_dict(),
                "rq4": self.rq4.to_dict(),
                "rq5": self.rq5.to_dict(),
                "supplementary": self.supplementary.to_dict(),
                **({"panel": self.panel.to_dict()} if self.panel is not None else {}),
                **({"pool": self.pool.to_dict()} if self.pool is not None else {}),
                **({"verdicts": self.verdicts.to_dict()} if self.verdicts is not None else {}),
                **(
                    {"positions": {e: p.to_json() for e, p in self.positions.items()}}
                    if self.positions
                    else {}
                ),
                "meta": dict(self.meta),
            }
        )
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    def tables(self) -> tuple[Table, ...]:
        """Tables 1-4 of the paper, then S1 (accuracy by tier), S2 (bias), S3 (ensembles), S4
        (the physicians), S5 (the pool, when present), S6 (verdicts against physicians) and S7
        (position bias)."""
        return (
            _table1(self),
            _table2(self),
            _table3(self),
            _table4(self),
            _table_tiers(self),
            _table_bias(self),
            _table_ensembles(self),
            *_table_panel(self),
            *_table_pool(self),
            *_table_verdicts(self),
            *_table_position(self),
        )

    def to_markdown(self) -> str:
        parts = [SYNTHETIC_BANNER + "\n"] if self.synthetic else []
        parts.extend(t.to_markdown() for t in self.tables())
        return "\n".join(parts)


def _name(report: Report, model_id: str) -> str:
    return report.roster.name(model_id)


def _table1(r: Report) -> Table:
    rq1 = r.rq1
    rows, csv_rows = [], []
    for m, s in rq1.slots.items():
        rows.append(
            (
                _name(r, m),
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


def _table2(r: Report) -> Table:
    rq2 = r.rq2
    rows, csv_rows = [], []
    for m in rq2.overall:
        diff = rq2.lexical_diff[m].diff
        rows.append(
            (
                _name(r, m),
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


def _table3(r: Report) -> Table:
    rq3 = r.rq3
    entries = [("Physicians (leave-one-out)", "physician_loo", rq3.physician_loo)]
    entries += [(_name(r, e), e, a) for e, a in rq3.evaluators.items()]
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


def _table4(r: Report) -> Table:
    rq5 = r.rq5
    nan = float("nan")
    rows = [("Physicians (median)", *(pct(x, 2) for x in rq5.physician_median), NA)]
    csv_rows: list[tuple[Cell, ...]] = [("physicians_median", *rq5.physician_median, nan)]
    for e, a in rq5.evaluators.items():
        rows.append((_name(r, e), *(pct(x, 2) for x in a.by_tier), pct(a.global_rate, 2)))
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


def _table_tiers(r: Report) -> Table:
    rq2 = r.rq2
    rows, csv_rows = [], []
    for m, tiers in rq2.by_tier.items():
        rows.append(
            (_name(r, m), *(prop(p) for p in tiers.values()), points(rq2.tier_diff[m].diff))
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


def _table_bias(r: Report) -> Table:
    rq4 = r.rq4
    entries = [("self", b) for b in rq4.self_bias.values()] + [("family", b) for b in rq4.family]
    rows = tuple(
        (kind, _name(r, b.evaluator), _name(r, b.student), points(b.delta), f"{b.n:,}")
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


def _table_ensembles(r: Report) -> Table:
    rq3 = r.rq3
    rows, csv_rows = [], []
    for metric, b in rq3.ensembles.items():
        members = ", ".join(_name(r, m) for m in b.members)
        rows.append(
            (
                metric,
                members,
                num(b.value, 4),
                f"{_name(r, b.best_single)} ({num(b.best_single_value, 4)})",
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


# --- the entry point -----------------------------------------------------------------------


def _table_panel(r: Report) -> tuple[Table, ...]:
    """S4, the physicians one by one (:mod:`medqade.analyses.panel_table`), when computed."""
    if r.panel is None:
        return ()
    return (panel_table(r.panel),)


def _table_position(r: Report) -> tuple[Table, ...]:
    """S7, position bias of the evaluators (:mod:`medqade.analyses.position_table`)."""
    if not r.positions:
        return ()
    from medqade.analyses.position_table import position_table

    return (position_table(r.positions, r.roster),)


def _table_pool(r: Report) -> tuple[Table, ...]:
    """S5, the pool accuracy (:mod:`medqade.analyses.pool_table`), when the pool is present."""
    if r.pool is None:
        return ()
    return (pool_table(r.pool, r.roster),)


def _word(v: str | None) -> str:
    return NA if v is None else v


def _verdict_row(r: Report, v: JudgeVerdict) -> tuple[tuple[str, ...], tuple[Cell, ...]]:
    head, core, ext, alt = v.headline, v.core, v.extension, v.alt_test
    nan = float("nan")
    none = Estimate(nan, nan, nan)
    d = head.difference or none
    c_kappa = none if core is None else core.kappa
    e_kappa = none if ext is None else ext.kappa
    given = none if core is None else core.given_panel
    row = (
        _name(r, v.evaluator),
        _word(head.verdict),
        est(d),
        _word(head.decided_on),
        est(c_kappa),
        NA if ext is None else est(e_kappa),
        "; ".join(head.flags) or "-",
        f"{num(alt.rho, 2)} / {num(alt.omega, 2)}",
        NA if math.isnan(alt.omega) else ("pass" if alt.passed else "fail"),
        est(given),
    )
    csv_row: tuple[Cell, ...] = (
        v.evaluator,
        head.verdict,
        *est_csv(d),
        head.decided_on,
        *est_csv(c_kappa),
        *est_csv(e_kappa),
        None if ext is None else ext.n_items,
        ";".join(head.flags),
        alt.rho,
        alt.omega,
        alt.passed,
        *est_csv(given),
        nan if core is None else core.panel_error("kappa"),
    )
    return row, csv_row


def _table_verdicts(r: Report) -> tuple[Table, ...]:
    """S6, every evaluator's verdict against the physicians, when computed."""
    found = r.verdicts
    if found is None or not found.evaluators:
        return ()
    rows, csv_rows = zip(*(_verdict_row(r, v) for v in found.evaluators.values()), strict=True)
    first = next(iter(found.evaluators.values()))
    words = "; ".join(f"'{w}'" for w in paired.VERDICTS)
    alt = first.alt_test
    n_p = found.n_physicians
    note = (
        "One verdict per judge, decided on kappa (docs/statistics.md, 'One verdict'). Core: "
        "the judge takes each physician's place against the majority of the other "
        f"{n_p - 1} physicians, on the answers that physician rated ({found.n_core:,} items); "
        "extension: the judge takes each primary physician's place against the other primary "
        f"physician ({found.n_extension:,} items). The judge's abstentions and missing labels "
        "count as disagreements there. d = judge minus physicians; its 95% CI resamples "
        f"questions and physicians ({r.meta['resamples']:,} two-way resamples, the same for "
        "every judge): the estimand is the difference to a new panel of physicians like "
        "these. Headline d = mean of core and extension d, the extension's alone when the core "
        "d is significantly above it (flag core_above_extension). Margin on kappa m = "
        f"{num(found.margin, 3)}; verdict words from the CI of the headline d: {words}. "
        f"Alt-test (Calderon et al., 2025), each answer an instance: epsilon = {alt.epsilon} "
        "(the paper's value for expert annotators), Benjamini-Yekutieli at q = "
        f"{alt.q}, rho = average advantage probability / omega = share of physicians whose "
        "test rejected (pass at omega >= 0.5); evidence under the verdict, not a verdict. "
        "'Given this panel' = the core d's CI with the physicians held fixed (secondary). "
        "The same numbers as `medqade score`, `leaderboard`, `compare` and the Space."
    )
    header = (
        "Evaluator",
        "Verdict",
        "d kappa [95% CI]",
        "Decided on",
        "Core d kappa",
        "Extension d kappa",
        "Flags",
        "Alt-test rho / omega",
        "Alt-test",
        "Core d given this panel",
    )
    csv_header = (
        "evaluator",
        "verdict",
        *columns(("d_kappa",), EST_COLUMNS),
        "decided_on",
        *columns(("core_d_kappa", "ext_d_kappa"), EST_COLUMNS),
        "ext_n_items",
        "flags",
        "alt_rho",
        "alt_omega",
        "alt_passed",
        *columns(("core_d_kappa_given_panel",), EST_COLUMNS),
        "panel_error_kappa",
    )
    return (
        Table(
            "table_s6_verdicts",
            "Table S6. One verdict per judge against the physicians (like for like)",
            header,
            tuple(rows),
            csv_header,
            tuple(csv_rows),
            note,
        ),
    )


def _positive(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def reproduce(
    release: Release,
    resamples: int = 1000,
    seed: int = BOOTSTRAP_SEED,
    contrast_resamples: int = 5000,
    margin: float = paired.DEFAULT_MARGIN,
) -> Report:
    """Run every analysis of the paper on ``release`` (see the module docstring).

    ``resamples`` question resamples for RQ1, RQ3 and RQ4 CIs; ``contrast_resamples`` for the
    RQ2 between-stratum differences; ``seed`` fixes all of them; ``margin`` is the
    non-inferiority margin on kappa of the verdicts against the physicians (S6).
    """
    _positive(resamples, "resamples")
    _positive(contrast_resamples, "contrast_resamples")
    check_seed(seed)
    margin = paired.check_margin(margin)
    n_core = int(release.is_core.sum())
    if n_core == 0:
        raise ValueError("the release has no core items; RQ1 and RQ3 need them")
    core_weights = question_weights(n_core, resamples, seed)
    bias_weights = question_weights(release.n_items, resamples, seed, STREAM_BIAS)
    all_weights = question_weights(release.n_items, resamples, seed, STREAM_ALL)
    from medqade.analyses.position_table import paper_positions

    return Report(
        roster=release.roster,
        rq1=physician_reliability(release, core_weights),
        rq2=student_accuracy(release, contrast_resamples, seed),
        rq3=evaluator_alignment(release, core_weights),
        rq4=evaluator_bias(release, bias_weights),
        rq5=abstention(release),
        supplementary=supplementary(release),
        panel=panel_report(release, resamples, seed),
        verdicts=physician_verdicts(
            release,
            core_weights,
            all_weights,
            physician_weights(release.physician_labels.shape[0], resamples, seed),
            margin,
        ),
        positions=paper_positions(release, all_weights, seed),
        meta={
            "data_hash": release.data_hash,
            "resamples": resamples,
            "contrast_resamples": contrast_resamples,
            "seed": seed,
            "version": __version__,
            "synthetic": release.synthetic,
            "n_items": release.n_items,
            "n_core": n_core,
        },
    )
