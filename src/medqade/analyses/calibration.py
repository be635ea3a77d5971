"""How close a release lands to the paper's findings (the calibration table).

``medqade synthesize --check`` prints this table for a freshly built synthetic release; the
tests in ``tests/synthetic/`` recompute every row from the Parquet files with independent
implementations (scikit-learn, ``krippendorff``).

Every finding of the methods digest's sections 3 (consensus and adjudication), 4 (difficulty
tiers) and 6 (RQ1-RQ5) is one row: a published number, or a qualitative statement (an
ordering, a sign, which interval overlaps which, which subset or model comes out best). A row
passes when this release's value lies in the row's accepted range:

- the paper's 95% interval where the paper gives one (or, for a published count ``k / n``, the
  Wilson interval of that count);
- otherwise the paper's value plus or minus a stated tolerance: about three times the
  quantity's seed-to-seed standard deviation under the latent model at the paper's sample
  sizes (``python bench/calibration_seeds.py`` prints it), so a row tests the model and not
  one draw. Quantities of the 200 core items are noisy (a slot's kappa moves by about 0.03
  between seeds), hence tolerances near 0.06-0.09 there and near 1-3 points for the
  3,800-item accuracies and biases;
- exactly the paper's value for the design's counts, and "holds" for a statement.

Everything is computed with the project's analyses on unrounded values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from medqade import stats, vocab
from medqade.analyses import rq3
from medqade.analyses.common import physician_tiers
from medqade.analyses.report import Report, reproduce
from medqade.consensus import majority_of_codes
from medqade.dataset.release import Release

GEMINI_3 = "gemini-3-flash-preview"
GEMINI_25 = "gemini-2.5-flash"
FLASH_LITE = "gemini-2.5-flash-lite"
GPT_MINI = "gpt-5.4-mini"
GPT_NANO = "gpt-5-nano"
GEMMA_4B = "gemma3:4b"
QWEN = "qwen3:4b"


@dataclass(frozen=True)
class Target:
    """One finding: the paper's figure, this release's value and the accepted range.

    ``unit`` says how to print the numbers: ``number``, ``percent``, ``count`` or ``holds``
    (a statement: value 1.0 when it holds, 0.0 when not; ``note`` says what was found).
    """

    section: str
    quantity: str
    paper: float
    value: float
    low: float
    high: float
    basis: str
    unit: str = "number"
    note: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.low <= self.value <= self.high)


def near(
    section: str, quantity: str, paper: float, tolerance: float, value: float, unit: str = "number"
) -> Target:
    """``paper`` plus or minus ``tolerance``."""
    shown = f"{tolerance * 100:g} pt" if unit == "percent" else f"{tolerance:g}"
    return Target(
        section, quantity, paper, value, paper - tolerance, paper + tolerance, f"+/- {shown}", unit
    )


def within(
    section: str,
    quantity: str,
    paper: float,
    interval: tuple[float, float],
    value: float,
    basis: str,
    unit: str = "number",
) -> Target:
    """Inside a published (or derived) interval."""
    return Target(section, quantity, paper, value, interval[0], interval[1], basis, unit)


def exact(section: str, quantity: str, paper: float, value: float) -> Target:
    return Target(section, quantity, paper, value, paper, paper, "exact", "count")


def holds(section: str, statement: str, ok: bool, note: str = "") -> Target:
    return Target(section, statement, 1.0, float(ok), 1.0, 1.0, "holds", "holds", note)


def _wilson(k: int, n: int) -> tuple[float, float]:
    low, high = stats.wilson_interval(float(k), float(n))
    return float(low), float(high)


def _argmax(values: dict[str, float]) -> str:
    return max(values, key=lambda k: values[k])


def _argmin(values: dict[str, float]) -> str:
    return min(values, key=lambda k: values[k])


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


# --- section 3: consensus and adjudication ----------------------------------------------------


@dataclass(frozen=True)
class AdjudicationFlow:
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


def _consensus_rows(rel: Release, report: Report) -> list[Target]:
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


def _tier_rows(rel: Release, report: Report) -> list[Target]:
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


def _rq1_rows(rel: Release, report: Report) -> list[Target]:
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


def _rq2_rows(rel: Release, report: Report) -> list[Target]:
    a = report.rq2
    acc = {m: p.acc for m, p in a.overall.items()}
    lex = {m: c.diff.value for m, c in a.lexical_diff.items()}
    g = a.by_tier[GEMINI_25]
    t1, t4 = g[vocab.TIERS[0]], g[vocab.TIERS[-1]]
    diff = a.tier_diff[GEMINI_25].diff
    s = "RQ2"
    return [
        near(s, "student accuracy, lowest", 0.178, 0.025, min(acc.values()), "percent"),
        holds(s, "lowest accuracy is Gemma 3 4B's", _argmin(acc) == GEMMA_4B, _argmin(acc)),
        near(s, "student accuracy, highest", 0.660, 0.03, max(acc.values()), "percent"),
        holds(s, "highest accuracy is Gemini 2.5 Flash's", _argmax(acc) == GEMINI_25, _argmax(acc)),
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
        holds(s, "largest exact-match advantage is Gemini 2.5 Flash's", _argmax(lex) == GEMINI_25),
        holds(s, "every exact-match advantage is positive", min(lex.values()) > 0),
        within(
            s,
            "Gemini 2.5 Flash accuracy in T1",
            1353 / 1783,
            _wilson(1353, 1783),
            t1.acc,
            "Wilson CI of 1353/1783",
            "percent",
        ),
        within(
            s,
            "Gemini 2.5 Flash accuracy in T4",
            70 / 148,
            _wilson(70, 148),
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


# --- RQ3: evaluator alignment -----------------------------------------------------------------


def _rq3_rows(rel: Release, report: Report) -> list[Target]:
    r = report.rq3
    ev = r.evaluators
    loo = r.physician_loo
    s = "RQ3"
    rows = [
        near(s, "LOO physician kappa", 0.709, 0.07, loo.kappa.value),
        near(s, "Gemini 3 Flash kappa", 0.694, 0.09, ev[GEMINI_3].kappa.value),
        near(s, "Gemini 3 Flash PA", 0.878, 0.04, ev[GEMINI_3].pa.value, "percent"),
        near(s, "Gemini 3 Flash PABAK", 0.756, 0.08, ev[GEMINI_3].pabak.value),
        near(s, "Qwen3-4B kappa", 0.444, 0.13, ev[QWEN].kappa.value),
        near(s, "Gemma 3 4B kappa", 0.327, 0.13, ev[GEMMA_4B].kappa.value),
    ]
    for metric in rq3.METRICS:
        values = {e: a.metric(metric).value for e, a in ev.items()}
        rows.append(
            holds(
                s,
                f"strongest evaluator by {metric} is Gemini 3 Flash",
                _argmax(values) == GEMINI_3,
                _argmax(values),
            )
        )
    kappas = {e: a.kappa.value for e, a in ev.items()}
    rows.append(
        holds(
            s,
            "every evaluator's kappa is below the LOO physicians'",
            max(kappas.values()) < loo.kappa.value,
            _argmax(kappas),
        )
    )
    bottom = sorted(kappas, key=lambda e: kappas[e])[:2]
    rows.append(holds(s, "weakest by kappa: Gemma 3 4B, then Qwen3-4B", bottom == [GEMMA_4B, QWEN]))
    for metric in rq3.METRICS:
        rows.append(
            holds(
                s,
                f"GPT-5.4 Mini's {metric} CI overlaps the physicians'",
                _overlap(ev[GPT_MINI].metric(metric).ci, loo.metric(metric).ci),
            )
        )
    best = r.ensembles
    k = best["kappa"]
    rows += [
        within(
            s,
            "best kappa ensemble minus best single",
            0.0011,
            (-0.057, 0.058),
            k.diff.value,
            "paper CI",
        ),
        holds(s, "that difference's CI includes 0", not k.diff.excludes_zero()),
        holds(s, "best single by kappa is Gemini 3 Flash", k.best_single == GEMINI_3),
        holds(
            s,
            "best kappa ensemble contains Gemini 3 Flash",
            GEMINI_3 in k.members,
            " + ".join(k.members),
        ),
    ]
    for metric in ("pa", "pabak"):
        rows.append(
            holds(
                s,
                f"best subset for {metric} is Gemini 3 Flash alone",
                best[metric].members == (GEMINI_3,),
                " + ".join(best[metric].members),
            )
        )
    return rows


# --- RQ4: evaluator bias ----------------------------------------------------------------------


def _rq4_rows(rel: Release, report: Report) -> list[Target]:
    r = report.rq4
    own = {e: b.delta.value for e, b in r.self_bias.items()}
    positive = [v for e, v in own.items() if e != QWEN]
    fam = {(b.evaluator, b.student): b.delta.value for b in r.family}
    lite = fam[(FLASH_LITE, GEMINI_25)]
    others = [v for k, v in fam.items() if k != (FLASH_LITE, GEMINI_25)]
    every = [*r.self_bias.values(), *r.family]
    s = "RQ4"
    return [
        near(
            s, "self bias, smallest of the four positive", 0.0791, 0.025, min(positive), "percent"
        ),
        near(s, "self bias, largest", 0.1629, 0.025, max(positive), "percent"),
        holds(s, "self bias positive for all but Qwen3-4B", min(positive) > 0),
        near(s, "Qwen3-4B self bias", -0.0442, 0.025, own[QWEN], "percent"),
        near(s, "Flash-Lite on Gemini 2.5 Flash (family)", -0.0617, 0.025, lite, "percent"),
        holds(s, "that family bias is the only negative one", lite < 0 < min(others)),
        near(s, "family bias, smallest positive", 0.0400, 0.02, min(others), "percent"),
        near(s, "family bias, largest", 0.1154, 0.025, max(others), "percent"),
        exact(s, "bias CIs excluding 0 (of 11)", 11, sum(b.significant for b in every)),
    ]


# --- RQ5: abstention --------------------------------------------------------------------------


def _rq5_rows(rel: Release, report: Report) -> list[Target]:
    a = report.rq5
    med = a.physician_median
    nano = a.evaluators[GPT_NANO].by_tier
    rest = [v.global_rate for e, v in a.evaluators.items() if e not in (GEMMA_4B, QWEN)]
    s = "RQ5"
    rows = [
        near(s, "physician median abstention T1", 0.0268, 0.008, med[0], "percent"),
        near(s, "physician median abstention T4", 0.1374, 0.035, med[-1], "percent"),
        holds(s, "physician median rises from T1 to T4", bool(np.all(np.diff(med) > 0))),
    ]
    for t, (paper, tol) in enumerate(
        ((0.0008, 0.0009), (0.0008, 0.0011), (0.0021, 0.0026), (0.0138, 0.0125))
    ):
        rows.append(near(s, f"GPT-5 Nano abstention T{t + 1}", paper, tol, nano[t], "percent"))
    rows.append(holds(s, "GPT-5 Nano abstains most in T4", int(np.argmax(nano)) == len(nano) - 1))
    for e, name in ((GEMINI_3, "Gemini 3 Flash"), (GPT_MINI, "GPT-5.4 Mini")):
        rows.append(exact(s, f"{name} abstentions", 0, a.evaluators[e].abstentions))
    rows += [
        near(
            s, "Gemma 3 4B abstention", 0.0641, 0.006, a.evaluators[GEMMA_4B].global_rate, "percent"
        ),
        near(s, "Qwen3-4B abstention", 0.0423, 0.005, a.evaluators[QWEN].global_rate, "percent"),
        within(
            s,
            "highest abstention of the other seven",
            0.0051,
            (0.0, 0.0051),
            max(rest),
            "at most the paper's",
            "percent",
        ),
    ]
    return rows


def calibration_table(rel: Release, report: Report | None = None) -> list[Target]:
    """Every finding of the methods digest's sections 3, 4 and 6, measured on ``rel``.

    ``report``: :func:`~medqade.analyses.report.reproduce` of ``rel`` (computed when not given),
    so the table shows the numbers ``medqade reproduce`` prints.
    """
    report = reproduce(rel) if report is None else report
    rows: list[Target] = []
    for part in (
        _consensus_rows,
        _tier_rows,
        _rq1_rows,
        _rq2_rows,
        _rq3_rows,
        _rq4_rows,
        _rq5_rows,
    ):
        rows += part(rel, report)
    return rows


def _shown(value: float, unit: str) -> str:
    if unit == "holds":
        return "holds" if value == 1.0 else "fails"
    if math.isnan(value):
        return "-"
    if unit == "percent":
        return f"{value * 100:.2f}%"
    if unit == "count":
        return f"{value:g}"
    return f"{value:.4g}"


def _range(row: Target) -> str:
    if row.unit == "holds":
        return "holds"
    if row.basis.startswith("+/-") or row.basis == "exact":
        return row.basis
    return f"{_shown(row.low, row.unit)} to {_shown(row.high, row.unit)} ({row.basis})"


def format_table(rows: Sequence[Target]) -> str:
    """A plain-text table: section, finding, paper, this release, accepted range, ok."""
    body = [
        (
            r.section,
            r.quantity + (f" [{r.note}]" if r.note and not r.ok else ""),
            "holds" if r.unit == "holds" else _shown(r.paper, r.unit),
            _shown(r.value, r.unit),
            _range(r),
            "yes" if r.ok else "NO",
        )
        for r in rows
    ]
    head = ("section", "finding", "paper", "value", "accepted", "ok")
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    return "\n".join(_line(x, widths) for x in [head, *body])


def _line(cells: Iterable[str], widths: Sequence[int]) -> str:
    c = list(cells)
    return "  ".join(
        [
            c[0].ljust(widths[0]),
            c[1].ljust(widths[1]),
            *(x.rjust(w) for x, w in zip(c[2:5], widths[2:5], strict=True)),
            c[5],
        ]
    )
