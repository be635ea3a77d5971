"""Display tables from library output: the leaderboard's rows and a result's headline, formatted
only (one value as a cell is :mod:`medqade.app.cells`; a result record's tables are in
:mod:`medqade.app.result_views`).

Every number here was computed by :mod:`medqade.scoring`; these functions pick columns, join a
CI into one text cell, round for display (three decimals) and never compute a statistic. Text
that came from a submitter (names, links, notes) stays plain text: it only ever reaches the
page as a Dataframe cell or escaped HTML (:func:`medqade.app.cells.plain`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import pandas as pd

from medqade import vocab
from medqade.app.cells import (
    alt_text,
    as_text,
    ci_text,
    compare_link,
    count,
    flag_words,
    interval_text,
    number,
    pair,
    percent,
    points,
    points_ci,
    rank_range,
)
from medqade.measures import CONTAMINATION
from medqade.scoring.board import JudgeRow, ModelRow
from medqade.scoring.record import Accuracy, ScoreRecord

Row = JudgeRow | ModelRow

ABOVE_CEILING: Final = "above_physician_ceiling"
PHYSICIAN_REFERENCE: Final = "physician_reference"

BEHAVIOUR_GROUPS: Final[Mapping[str, tuple[str, ...]]] = {
    "caution": (
        "caution slope (pp/tier)",
        "caution vs physicians (pp/tier)",
        "caution vs physicians 95% CI",
        "caution: sparsest tier",
    ),
    "self-consistency": ("self kappa", "self kappa 95% CI", "physicians' self kappa"),
    "position bias": ("position p",),
    "cost": ("tokens / 1,000 answers", "EUR / 1,000 answers"),
}
"""Column groups of the judges table (shown on demand; caution is never part of the rank)."""

JUDGE_GROUPS: Final[Mapping[str, tuple[str, ...]]] = {
    "kappa": ("kappa", "kappa 95% CI"),
    "verdict": ("verdict", "vs physicians", "vs physicians 95% CI", "decided on"),
    "PA": ("PA", "PA 95% CI"),
    "PABAK": ("PABAK", "PABAK 95% CI"),
    "abstention": ("abstention (%)",),
    "coverage": ("coverage",),
    "n": ("n",),
    "core and extension": (
        "vs physicians (core)",
        "vs physicians (core) 95% CI",
        "vs physicians (extension)",
        "vs physicians (extension) 95% CI",
    ),
    "alt-test": ("alt-test", "winning rate", "advantage rho"),
    "when rated": ("kappa when rated", "PA when rated", "PABAK when rated", "n when rated"),
    "compare": ("compare",),
    "self-bias": ("self-bias (pp)", "self-bias (pp) 95% CI", "self-bias flag"),
    "ranking fidelity": ("tau", "tau 95% CI"),
    **BEHAVIOUR_GROUPS,
    "flags": ("flags", "above ceiling"),
    "id": ("id",),
}
MODEL_GROUPS: Final[Mapping[str, tuple[str, ...]]] = {
    "accuracy": ("accuracy", "accuracy 95% CI"),
    "bounds": ("lower", "upper", "bounds 95% CI"),
    "judged": ("judged", "judged 95% CI", "judge"),
    "by tier": tuple(f"T{t}" for t in vocab.TIERS),
    "by stratum": ("exact match", "no match"),
    "coverage": ("coverage",),
    "n": ("n",),
    "flags": ("flags",),
    "id": ("id",),
}
DEFAULT_GROUPS: Final = (
    "kappa",
    "verdict",
    "core and extension",
    "alt-test",
    "compare",
    "PA",
    "PABAK",
    "abstention",
    "coverage",
    "self-bias",
    "ranking fidelity",
    "accuracy",
    "bounds",
    "judged",
    "by tier",
    "by stratum",
    "n",
)
COLUMN_GROUPS: Final = tuple(dict.fromkeys([*JUDGE_GROUPS, *MODEL_GROUPS]))
IDENTITY: Final = ("rank", "rank range", "name", "family", "source", "badge")
SEARCHED: Final = ("name", "model_id", "family", "source", "badge", "organisation")


def _badge(flags: tuple[str, ...], verified: bool) -> str:
    if PHYSICIAN_REFERENCE in flags:
        return "physician ceiling"
    text = "verified" if verified else "self-reported"
    if "partial_coverage" in flags:
        text += ", partial"
    return f"{text}, contamination" if CONTAMINATION in flags else text


def badge(record: ScoreRecord) -> str:
    """``physician ceiling``, ``verified`` or ``self-reported`` (plus ``partial`` and
    ``contamination``)."""
    verified = record.meta is not None and record.meta.verified is True
    return _badge(tuple(record.flags or ()), verified)


def row_badge(row: Row) -> str:
    """:func:`badge` of a board row (from its flags and verified status)."""
    flags = tuple(row.flags.split(";")) if isinstance(row.flags, str) else ()
    return _badge(flags, row.verified)


def shown_name(row: JudgeRow, view: str) -> str:
    """A judge row's name as the board shows it (in the full view the physician ceiling, a
    core quantity, is named so)."""
    name = f"{row.name} — ceiling" if row.status == "reference" else str(row.name)
    return f"{name} (core)" if view == "full" and row.scope == "core" else name


def _haystack(row: Row, name: str) -> str:
    """What a search looks in (:data:`SEARCHED`), as the board shows it."""
    words = (name, row.model_id, row.family, row.source, row_badge(row), row.organisation)
    return " ".join(as_text(w) for w in words).casefold()


def matching(rows: Sequence[JudgeRow], search: str, view: str) -> list[JudgeRow]:
    """The judge rows whose name, model id, family, source, badge or organisation contain
    ``search`` (case-insensitive): the rows :func:`select` keeps of their table."""
    needle = " ".join(search.split()).casefold()
    return [r for r in rows if needle in _haystack(r, shown_name(r, view))]


# --- leaderboard ----------------------------------------------------------------------------------


def judges_table(rows: Sequence[JudgeRow], view: str = "core") -> pd.DataFrame:
    """The judge rows of a :class:`~medqade.scoring.board.Board` as display columns, one
    cell per column, formatted from the row's fields (nothing read back from its record)."""
    table = []
    for r in rows:
        table.append(
            {
                "rank": count(r.rank),
                "rank range": rank_range(r.rank, r.rank_worst),
                "name": shown_name(r, view),
                "family": as_text(r.family),
                "source": as_text(r.source),
                "badge": row_badge(r),
                "kappa": number(r.kappa.value),
                "kappa 95% CI": interval_text(r.kappa),
                "PA": number(r.pa.value),
                "PA 95% CI": interval_text(r.pa),
                "PABAK": number(r.pabak.value),
                "PABAK 95% CI": interval_text(r.pabak),
                "abstention (%)": percent(r.abstention),
                "coverage": number(r.coverage),
                "n": count(r.n),
                "verdict": as_text(r.verdict),
                "vs physicians": number(r.d.value),
                "vs physicians 95% CI": interval_text(r.d),
                "decided on": as_text(r.decided_on),
                "vs physicians (core)": number(r.d_physicians.value),
                "vs physicians (core) 95% CI": interval_text(r.d_physicians),
                "vs physicians (extension)": number(r.d_extension.value),
                "vs physicians (extension) 95% CI": interval_text(r.d_extension),
                "alt-test": alt_text(r.alt_test_passed),
                "winning rate": number(r.alt_test_winning_rate),
                "advantage rho": number(r.alt_test_rho),
                "kappa when rated": number(r.kappa_rated),
                "PA when rated": number(r.pa_rated),
                "PABAK when rated": number(r.pabak_rated),
                "n when rated": count(r.n_rated),
                "above ceiling": "yes" if ABOVE_CEILING in str(r.flags).split(";") else "",
                "self-bias (pp)": points(r.self_bias.value),
                "self-bias (pp) 95% CI": points_ci(r.self_bias.low, r.self_bias.high),
                "self-bias flag": "yes" if r.self_bias_significant is True else "",
                "tau": number(r.tau.value),
                "tau 95% CI": interval_text(r.tau),
                "flags": flag_words(r.flags),
                "compare": compare_link(r),
                "id": as_text(r.id)[:16],
                "model_id": as_text(r.model_id),
                "organisation": as_text(r.organisation),
                **behaviour_cells(r),
            }
        )
    return pd.DataFrame(table, columns=JUDGE_ALL)


JUDGE_EXPORT_FIRST: Final = (
    "verdict",
    "d_physicians",
    "d_physicians_low",
    "d_physicians_high",
    "margin",
)
"""The verdict block, which the Space's judges CSV puts right after ``kappa_high``."""


def judges_export(frame: pd.DataFrame) -> pd.DataFrame:
    """The judges frame of :func:`medqade.scoring.board.tables` in the column order of the
    Space's table: the verdict (and the difference it is read from) right after kappa's CI,
    every other column in the library's order. Values are untouched."""
    moved = [c for c in JUDGE_EXPORT_FIRST if c in frame.columns]
    rest = [c for c in frame.columns if c not in moved]
    at = rest.index("kappa_high") + 1 if "kappa_high" in rest else len(rest)
    return frame.loc[:, [*rest[:at], *moved, *rest[at:]]]


def models_table(rows: Sequence[ModelRow], view: str = "core") -> pd.DataFrame:
    """The model rows of a :class:`~medqade.scoring.board.Board` as display columns."""
    table = []
    for r in rows:
        row = {
            "rank": count(r.rank),
            "rank range": rank_range(r.rank, r.rank_worst),
            "name": str(r.name),
            "family": as_text(r.family),
            "source": as_text(r.source),
            "badge": row_badge(r),
            "accuracy": number(r.accuracy.value),
            "accuracy 95% CI": interval_text(r.accuracy),
            "lower": number(r.lower.value),
            "upper": number(r.upper.value),
            "bounds 95% CI": ci_text(r.lower.low, r.upper.high),
            "judged": number(r.judged.value),
            "judged 95% CI": interval_text(r.judged),
            "judge": as_text(r.judge),
            "coverage": number(r.coverage),
            "n": count(r.n),
            "flags": flag_words(r.flags),
            "id": as_text(r.id)[:16],
            "model_id": as_text(r.model_id),
            "organisation": as_text(r.organisation),
        }
        for t in vocab.TIERS:
            row[f"T{t}"] = number(r.tiers[t - 1] if len(r.tiers) >= t else None)
        row["exact match"] = number(r.exact_match)
        row["no match"] = number(r.no_match)
        table.append(row)
    return pd.DataFrame(table, columns=MODEL_ALL)


JUDGE_ALL: Final = (
    *IDENTITY,
    *(c for g in JUDGE_GROUPS.values() for c in g),
    "model_id",
    "organisation",
)
MODEL_ALL: Final = (
    *IDENTITY,
    *(c for g in MODEL_GROUPS.values() for c in g),
    "model_id",
    "organisation",
)


def select(
    table: pd.DataFrame, groups: Mapping[str, tuple[str, ...]], chosen: Iterable[str], search: str
) -> pd.DataFrame:
    """Rows whose name, model id, family, source, badge or organisation contain ``search``
    (case-insensitive), with the identity columns and the chosen column groups."""
    needle = " ".join(search.split()).casefold()
    if needle and len(table):
        hay = table[list(SEARCHED)].astype(str).agg(" ".join, axis=1).str.casefold()
        table = table[hay.str.contains(needle, regex=False)]
    wanted = set(chosen)
    columns = [c for c in IDENTITY if c in table.columns]
    for group, cols in groups.items():
        if group in wanted:
            columns.extend(cols)
    return table.loc[:, columns].reset_index(drop=True)


# --- one result record (its tables: medqade.app.result_views) --------------------------------


def headline(record: ScoreRecord) -> str:
    """One Markdown-free line naming the result (the caller escapes it)."""
    name = record.name
    if record.kind == "judge":
        core = record.core
        low, high = pair(core.kappa_ci if core else None)
        head = record.headline
        alt = record.alt_test
        extra = ""
        if head and head.json_keys:
            extra = f" (kappa d {number(head.kappa):+.3f}, decided on {head.decided_on})"
            if head.flags:
                extra += f"; flag: {', '.join(head.flags)}"
        if alt and alt.json_keys and alt.unit is not None:
            omega, rho = (number(x, 2) for x in (alt.omega, alt.rho))
            extra += (
                f"; alt-test (evidence, not a verdict): {alt_text(alt.passed)}, omega "
                f"{'n/a' if math.isnan(omega) else omega}, rho {'n/a' if math.isnan(rho) else rho}"
            )
        return (
            f"{name}: core kappa {number(core.kappa if core else None):.3f} "
            f"(95% CI {ci_text(low, high) or 'n/a'}), verdict: {record.verdict or 'n/a'}"
            f"{extra}"
        )
    acc = next((a for a in (record.accuracy_core, record.accuracy) if a and a.json_keys), None)
    acc = acc or Accuracy()
    low, high = pair(acc.ci)
    return (
        f"{name}: accuracy {number(acc.anchored):.3f} "
        f"(95% CI {ci_text(low, high) or 'n/a'}), coverage {number(acc.coverage):.3f}"
    )


def problems_table(problems: Iterable[Any]) -> pd.DataFrame:
    """Row-level problems of an :class:`~medqade.files.problems.InputError` as a table."""
    rows = [
        {
            "line": "" if p.row is None else f"{p.row_kind} {p.row}",
            "column": p.column or "",
            "value": "" if p.value is None else str(p.value),
            "problem": p.message,
            "fix": p.fix or "",
        }
        for p in problems
    ]
    return pd.DataFrame(rows, columns=["line", "column", "value", "problem", "fix"])


def record_json(record: ScoreRecord) -> str:
    """The record's JSON (byte for byte the object it was read from), indented."""
    return json.dumps(record.to_json(), ensure_ascii=False, indent=1, allow_nan=True)


def behaviour_cells(row: JudgeRow) -> dict[str, Any]:
    """Display cells of a judge row's behaviour fields."""
    caution = row.caution_vs_physicians
    return {
        "caution slope (pp/tier)": points(row.caution_slope),
        "caution vs physicians (pp/tier)": points(caution.value),
        "caution vs physicians 95% CI": ci_text(
            number(caution.low, 6) * 100, number(caution.high, 6) * 100, 1
        ),
        "caution: sparsest tier": as_text(row.caution_sparsest_tier),
        "self kappa": number(row.self_kappa.value),
        "self kappa 95% CI": interval_text(row.self_kappa),
        "physicians' self kappa": number(row.physicians_self_kappa),
        "position p": number(row.position_p),
        "tokens / 1,000 answers": number(row.tokens_per_1000, 0),
        "EUR / 1,000 answers": number(row.eur_per_1000, 4),
    }
