"""Simulate the verdict against physicians: interval coverage, false non-inferiority, power.

Usage: python bench/verdict.py [--sims N] [--resamples R] [--seed S] [--no-release]

Raters are simulated on five answer slots per question (seeded, small designs, a few minutes on
one core). Each answer has a true label (Richtig with probability 0.65); a share of answers is
hard (0.15), where every rater is right with probability 0.72, else with the rater's own
accuracy (physicians: uniform 0.90-0.97); every rater abstains with its own rate (uniform
0.03-0.10). A judge "as good as the physicians" is an eleventh rater with the panel's mean
accuracy that never abstains (each physician's term is computed on the answers that physician
rated, and there a judge's abstention would count as a disagreement). Designs:

* core: 200 questions rated by ten physicians, the judge in each physician's place against the
  majority of the other nine (:func:`medqade.measures.agreement.judge_in_place`);
* extension: 3,600 questions, each rated by two of nine primary physicians, the judge in each
  one's place against the other (:func:`medqade.measures.agreement.pair_in_place`).

The true ``d`` of a design is the same statistic on one very large sample (no bootstrap). The
script prints, per design: the coverage of the 95% interval of ``d``, the rate of wrongly
declaring non-inferior (lower bound above ``-m``) for a judge whose true kappa ``d`` is ``-m``
(the judge's accuracy tuned by bisection), the power (share of non-inferior-or-better
verdicts) for a judge as good as the physicians, all at the default margin; for the core also
the alt-test's pass rate. Then, on the default synthetic release (skip with --no-release), the
panel's own sampling error: per paper judge the SD of the ten leave-one-out terms of ``d``
over sqrt(10), and the range of the physicians' leave-one-out kappa.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from medqade.measures import aat, paired, seeds
from medqade.measures import agreement as agr

SLOTS = ("s1", "s2", "s3", "s4", "s5")
PREVALENCE = 0.65
HARD_SHARE = 0.15
HARD_ACCURACY = 0.72
TRUTH_ITEMS = {"core": 20_000, "extension": 150_000}
"""Questions of the one large sample that gives a design's true d (its own error is small
against the simulated interval: about a tenth of the core's and a fifth of the extension's)."""
NOT_BELOW_MARGIN = (paired.ABOVE, paired.NON_INFERIOR, paired.NON_INFERIOR_BELOW)


@dataclass(frozen=True)
class Panel:
    accuracy: np.ndarray  # (raters,)
    abstain: np.ndarray  # (raters,)


def _panel(rng: np.random.Generator, n: int) -> Panel:
    return Panel(rng.uniform(0.90, 0.97, n), rng.uniform(0.03, 0.10, n))


def _rate(
    rng: np.random.Generator,
    truth: np.ndarray,
    hard: np.ndarray,
    accuracy: float,
    abstain: float,
) -> np.ndarray:
    acc = np.where(hard, HARD_ACCURACY, accuracy)
    right = rng.random(truth.shape) < acc
    labels = np.where(right, truth, 1 - truth)
    labels[rng.random(truth.shape) < abstain] = 2
    return labels


def _answers(rng: np.random.Generator, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    truth = (rng.random((n_items, len(SLOTS))) < PREVALENCE).astype(np.int64)
    hard = rng.random((n_items, len(SLOTS))) < HARD_SHARE
    return truth, hard


def core_d(
    rng: np.random.Generator,
    panel: Panel,
    judge: tuple[float, float],
    n_items: int,
    weights: np.ndarray | None,
) -> tuple[agr.InPlace, np.ndarray, np.ndarray]:
    truth, hard = _answers(rng, n_items)
    phys = np.stack(
        [_rate(rng, truth, hard, a, q) for a, q in zip(panel.accuracy, panel.abstain, strict=True)]
    )
    labels = _rate(rng, truth, hard, *judge)
    return agr.judge_in_place(labels, phys, SLOTS, weights), labels, phys


def extension_d(
    rng: np.random.Generator,
    panel: Panel,
    judge: tuple[float, float],
    n_items: int,
    weights: np.ndarray | None,
) -> agr.InPlace:
    truth, hard = _answers(rng, n_items)
    n = panel.accuracy.size
    pairs = np.stack([rng.choice(n, 2, replace=False) for _ in range(n_items)])
    first = np.empty_like(truth)
    second = np.empty_like(truth)
    for r in range(n):
        for col, out in ((0, first), (1, second)):
            rows = pairs[:, col] == r
            out[rows] = _rate(rng, truth[rows], hard[rows], panel.accuracy[r], panel.abstain[r])
    labels = _rate(rng, truth, hard, *judge)
    return agr.pair_in_place(labels, first, second, SLOTS, weights)


def _margin_judge(
    truth_of: Callable[[float], float], margin: float, abstain: float
) -> tuple[float, float]:
    """The judge accuracy whose true kappa ``d`` is ``-margin`` (bisection)."""
    lo, hi = 0.80, 0.97
    for _ in range(11):
        mid = (lo + hi) / 2
        if truth_of(mid) < -margin:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2, abstain


def simulate(
    design: str, sims: int, resamples: int, seed: int, core_items: int = 200
) -> dict[str, float]:
    n_items = core_items if design == "core" else 3600
    n_phys = 10 if design == "core" else 9
    rng = np.random.default_rng([seed, 0 if design == "core" else 1])
    panel = _panel(rng, n_phys)
    equal = (float(panel.accuracy.mean()), 0.0)
    run = core_d if design == "core" else extension_d

    def truth_of(accuracy: float) -> float:
        big = np.random.default_rng([seed, 99])
        found = run(big, panel, (accuracy, equal[1]), TRUTH_ITEMS[design], None)
        place = found[0] if isinstance(found, tuple) else found
        return place.difference("kappa").value

    true_equal = truth_of(equal[0])
    at_margin = _margin_judge(truth_of, paired.DEFAULT_MARGIN, equal[1])
    true_margin = truth_of(at_margin[0])
    covered = wins = false_ni = passes = 0
    panel_err = []
    for s in range(sims):
        sim_rng = np.random.default_rng([seed, 10 + (design == "extension"), s])
        w = seeds.weights_from(sim_rng, n_items, resamples)
        for judge, is_margin in ((equal, False), (at_margin, True)):
            found = run(sim_rng, panel, judge, n_items, w)
            place = found[0] if isinstance(found, tuple) else found
            d = place.difference("kappa")
            m = paired.margins(
                paired.DEFAULT_MARGIN, place.physicians.pa.value, place.physicians.kappa.value
            )["kappa"]
            verdict = paired.verdict(d, m)
            if is_margin:
                false_ni += verdict in NOT_BELOW_MARGIN
                continue
            covered += d.low <= true_equal <= d.high
            wins += verdict in NOT_BELOW_MARGIN
            panel_err.append(place.panel_error("kappa"))
            if isinstance(found, tuple):
                passes += aat.alt_test(found[1], found[2]).passed
    return {
        "true_d_equal": true_equal,
        "true_d_margin_judge": true_margin,
        "coverage": covered / sims,
        "false_non_inferior": false_ni / sims,
        "power": wins / sims,
        "alt_test_pass": passes / sims if design == "core" else float("nan"),
        "panel_error": float(np.mean(panel_err)),
    }


def release_panel_error() -> None:
    from medqade.dataset.sources import open_release

    release = open_release()
    core = release.is_core
    phys = release.physician_labels[:, core]
    slots = release.roster.student_ids
    rated = agr.physicians_in_place(phys, slots, None)[1]["kappa"]
    print(
        "\nDefault release, physicians' leave-one-out kappa (on the answers each rated): "
        f"{rated.min():.3f}-{rated.max():.3f}"
    )
    print("| judge | d kappa | SD of the ten terms / sqrt(10) |")
    print("|---|---:|---:|")
    for k, e in enumerate(release.roster.evaluator_ids):
        place = agr.judge_in_place(release.evaluator_labels[k][core], phys, slots)
        print(
            f"| {e} | {place.difference('kappa').value:+.3f} | {place.panel_error('kappa'):.3f} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--no-release", action="store_true")
    parser.add_argument("--core-items", type=int, default=200, help="questions of the core design")
    parser.add_argument("--designs", default="core,extension")
    args = parser.parse_args()
    t0 = time.perf_counter()
    print(
        f"{args.sims} simulations per design, {args.resamples} resamples, seed {args.seed}, "
        f"margin {paired.DEFAULT_MARGIN} on kappa"
    )
    print(
        "| design | true d (equal judge) | coverage of d's 95% CI | false non-inferior at -m "
        "| power (equal judge) | alt-test pass (equal judge) | panel error of d |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for design in args.designs.split(","):
        r = simulate(design, args.sims, args.resamples, args.seed, args.core_items)
        alt = "n/a" if np.isnan(r["alt_test_pass"]) else f"{r['alt_test_pass']:.0%}"
        print(
            f"| {design} ({args.core_items if design == 'core' else 3600} questions) "
            f"| {r['true_d_equal']:+.4f} | {r['coverage']:.1%} | "
            f"{r['false_non_inferior']:.1%} (true d {r['true_d_margin_judge']:+.3f}) | "
            f"{r['power']:.0%} | {alt} | {r['panel_error']:.4f} |"
        )
    if not args.no_release:
        release_panel_error()
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
