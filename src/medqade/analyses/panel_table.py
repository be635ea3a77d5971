"""Supplementary table S4: every physician of the panel (``reproduce``, ``medqade panel``).

One row per physician from :func:`medqade.measures.rater_report.panel_report`: core
leave-one-out kappa / PA / PABAK with 95% intervals (the terms of the ceiling), extension
kappa against the partner and the adjudicator, abstention per tier, Fleiss' kappa of the panel
without the physician, intra-rater kappa and PA from the re-ratings, the kappa gap with its
Bonferroni-adjusted interval and the outlier verdict (decided on unrounded values in
:mod:`medqade.measures.raters`).
"""

from __future__ import annotations

from medqade import vocab
from medqade.analyses.cells import NA, Cell, Table, est, est_csv, num, pct
from medqade.measures import Estimate, PanelReport

NAME = "table_s4_physicians"
HEADER = (
    "Physician",
    "Core kappa (LOO)",
    "Core PA",
    "Core PABAK",
    "Ext. kappa vs partner",
    "Ext. kappa vs adjudicator",
    *(f"Abstain T{t}" for t in vocab.TIERS),
    "Fleiss without",
    "Intra kappa",
    "Intra PA",
    "Kappa gap [adjusted]",
    "Verdict",
)


def _opt(e: Estimate | None) -> str:
    return NA if e is None else est(e)


def _codes(counts: dict[str, int]) -> str:
    return ", ".join(f"{c} {n}" for c, n in counts.items()) or "-"


def _codes_csv(counts: dict[str, int]) -> str:
    return "; ".join(f"{c} {n}" for c, n in counts.items())


def judges_review_table(report: PanelReport) -> Table | None:
    """The review codes of the answers where each judge departs from the physician consensus
    (``None`` when the release has no reviews)."""
    if not report.review_codes and not report.judge_review_codes:
        return None
    judges = report.judge_review_codes
    return Table(
        name=f"{NAME}_judges_review_codes",
        title="Judges' review codes",
        header=("Judge", "Review codes"),
        rows=tuple((j, _codes(c)) for j, c in judges.items()),
        csv_header=("judge", "review_codes"),
        csv_rows=tuple((j, _codes_csv(c)) for j, c in judges.items()),
        note="Codes of the reviewed answers where the judge's substantive label differs from "
        "the physician consensus, with the number of such answers per code.",
    )


def panel_csv(report: PanelReport) -> str:
    """``medqade panel --format csv``: one CSV table. The first column ``kind`` is
    ``physician`` for the rows of :func:`panel_table`; with reviews in the release a ``judge``
    column follows ``physician`` and each judge adds a row of kind ``judge`` with only
    ``judge`` and ``review_codes`` set (the codes of :func:`judges_review_table`)."""
    table = panel_table(report)
    judges = judges_review_table(report)
    if judges is None:
        header = ("kind", *table.csv_header)
        rows = [("physician", *r) for r in table.csv_rows]
    else:
        header = ("kind", "physician", "judge", *table.csv_header[1:])
        width = len(header)
        rows = [("physician", r[0], None, *r[1:]) for r in table.csv_rows]
        for judge, codes in judges.csv_rows:
            rows.append(("judge", None, judge, *([None] * (width - 4)), codes))
    return Table(
        name=table.name,
        title=table.title,
        header=(),
        rows=(),
        csv_header=header,
        csv_rows=tuple(rows),
    ).to_csv()


def panel_table(report: PanelReport) -> Table:
    """The per-physician table of ``report``."""
    rows: list[tuple[str, ...]] = []
    csv_rows: list[tuple[Cell, ...]] = []
    reviews = bool(report.review_codes)
    for r in report.raters:
        gap = f"{num(r.gap.value)} [{num(r.gap_bounds[0])}, {num(r.gap_bounds[1])}]"
        role = " (adjudicator)" if r.adjudicator else ""
        row = (
            r.physician + role,
            est(r.core.kappa),
            est(r.core.pa),
            est(r.core.pabak),
            _opt(None if r.partner is None else r.partner.kappa),
            _opt(None if r.versus_adjudicator is None else r.versus_adjudicator.kappa),
            *(pct(r.abstention_rate(t)) for t in vocab.TIERS),
            f"{est(r.fleiss_without)} ({num(r.fleiss_change.value):s})",
            _opt(None if r.intra is None else r.intra.kappa),
            _opt(None if r.intra is None else r.intra.pa),
            gap,
            r.verdict or NA,
        )
        if reviews:
            row = (*row, _codes(report.review_codes.get(r.physician, {})))
        rows.append(row)
        csv_rows.append(
            (
                r.physician,
                r.adjudicator,
                *est_csv(r.core.kappa),
                *est_csv(r.core.pa),
                *est_csv(r.core.pabak),
                *(est_csv(r.partner.kappa) if r.partner else (None, None, None)),
                *(
                    est_csv(r.versus_adjudicator.kappa)
                    if r.versus_adjudicator
                    else (None, None, None)
                ),
                *(r.abstention_rate(t) for t in vocab.TIERS),
                *est_csv(r.fleiss_without),
                r.fleiss_change.value,
                *(est_csv(r.intra.kappa) if r.intra else (None, None, None)),
                *(est_csv(r.intra.pa) if r.intra else (None, None, None)),
                r.gap.value,
                *r.gap_bounds,
                *r.gap_bounds_mc_se,
                r.verdict,
                *((_codes_csv(report.review_codes.get(r.physician, {})),) if reviews else ()),
            )
        )
    csv_header = (
        "physician",
        "adjudicator",
        *(
            f"{n}{s}"
            for n in ("core_kappa", "core_pa", "core_pabak", "partner_kappa", "adjudicator_kappa")
            for s in ("", "_low", "_high")
        ),
        *(f"abstain_t{t}" for t in vocab.TIERS),
        "fleiss_without",
        "fleiss_without_low",
        "fleiss_without_high",
        "fleiss_change",
        *(f"{n}{s}" for n in ("intra_kappa", "intra_pa") for s in ("", "_low", "_high")),
        "kappa_gap",
        "kappa_gap_adjusted_low",
        "kappa_gap_adjusted_high",
        "kappa_gap_adjusted_low_mc_se",
        "kappa_gap_adjusted_high_mc_se",
        "verdict",
        *(("review_codes",) if reviews else ()),
    )
    level = f"{100 * report.level:.1f}%"
    note = (
        f"Core: {report.n_core} items, leave-one-out reference, {report.resamples} question "
        f"resamples (seed {report.seed}); ceiling kappa {est(report.ceiling.kappa)}, panel "
        f"Fleiss' kappa {est(report.fleiss)}. Kappa gap = the physician's core kappa minus the "
        f"mean of the others'; outlier when the upper bound of its {level} paired interval "
        f"(Bonferroni over the panel; {report.outlier_resamples:,} resamples of its own, "
        "Monte-Carlo s.e. of the bounds in the CSV) is below 0. Intra-rater: first rating "
        "against the re-rating per slot, mean over the slots, on the answers of "
        f"{report.n_rerated} re-rated items."
    )
    return Table(
        name=NAME,
        title="Table S4. Physicians one by one",
        header=(*HEADER, "Review codes") if reviews else HEADER,
        rows=tuple(rows),
        csv_header=csv_header,
        csv_rows=tuple(csv_rows),
        note=note,
    )
