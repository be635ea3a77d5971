"""Calibration of the one verdict over panels: coverage, false non-inferiority, power.

Usage: python bench/verdict.py [--sims N] [--resamples R] [--seed S] [--truth-panels K]

Every simulated benchmark draws a **new physician panel** from one population and new
questions, so the figures hold for "physicians like these", the estimand of the verdict
(docs/statistics.md), not for one fixed panel.

Rater model (seeded). Each answer (five slots per question) has a true label (Richtig with
probability 0.65); a share of answers is hard (0.15), where every rater is right with
probability 0.72, else with the rater's own accuracy. A physician's accuracy is drawn from
uniform(0.875, 0.965) and its abstention rate from uniform(0.03, 0.10): on the core this gives
a spread of the physicians' leave-one-out kappa like the default release's (the script prints
both). A benchmark has ten physicians; the core is 200 questions rated by all ten, the
extension 3,600 questions each rated by two of the nine primary physicians (the tenth is the
adjudicator), as in the release. A judge is an eleventh rater that never abstains; "as good as
the physicians" means the population's mean accuracy.

The true ``d`` of a judge for a design is the population value: the mean over
``--truth-panels`` panels of ``d`` on one large sample each (8,000 core / 40,000 extension
questions, no bootstrap); the headline's is the mean of the two (the rule pools them). Judges
at the margin (true ``d = -m`` for the core, the extension and the headline, each tuned by
interpolation on a grid of accuracies) and the equal judge are scored on every benchmark with
the library's own functions (:func:`medqade.measures.verdicts.core_design`,
:func:`~medqade.measures.verdicts.extension_design`, :func:`~medqade.measures.verdicts.
headline`) on seeded question and physician resamples. Printed per design: coverage of d's 95%
interval (equal judge), the share of ``non-inferior`` (or better) verdicts for the judge at
``-m`` (false non-inferior; nominal 2.5%) with its Monte-Carlo standard error, power (equal
judge found non-inferior or better), the share of equal judges called ``above physicians``,
and the same four with the question-only interval ("given this panel") for comparison.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np

from medqade.measures import in_place, paired, seeds, verdicts

SLOTS = ("s1", "s2", "s3", "s4", "s5")
PREVALENCE = 0.65
HARD_SHARE = 0.15
HARD_ACCURACY = 0.72
ACCURACY = (0.875, 0.965)
ABSTAIN = (0.03, 0.10)
N_PHYSICIANS = 10
CORE_ITEMS = 200
EXTENSION_ITEMS = 3600
TRUTH_ITEMS = {"core": 8_000, "extension": 40_000}
GRID = np.linspace(0.80, 0.97, 12)
NOT_BELOW_MARGIN = (paired.ABOVE, paired.NON_INFERIOR, paired.NON_INFERIOR_BELOW)
DESIGNS = ("core", "extension", "headline")


@dataclass(frozen=True)
class Panel:
    accuracy: np.ndarray  # (physicians,)
    abstain: np.ndarray


def draw_panel(rng: np.random.Generator) -> Panel:
    return Panel(rng.uniform(*ACCURACY, N_PHYSICIANS), rng.uniform(*ABSTAIN, N_PHYSICIANS))


def _rate(
    rng: np.random.Generator, truth: np.ndarray, hard: np.ndarray, acc: float, abstain: float
):
    right = rng.random(truth.shape) < np.where(hard, HARD_ACCURACY, acc)
    labels = np.where(right, truth, 1 - truth)
    labels[rng.random(truth.shape) < abstain] = 2
    return labels


def _answers(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return (rng.random((n, 5)) < PREVALENCE).astype(np.int64), rng.random((n, 5)) < HARD_SHARE


@dataclass(frozen=True)
class Benchmark:
    """One simulated release: the core panel labels and the extension's two-rater design,
    with the answers' truth kept to rate judges on the same questions."""

    core_truth: tuple[np.ndarray, np.ndarray]
    core_physicians: np.ndarray  # (10, items, 5)
    ext_truth: tuple[np.ndarray, np.ndarray]
    primary: np.ndarray  # (9, items, 5), missing where a physician did not rate
    roles: tuple[np.ndarray, np.ndarray]


def benchmark(rng: np.random.Generator, panel: Panel, n_core: int, n_ext: int) -> Benchmark:
    truth, hard = _answers(rng, n_core)
    phys = np.stack(
        [_rate(rng, truth, hard, a, q) for a, q in zip(panel.accuracy, panel.abstain, strict=True)]
    )
    e_truth, e_hard = _answers(rng, n_ext)
    n_primary = N_PHYSICIANS - 1
    pairs = np.stack([rng.choice(n_primary, 2, replace=False) for _ in range(n_ext)])
    primary = np.full((n_primary, n_ext, 5), -1, dtype=np.int64)
    for r in range(n_primary):
        rows = (pairs == r).any(axis=1)
        primary[r, rows] = _rate(
            rng, e_truth[rows], e_hard[rows], panel.accuracy[r], panel.abstain[r]
        )
    return Benchmark((truth, hard), phys, (e_truth, e_hard), primary, (pairs[:, 0], pairs[:, 1]))


def judge_designs(
    rng: np.random.Generator,
    bench: Benchmark,
    accuracy: float,
    resamples: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> tuple[verdicts.Design, verdicts.Design]:
    core_labels = _rate(rng, *bench.core_truth, accuracy, 0.0)
    ext_labels = _rate(rng, *bench.ext_truth, accuracy, 0.0)
    w_core, w_ext, v = (None, None, None) if resamples is None else resamples
    core = verdicts.design(
        in_place.judge_in_place(core_labels, bench.core_physicians, SLOTS, w_core),
        v,
        verdicts.CORE_METHOD,
    )
    place = in_place.primaries_in_place(ext_labels, bench.primary, bench.roles, SLOTS, w_ext)
    ext = verdicts.design(place, None if v is None else v[:, : N_PHYSICIANS - 1])
    return core, ext


def truth_curves(seed: int, panels: int) -> dict[str, np.ndarray]:
    """The population ``d`` (kappa) of a judge of each accuracy of :data:`GRID`, per design:
    common random numbers across the grid, so the curves are smooth."""
    out = {d: np.zeros(GRID.size) for d in DESIGNS}
    for k in range(panels):
        rng = np.random.default_rng([seed, 99, k])
        panel = draw_panel(rng)
        bench = benchmark(rng, panel, TRUTH_ITEMS["core"], TRUTH_ITEMS["extension"])
        state = rng.bit_generator.state
        for g, acc in enumerate(GRID):
            rng.bit_generator.state = state
            core, ext = judge_designs(rng, bench, float(acc), None)
            out["core"][g] += core.kappa.value / panels
            out["extension"][g] += ext.kappa.value / panels
    out["headline"] = (out["core"] + out["extension"]) / 2
    return out


def accuracy_at(curve: np.ndarray, target: float) -> float:
    """The judge accuracy whose population ``d`` is ``target`` (linear interpolation)."""
    return float(np.interp(target, curve, GRID))


def _verdict(est, margin: float) -> str | None:
    return paired.verdict(est, margin)


def simulate(
    sims: int, resamples: int, seed: int, truth_panels: int
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    curves = truth_curves(seed, truth_panels)
    m = paired.DEFAULT_MARGIN
    mean_acc = float(np.mean(ACCURACY))
    true_equal = {d: float(np.interp(mean_acc, GRID, curves[d])) for d in DESIGNS}
    at_margin = {d: accuracy_at(curves[d], -m) for d in DESIGNS}
    counts = {
        (d, how): dict.fromkeys(("covered", "false_ni", "power", "above", "flag"), 0)
        for d in DESIGNS
        for how in ("panels", "given")
    }
    spread = []
    for s in range(sims):
        rng = np.random.default_rng([seed, 1, s])
        panel = draw_panel(rng)
        bench = benchmark(rng, panel, CORE_ITEMS, EXTENSION_ITEMS)
        w = (
            seeds.weights_from(rng, CORE_ITEMS, resamples).astype(np.float64),
            seeds.weights_from(rng, EXTENSION_ITEMS, resamples).astype(np.float64),
            seeds.weights_from(rng, N_PHYSICIANS, resamples).astype(np.float64),
        )
        sides = in_place.physicians_in_place(bench.core_physicians, SLOTS, None)
        spread.append(float(np.nanstd(sides.points["kappa"], ddof=0)))
        judges = {"equal": mean_acc, **{f"margin-{d}": at_margin[d] for d in DESIGNS}}
        for name, acc in judges.items():
            core, ext = judge_designs(rng, bench, acc, w)
            head = verdicts.headline(core, ext, m)
            for how in ("panels", "given"):
                if how == "panels":
                    found = {
                        "core": core.kappa,
                        "extension": ext.kappa,
                        "headline": head.difference,
                    }
                else:  # the question-only interval: the panel held fixed
                    given = verdicts.headline(
                        verdicts.design(core.place, None), verdicts.design(ext.place, None), m
                    )
                    found = {
                        "core": core.given_panel,
                        "extension": ext.given_panel,
                        "headline": given.difference,
                    }
                for d in DESIGNS:
                    c = counts[(d, how)]
                    est = found[d]
                    word = _verdict(est, m)
                    if name == "equal":
                        c["covered"] += est.low <= true_equal[d] <= est.high
                        c["power"] += word in NOT_BELOW_MARGIN
                        c["above"] += word == paired.ABOVE
                        if d == "headline" and how == "panels":
                            c["flag"] += bool(head.flags)
                    elif name == f"margin-{d}":
                        c["false_ni"] += word in NOT_BELOW_MARGIN
    rates = {f"{d}/{how}": {k: v / sims for k, v in c.items()} for (d, how), c in counts.items()}
    info = {
        "true_d_equal_core": true_equal["core"],
        "true_d_equal_extension": true_equal["extension"],
        "true_d_equal_headline": true_equal["headline"],
        "loo_kappa_sd": float(np.median(spread)),
        **{f"accuracy_at_margin_{d}": at_margin[d] for d in DESIGNS},
    }
    return rates, info


def release_spread() -> float:
    from medqade.dataset.sources import open_release

    release = open_release()
    core = release.is_core
    side = in_place.physicians_in_place(
        release.physician_labels[:, core], release.roster.student_ids, None
    )
    return float(np.nanstd(side.points["kappa"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--truth-panels", type=int, default=24)
    args = parser.parse_args()
    t0 = time.perf_counter()
    rates, info = simulate(args.sims, args.resamples, args.seed, args.truth_panels)
    n = args.sims
    print(
        f"{n} simulated benchmarks (a new panel each), {args.resamples} two-way resamples, "
        f"seed {args.seed}, margin {paired.DEFAULT_MARGIN} on kappa"
    )
    print(
        f"physicians' leave-one-out kappa SD: simulated panels {info['loo_kappa_sd']:.3f} "
        f"(median), default release {release_spread():.3f}"
    )
    print(
        "true d of the equal judge: core {:+.4f}, extension {:+.4f}, headline {:+.4f}".format(
            info["true_d_equal_core"],
            info["true_d_equal_extension"],
            info["true_d_equal_headline"],
        )
    )
    print(
        "\n| design | interval | coverage of d's 95% CI | false non-inferior at d = -m "
        "(MC s.e.) | power (equal judge) | equal judge called above | core_above_extension "
        "flag (equal judge) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for d in DESIGNS:
        for how, label in (("panels", "questions and physicians"), ("given", "given this panel")):
            r = rates[f"{d}/{how}"]
            se = math.sqrt(max(r["false_ni"] * (1 - r["false_ni"]), 1e-12) / n)
            flag = f"{r['flag']:.1%}" if d == "headline" and how == "panels" else ""
            print(
                f"| {d} | {label} | {r['covered']:.1%} | {r['false_ni']:.1%} ({se:.1%}) | "
                f"{r['power']:.0%} | {r['above']:.1%} | {flag} |"
            )
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
