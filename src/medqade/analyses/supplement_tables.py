"""The supplementary tables of a report (:mod:`medqade.analyses.report`): S4 (the physicians one
by one, :mod:`medqade.analyses.panel_table`), S5 (the pool, :mod:`medqade.analyses.pool_table`),
S6 (every evaluator's verdict against the physicians), S7 (position bias,
:mod:`medqade.analyses.position_table`), S8 (ranking fidelity,
:mod:`medqade.analyses.fidelity_table`) and S9 (ranking fidelity on the pool,
:mod:`medqade.analyses.pool_fidelity_table`), each only when the report holds it.
"""

from __future__ import annotations

import math

from medqade.analyses.cells import (
    EST_COLUMNS,
    NA,
    Cell,
    Table,
    columns,
    est,
    est_csv,
    num,
)
from medqade.analyses.panel_table import panel_table
from medqade.analyses.paper_tables import ReportParts, model_name
from medqade.analyses.pool_table import pool_table
from medqade.analyses.verdicts import JudgeVerdict
from medqade.measures import VERDICTS, Estimate


def supplement_tables(r: ReportParts) -> tuple[Table, ...]:
    """S4 (the physicians), S5 (the pool), S6 (verdicts against physicians), S7 (position
    bias), S8 (ranking fidelity) and S9 (ranking fidelity on the pool), each when present."""
    return (
        *_table_panel(r),
        *_table_pool(r),
        *_table_verdicts(r),
        *_table_position(r),
        *_table_fidelity(r),
        *_table_pool_fidelity(r),
    )


def _table_panel(r: ReportParts) -> tuple[Table, ...]:
    """S4, the physicians one by one (:mod:`medqade.analyses.panel_table`), when computed."""
    if r.panel is None:
        return ()
    return (panel_table(r.panel),)


def _table_position(r: ReportParts) -> tuple[Table, ...]:
    """S7, position bias of the evaluators (:mod:`medqade.analyses.position_table`)."""
    if not r.positions:
        return ()
    from medqade.analyses.position_table import position_table

    return (position_table(r.positions, r.roster),)


def _table_fidelity(r: ReportParts) -> tuple[Table, ...]:
    """S8, ranking fidelity of the evaluators (:mod:`medqade.analyses.fidelity_table`)."""
    if not r.fidelity:
        return ()
    from medqade.analyses.fidelity_table import fidelity_table

    return (fidelity_table(r.fidelity, r.roster),)


def _table_pool_fidelity(r: ReportParts) -> tuple[Table, ...]:
    """S9, ranking fidelity on the pool (:mod:`medqade.analyses.pool_fidelity_table`), when the
    pool is present."""
    if not r.pool_fidelity:
        return ()
    from medqade.analyses.pool_fidelity_table import pool_fidelity_table

    return (pool_fidelity_table(r.pool_fidelity, r.roster),)


def _table_pool(r: ReportParts) -> tuple[Table, ...]:
    """S5, the pool accuracy (:mod:`medqade.analyses.pool_table`), when the pool is present."""
    if r.pool is None:
        return ()
    return (pool_table(r.pool, r.roster),)


def _word(v: str | None) -> str:
    return NA if v is None else v


def _verdict_row(r: ReportParts, v: JudgeVerdict) -> tuple[tuple[str, ...], tuple[Cell, ...]]:
    head, core, ext, alt = v.headline, v.core, v.extension, v.alt_test
    nan = float("nan")
    none = Estimate(nan, nan, nan)
    d = head.difference or none
    c_kappa = none if core is None else core.kappa
    e_kappa = none if ext is None else ext.kappa
    given = none if core is None else core.given_panel
    row = (
        model_name(r, v.evaluator),
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


def _table_verdicts(r: ReportParts) -> tuple[Table, ...]:
    """S6, every evaluator's verdict against the physicians, when computed."""
    found = r.verdicts
    if found is None or not found.evaluators:
        return ()
    rows, csv_rows = zip(*(_verdict_row(r, v) for v in found.evaluators.values()), strict=True)
    first = next(iter(found.evaluators.values()))
    words = "; ".join(f"'{w}'" for w in VERDICTS)
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
