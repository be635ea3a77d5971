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

Everything is computed with the project's analyses on unrounded values. The rows about the
reference (sections 3 and 4, RQ1, RQ2): :mod:`medqade.analyses.calibration_reference`; the
row type and the printed table: :mod:`medqade.analyses.calibration_targets`.
"""

from __future__ import annotations

import numpy as np

from medqade.analyses import rq3
from medqade.analyses.calibration_reference import consensus_rows, rq1_rows, rq2_rows, tier_rows
from medqade.analyses.calibration_targets import (
    FLASH_LITE,
    GEMINI_3,
    GEMINI_25,
    GEMMA_4B,
    GPT_MINI,
    GPT_NANO,
    QWEN,
    Target,
    argmax,
    exact,
    format_table,
    holds,
    near,
    overlap,
    within,
)
from medqade.analyses.report import Report, reproduce
from medqade.dataset.release import Release

__all__ = ["Target", "calibration_table", "format_table"]


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
                argmax(values) == GEMINI_3,
                argmax(values),
            )
        )
    kappas = {e: a.kappa.value for e, a in ev.items()}
    rows.append(
        holds(
            s,
            "every evaluator's kappa is below the LOO physicians'",
            max(kappas.values()) < loo.kappa.value,
            argmax(kappas),
        )
    )
    bottom = sorted(kappas, key=lambda e: kappas[e])[:2]
    rows.append(holds(s, "weakest by kappa: Gemma 3 4B, then Qwen3-4B", bottom == [GEMMA_4B, QWEN]))
    for metric in rq3.METRICS:
        rows.append(
            holds(
                s,
                f"GPT-5.4 Mini's {metric} CI overlaps the physicians'",
                overlap(ev[GPT_MINI].metric(metric).ci, loo.metric(metric).ci),
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
        consensus_rows,
        tier_rows,
        rq1_rows,
        rq2_rows,
        _rq3_rows,
        _rq4_rows,
        _rq5_rows,
    ):
        rows += part(rel, report)
    return rows
