"""The calibration table's rows about the reference (:mod:`medqade.analyses.calibration`): the
consensus and adjudication flow (the methods digest's section 3), the difficulty tiers
(section 4), the physicians' reliability (RQ1) and the students' accuracy against the
consensus (RQ2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medqade import vocab
from medqade.analyses.calibration_targets import (
    GEMINI_25,
    GEMMA_4B,
    QWEN,
    Target,
    argmax,
    argmin,
    exact,
    holds,
    near,
    wilson,
    within,
)
from medqade.analyses.common import physician_tiers
from medqade.analyses.report import Report
from medqade.consensus import majority_of_codes
from medqade.dataset.release import Release

# --- section 3: consensus and adjudication ----------------------------------------------------


@dataclass(frozen=True)
class AdjudicationFlow:
    """The extension slots' path through adjudication: unresolved by the primary raters,
    resolved or not by the adjudicator, newly tied; and the unresolved slots overall."""

    initially_unresolved: int
    resolved: int
    stayed: int
    newly_tied: int
    extension_unresolved: int
    core_unresolved: int
    slots: int


def adjudication_flow(rel: Release) -> AdjudicationFlow:
    """The extension slots' path through adjudication, counted from the ratings."""
    ext = ~rel.is_core
    adj = rel.roster.physicians.index(rel.roster.adjudicator)
    primary = np.delete(rel.physician_labels[:, ext], adj, axis=0)
    initial = majority_of_codes(primary, axis=0) == vocab.MISSING_CODE
    final = rel.consensus[ext] >= 0
    return AdjudicationFlow(
        initially_unresolved=int(initial.sum()),
        resolved=int((initial & final).sum()),
        stayed=int((initial & ~final).sum()),
        newly_tied=int((~initial & ~final).sum()),
        extension_unresolved=int((~final).sum()),
        core_unresolved=int((rel.consensus[rel.is_core] < 0).sum()),
        slots=int(rel.consensus.size),
    )


def consensus_rows(rel: Release, report: Report) -> list[Target]:
    """The consensus and adjudication flow (section 3)."""
    f = adjudication_flow(rel)
    s = "3"
    total = f.extension_unresolved + f.core_unresolved
    return [
        near(
            s, "extension slots unresolved by the primary pair", 2770, 220, f.initially_unresolved
        ),
        near(s, "of those, resolved by the adjudicator", 2537, 200, f.resolved),
        near(
            s,
            "share of those resolved by the adjudicator",
            0.916,
            0.03,
            f.resolved / max(f.initially_unresolved, 1),
            "percent",
        ),
        near(s, "stayed unresolved after adjudication", 233, 75, f.stayed),
        near(s, "newly tied by the adjudicator", 120, 50, f.newly_tied),
        near(s, "extension slots without consensus", 353, 75, f.extension_unresolved),
        near(s, "core slots without consensus", 21, 17, f.core_unresolved),
        near(s, "slots without consensus", 374, 75, total),
        near(s, "share of slots without consensus", 0.020, 0.004, total / f.slots, "percent"),
    ]


# --- section 4: tiers -------------------------------------------------------------------------


def tier_rows(rel: Release, report: Report) -> list[Target]:
    """The difficulty tiers (section 4)."""
    tier = physician_tiers(rel.physician_difficulty)
    rows = []
    for t, n in zip(vocab.TIERS, (1802, 1266, 572, 160), strict=True):
        rows.append(exact("4", f"items in T{t}", n, int((tier == t).sum())))
    for t, n in zip(vocab.TIERS, (489, 182, 73, 16), strict=True):
        rows.append(
            exact("4", f"exact-match items in T{t}", n, int(((tier == t) & rel.lexical).sum()))
        )
    return rows


# --- RQ1: physician reliability ---------------------------------------------------------------


def rq1_rows(rel: Release, report: Report) -> list[Target]:
    """The physicians' reliability (RQ1)."""
    r = report.rq1
    kappa = {m: r.slots[m].kappa.value for m in r.slots}
    pa = {m: r.slots[m].pa.value for m in r.slots}
    alpha = {m: r.slots[m].alpha.value for m in r.slots}
    core = rel.consensus[rel.is_core]
    share = {
        m: float((core[:, s] == 1).sum() / (core[:, s] >= 0).sum())
        for s, m in enumerate(rel.roster.student_ids)
    }
    weak = {GEMMA_4B, QWEN}
    top_pa = set(sorted(pa, key=lambda m: -pa[m])[:2])
    strong_kappa = [kappa[m] for m in kappa if m not in weak]
    s = "RQ1"
    return [
        near(s, "physician kappa per slot, lowest", 0.555, 0.09, min(kappa.values())),
        near(s, "physician kappa per slot, highest", 0.656, 0.09, max(kappa.values())),
        near(
            s, "physician kappa, mean of slots", 0.612, 0.06, float(np.mean(list(kappa.values())))
        ),
        near(
            s, "physician alpha, mean of slots", 0.598, 0.06, float(np.mean(list(alpha.values())))
        ),
        near(s, "physician PA per slot, lowest", 0.801, 0.03, min(pa.values()), "percent"),
        near(s, "physician PA per slot, highest", 0.891, 0.03, max(pa.values()), "percent"),
        near(s, "difficulty alpha (squared distance)", 0.208, 0.07, r.difficulty_alpha.value),
        near(s, "Gemma 3 4B share Correct, core", 0.136, 0.08, share[GEMMA_4B], "percent"),
        near(s, "Qwen3-4B share Correct, core", 0.166, 0.08, share[QWEN], "percent"),
        holds(
            s,
            "Gemma 3 4B and Qwen3-4B slots have the highest PA",
            top_pa == weak,
            ", ".join(sorted(top_pa)),
        ),
        holds(
            s,
            "yet the highest kappa is another slot's (prevalence)",
            max(kappa[m] for m in weak) < max(strong_kappa),
        ),
    ]


# --- RQ2: student accuracy --------------------------------------------------------------------


def rq2_rows(rel: Release, report: Report) -> list[Target]:
    """The students' accuracy against the consensus (RQ2)."""
    a = report.rq2
    acc = {m: p.acc for m, p in a.overall.items()}
    lex = {m: c.diff.value for m, c in a.lexical_diff.items()}
    g = a.by_tier[GEMINI_25]
    t1, t4 = g[vocab.TIERS[0]], g[vocab.TIERS[-1]]
    diff = a.tier_diff[GEMINI_25].diff
    s = "RQ2"
    return [
        near(s, "student accuracy, lowest", 0.178, 0.025, min(acc.values()), "percent"),
        holds(s, "lowest accuracy is Gemma 3 4B's", argmin(acc) == GEMMA_4B, argmin(acc)),
        near(s, "student accuracy, highest", 0.660, 0.03, max(acc.values()), "percent"),
        holds(s, "highest accuracy is Gemini 2.5 Flash's", argmax(acc) == GEMINI_25, argmax(acc)),
        near(s, "exact-match advantage, smallest", 0.098, 0.045, min(lex.values()), "percent"),
        within(
            s,
            "exact-match advantage, largest",
            0.333,
            (0.307, 0.360),
            max(lex.values()),
            "paper CI",
            "percent",
        ),
        holds(s, "largest exact-match advantage is Gemini 2.5 Flash's", argmax(lex) == GEMINI_25),
        holds(s, "every exact-match advantage is positive", min(lex.values()) > 0),
        within(
            s,
            "Gemini 2.5 Flash accuracy in T1",
            1353 / 1783,
            wilson(1353, 1783),
            t1.acc,
            "Wilson CI of 1353/1783",
            "percent",
        ),
        within(
            s,
            "Gemini 2.5 Flash accuracy in T4",
            70 / 148,
            wilson(70, 148),
            t4.acc,
            "Wilson CI of 70/148",
            "percent",
        ),
        within(
            s,
            "Gemini 2.5 Flash T1 minus T4",
            0.286,
            (0.205, 0.368),
            diff.value,
            "paper CI",
            "percent",
        ),
        holds(s, "the T1 - T4 interval excludes 0", diff.excludes_zero()),
        near(s, "Gemini 2.5 Flash resolved answers in T1", 1783, 12, t1.n),
        near(s, "Gemini 2.5 Flash resolved answers in T4", 148, 9, t4.n),
    ]
