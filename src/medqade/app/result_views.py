"""The tables of one scored result record (the Submit tab's result), formatted only.

Every number was computed by :func:`medqade.scoring.score` and stored in the record; these
functions pick its blocks, join a CI into one text cell and round for display (three decimals,
bias in percentage points), as :mod:`medqade.app.views` does for the leaderboard.
"""

from __future__ import annotations

from typing import Any, Final

import pandas as pd

from medqade import vocab
from medqade.app.cells import alt_text, ci_text, count, number, pair, points, points_ci
from medqade.scoring.record import Accuracy, Agreement, Difference, ScoreRecord

PHYSICIANS_SCOPE: Final = "physicians (LOO ceiling, each on the answers rated)"
"""The physicians' row of the summary: their leave-one-out agreement counts each physician on
the answers they rated (their abstentions dropped, a judge's count as disagreements)."""


def _metric_rows(block: Agreement | Difference | None, scope: str) -> list[dict[str, Any]]:
    if block is None or not block.json_keys:
        return []
    n = block.n if isinstance(block, Agreement) else block.extra.get("n")
    rows = []
    for m, label in (("kappa", "kappa"), ("pa", "PA"), ("pabak", "PABAK")):
        low, high = pair(block.ci(m))
        rows.append(
            {
                "scope": scope,
                "metric": label,
                "value": number(block.value(m)),
                "95% CI": ci_text(low, high),
                "n": count(n),
            }
        )
    return rows


def _acc_row(block: Accuracy | None, scope: str) -> list[dict[str, Any]]:
    if block is None or not block.json_keys:
        return []
    out = []
    for value, label, ci in (
        (block.anchored, "accuracy (anchored)", block.ci),
        (block.lower, "lower bound (unmatched wrong)", block.lower_ci),
        (block.upper, "upper bound (unmatched right)", block.upper_ci),
    ):
        low, high = pair(ci)
        out.append(
            {
                "scope": scope,
                "metric": label,
                "value": number(value),
                "95% CI": ci_text(low, high),
                "n": count(block.n_anchored),
            }
        )
    judged = block.judged
    if judged is not None and judged.json_keys:
        low, high = pair(judged.ci)
        out.append(
            {
                "scope": scope,
                "metric": "accuracy (judged)",
                "value": number(judged.estimate),
                "95% CI": ci_text(low, high),
                "n": count(judged.n),
            }
        )
    out.append(
        {
            "scope": scope,
            "metric": "coverage (anchored share)",
            "value": number(block.coverage),
            "95% CI": "",
            "n": count(block.n_answered),
        }
    )
    return out


def _alt_rows(record: ScoreRecord) -> list[dict[str, Any]]:
    """The alt-test: omega and rho with answers as instances, then the question-clustered
    robustness variant (none for a record scored before answers were the instances)."""
    alt = record.alt_test
    if alt is None or not alt.json_keys or alt.unit is None:
        return []
    scope = f"alt-test, answers (epsilon {alt.epsilon:g}; evidence, not a verdict)"
    found = [(f"{scope}: {alt_text(alt.passed)}", alt.omega, alt.rho, alt.n_items)]
    q = alt.by_question
    if q is not None:
        label = f"alt-test, questions (robustness): {alt_text(q.passed)}"
        found.append((label, q.omega, q.rho, q.n_items))
    return [
        {"scope": s, "metric": m, "value": number(v), "95% CI": "", "n": count(n)}
        for s, omega, rho, n in found
        for m, v in (("winning rate", omega), ("advantage rho", rho))
    ]


def _held_out_rows(record: ScoreRecord) -> list[dict[str, Any]]:
    """The held-out check (only with held-out labels): per scope the judge's excess kappa drop
    from the published to the held-out items over the physicians', and the decision."""
    check = record.contamination
    if check is None:
        return []
    rows = [
        {
            "scope": f"held-out check, {s.scope}",
            "metric": "excess kappa drop, public - held-out (judge - physicians)",
            "value": number(s.excess),
            "95% CI": ci_text(*pair(s.excess_ci)),
            "n": count(s.n_held_out),
        }
        for s in check.scopes or ()
    ]
    decision = "flagged contamination: no verdict, not ranked" if check.flagged else "not flagged"
    rows.append(
        {
            "scope": "held-out check",
            "metric": f"permutation p (combined), {decision}",
            "value": number(check.p_value),
            "95% CI": "",
            "n": count(check.n_held_out),
        }
    )
    return rows


def summary_table(record: ScoreRecord) -> pd.DataFrame:
    """Headline numbers of a record: agreement (judge) or accuracy (answers), with CIs."""
    rows: list[dict[str, Any]] = []
    if record.kind == "judge":
        rows += _metric_rows(record.core, "core")
        rows += _metric_rows(record.full, "all items")
        rows += _metric_rows(record.core and record.core.rated, "core, when rated")
        rows += _metric_rows(record.physician_reference, PHYSICIANS_SCOPE)
        rows += _metric_rows(
            record.physician_difference, "judge - physicians, core (like for like)"
        )
        rows += _metric_rows(
            record.extension_difference, "judge - physicians, extension (like for like)"
        )
        rows += _alt_rows(record)
        rows += _held_out_rows(record)
        abst = record.abstention or {}
        rows.append(
            {
                "scope": str(abst.get("split", "")),
                "metric": "abstention",
                "value": number(abst.get("global"), 4),
                "95% CI": "",
                "n": count(abst.get("n_slots")),
            }
        )
    else:
        rows += _acc_row(record.accuracy_core, "core")
        rows += _acc_row(record.accuracy, "all items")
    return pd.DataFrame(rows, columns=["scope", "metric", "value", "95% CI", "n"])


def slots_table(record: ScoreRecord, roster: vocab.Roster) -> pd.DataFrame:
    """Per answer slot (student model) agreement on the core."""
    slots = (record.core and record.core.slots) or {}
    rows = []
    for model_id, block in slots.items():
        try:
            name = roster.name(model_id)
        except KeyError:
            name = model_id
        row: dict[str, Any] = {"slot": name}
        for m, label in (("kappa", "kappa"), ("pa", "PA"), ("pabak", "PABAK")):
            row[label] = number(block.get(m))
            row[f"{label} 95% CI"] = ci_text(*pair(block.get(f"{m}_ci")))
        row["n"] = count(block.get("n"))
        rows.append(row)
    return pd.DataFrame(rows)


def grouped_table(record: ScoreRecord) -> pd.DataFrame:
    """Agreement (judge) or accuracy (answers) per difficulty tier and lexical stratum."""
    rows: list[dict[str, Any]] = []
    if record.kind == "judge":
        by_tier = record.by_tier or {}
        by_lex = record.by_lexical or {}
        groups = [(f"T{k}", v) for k, v in by_tier.items()] + [
            (k.replace("_", " "), v) for k, v in by_lex.items()
        ]
        for name, block in groups:
            block = block or {}
            rows.append(
                {
                    "group": name,
                    "kappa": number(block.get("kappa")),
                    "kappa 95% CI": ci_text(*pair(block.get("kappa_ci"))),
                    "PA": number(block.get("pa")),
                    "PA 95% CI": ci_text(*pair(block.get("pa_ci"))),
                    "n": count(block.get("n")),
                }
            )
        return pd.DataFrame(rows)
    acc = _filled(record.accuracy) or _filled(record.accuracy_core) or Accuracy()
    tiers = list(acc.by_tier or [])
    groups2 = [(f"T{k + 1}", v) for k, v in enumerate(tiers)] + [
        (k.replace("_", " "), v) for k, v in (acc.by_lexical or {}).items()
    ]
    for name, block in groups2:
        block = block or {}
        rows.append(
            {
                "group": name,
                "accuracy": number(block.get("anchored")),
                "95% CI": ci_text(*pair(block.get("ci"))),
                "coverage": number(block.get("coverage")),
                "n": count(block.get("n_anchored")),
            }
        )
    return pd.DataFrame(rows)


def _filled(block: Accuracy | None) -> Accuracy | None:
    """``block`` when it was a non-empty JSON object (an empty ``{}`` reads as absent)."""
    return block if block is not None and block.json_keys else None


def confusion_table(record: ScoreRecord) -> pd.DataFrame:
    """Judge label (rows) x physician consensus (columns), core then all items."""
    conf = record.confusion or {}
    rows = []
    for scope in ("core", "all"):
        matrix = conf.get(scope)
        if not matrix:
            continue
        for judge_label, counts in matrix.items():
            rows.append({"scope": scope, "judge label": judge_label} | dict(counts))
    return pd.DataFrame(rows)


def abstention_table(record: ScoreRecord) -> pd.DataFrame:
    """Abstention share per difficulty tier (and overall)."""
    abst = record.abstention or {}
    by_tier = list(abst.get("by_tier") or [])
    rows = [{"tier": f"T{k + 1}", "abstention": number(v, 4)} for k, v in enumerate(by_tier)] + [
        {"tier": "all", "abstention": number(abst.get("global"), 4)}
    ]
    return pd.DataFrame(rows) if abst else pd.DataFrame(columns=["tier", "abstention"])


def bias_table(record: ScoreRecord, roster: vocab.Roster) -> pd.DataFrame:
    """Self and family bias against out-of-family evaluators in percentage points (the unit
    of Figure 3 and the leaderboard's self-bias), with CIs."""
    bias = record.bias or {}
    rows = []
    for t in bias.get("targets") or ():
        try:
            name = roster.name(str(t.get("student")))
        except KeyError:
            name = str(t.get("student"))
        rows.append(
            {
                "kind": t.get("kind"),
                "student": name,
                "bias (pp)": points(t.get("bias")),
                "bias (pp) 95% CI": points_ci(*pair(t.get("bias_ci"))),
                "n": count(t.get("n")),
            }
        )
    return pd.DataFrame(rows, columns=["kind", "student", "bias (pp)", "bias (pp) 95% CI", "n"])


FIDELITY_COLUMNS: Final = (
    "student",
    "judge",
    "judge 95% CI",
    "physicians",
    "physicians 95% CI",
    "judge - physicians",
    "difference 95% CI",
    "n",
)


def fidelity_table(record: ScoreRecord, roster: vocab.Roster) -> pd.DataFrame:
    """Ranking fidelity: each student's accuracy as the judge and as the physicians label it,
    the judge's error with its paired interval, then a row with Kendall's tau-b of the two
    orders (in the judge columns) and one with the largest absolute error. Empty for a record
    scored before the section existed."""
    fid = record.ranking_fidelity
    if fid is None:
        return pd.DataFrame(columns=FIDELITY_COLUMNS)
    rows: list[dict[str, Any]] = []
    for s in fid.students or ():
        try:
            name = roster.name(str(s.student))
        except KeyError:
            name = str(s.student)
        rows.append(
            {
                "student": name,
                "judge": number(s.judge),
                "judge 95% CI": ci_text(*pair(s.judge_ci)),
                "physicians": number(s.physicians),
                "physicians 95% CI": ci_text(*pair(s.physicians_ci)),
                "judge - physicians": number(s.difference),
                "difference 95% CI": ci_text(*pair(s.difference_ci)),
                "n": count(s.n),
            }
        )
    rows.append(
        {
            "student": "order: Kendall tau-b",
            "judge": number(fid.kendall_tau_b),
            "judge 95% CI": ci_text(*pair(fid.kendall_tau_b_ci)),
        }
    )
    rows.append(
        {
            "student": f"largest |error| ({fid.largest_error_student or 'n/a'})",
            "judge - physicians": number(fid.largest_error),
            "difference 95% CI": ci_text(*pair(fid.largest_error_ci)),
        }
    )
    return pd.DataFrame(rows, columns=FIDELITY_COLUMNS)


CELL_COLUMNS: Final = (
    "dimension",
    "group",
    "judge kappa",
    "judge 95% CI",
    "physicians kappa",
    "physicians 95% CI",
    "judge - physicians",
    "difference 95% CI",
    "questions",
    "answers",
    "caution",
)


def cells_table(record: ScoreRecord) -> pd.DataFrame:
    """Where the judge fails: per specialty and difficulty tier (core) its kappa in each
    physician's place beside the physicians' own, the difference with its interval, the
    cell's questions and the judge's answers, and a caution on a cell with fewer questions
    than the record's threshold. Empty for a record scored before the section existed."""
    found = record.agreement_cells
    if found is None:
        return pd.DataFrame(columns=CELL_COLUMNS)
    rows = [
        {
            "dimension": c.dimension,
            "group": c.group,
            "judge kappa": number(c.judge),
            "judge 95% CI": ci_text(*pair(c.judge_ci)),
            "physicians kappa": number(c.physicians),
            "physicians 95% CI": ci_text(*pair(c.physicians_ci)),
            "judge - physicians": number(c.difference),
            "difference 95% CI": ci_text(*pair(c.difference_ci)),
            "questions": count(c.n_questions),
            "answers": count(c.n_answers),
            "caution": (
                f"fewer than {found.min_questions} questions: a wide interval"
                if c.few_questions
                else ""
            ),
        }
        for c in found.cells or ()
    ]
    return pd.DataFrame(rows, columns=CELL_COLUMNS)


def ensembles_table(record: ScoreRecord) -> pd.DataFrame:
    """Best majority-vote panel of each size with and without the submission (core)."""
    ens = record.ensembles or {}
    rows = []
    for panel in ens.get("panels") or ():
        for side in ("with", "without"):
            block = panel.get(side)
            if not block:
                continue
            rows.append(
                {
                    "size": panel.get("size"),
                    "panel": side,
                    "members": ", ".join(str(m) for m in block.get("members") or ()),
                    "kappa": number(block.get("kappa")),
                    "kappa 95% CI": ci_text(*pair(block.get("kappa_ci"))),
                }
            )
    return pd.DataFrame(rows)


def disagreements_table(record: ScoreRecord, limit: int = 200) -> pd.DataFrame:
    """Answer ids where the judge contradicts a unanimous physician panel (first ``limit``)."""
    ids = list((record.disagreements or {}).get("answer_ids") or ())[:limit]
    rows = [
        {"answer": a, "item": a.split("/", 1)[0], "link": "?item=" + a.split("/", 1)[0]}
        for a in ids
    ]
    return pd.DataFrame(rows, columns=["answer", "item", "link"])
