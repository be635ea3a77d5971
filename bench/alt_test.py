"""How often the alt-test passes a judge as good as the physicians, and judges below them:
answers as instances (the paper's unit, the record's ``alt_test``) against questions as
instances (the record's ``alt_test.by_question``, the earlier variant).

Usage: python bench/alt_test.py [--sims N] [--seed S]

The rater model is bench/verdict.py's (copied here, not imported, so either script can change
alone): five answer slots per question; each answer's true label is Richtig with probability
0.65; a share 0.15 of answers is hard, where every rater is right with probability 0.72, else
with the rater's own accuracy (ten physicians: uniform 0.90-0.97; each abstains with its own
rate, uniform 0.03-0.10). The panel is drawn once from the seed, as in bench/verdict.py. A
judge never abstains; its accuracy is set by bisection so that its true kappa ``d`` (the judge
in each physician's place, :func:`medqade.measures.in_place.judge_in_place`, on 20,000
questions) is 0 (the panel's mean accuracy: "as good as the physicians"), -0.05 (the default
margin), -0.15 or -0.30. Each of ``--sims`` simulated core benchmarks (200 questions, seeded)
draws new answers and labels; every judge is tested on the same physicians' labels.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from medqade.measures import aat
from medqade.measures import in_place as agr

SLOTS = ("s1", "s2", "s3", "s4", "s5")
PREVALENCE = 0.65
HARD_SHARE = 0.15
HARD_ACCURACY = 0.72
N_PHYSICIANS = 10
CORE_QUESTIONS = 200
TRUTH_QUESTIONS = 20_000
TARGETS = (0.0, -0.05, -0.15, -0.30)


def _rate(
    rng: np.random.Generator, truth: np.ndarray, hard: np.ndarray, acc: float, abst: float
) -> np.ndarray:
    right = rng.random(truth.shape) < np.where(hard, HARD_ACCURACY, acc)
    labels = np.where(right, truth, 1 - truth)
    labels[rng.random(truth.shape) < abst] = 2
    return labels


def draw(
    rng: np.random.Generator, panel: tuple[np.ndarray, np.ndarray], judges: list[float], n: int
) -> tuple[list[np.ndarray], np.ndarray]:
    """One benchmark of ``n`` questions: each judge's labels and the physicians' labels."""
    truth = (rng.random((n, len(SLOTS))) < PREVALENCE).astype(np.int64)
    hard = rng.random((n, len(SLOTS))) < HARD_SHARE
    phys = np.stack([_rate(rng, truth, hard, a, q) for a, q in zip(*panel, strict=True)])
    return [_rate(rng, truth, hard, acc, 0.0) for acc in judges], phys


def true_d(seed: int, panel: tuple[np.ndarray, np.ndarray], accuracy: float) -> float:
    (labels,), phys = draw(np.random.default_rng([seed, 99]), panel, [accuracy], TRUTH_QUESTIONS)
    return agr.judge_in_place(labels, phys, SLOTS, None).difference("kappa").value


def accuracy_at(seed: int, panel: tuple[np.ndarray, np.ndarray], target: float) -> float:
    """The judge accuracy whose true kappa d is ``target`` (bisection)."""
    if target == 0.0:
        return float(panel[0].mean())
    lo, hi = 0.55, 0.97
    for _ in range(12):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if true_d(seed, panel, mid) < target else (lo, mid)
    return (lo + hi) / 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20260101)
    args = parser.parse_args()
    t0 = time.perf_counter()
    rng = np.random.default_rng([args.seed, 0])
    panel = (rng.uniform(0.90, 0.97, N_PHYSICIANS), rng.uniform(0.03, 0.10, N_PHYSICIANS))
    judges = [accuracy_at(args.seed, panel, t) for t in TARGETS]
    found = {u: np.zeros((len(TARGETS), 3)) for u in ("answer", "question")}  # pass, omega, rho
    for s in range(args.sims):
        sim_rng = np.random.default_rng([args.seed, 10, s])
        labels, phys = draw(sim_rng, panel, judges, CORE_QUESTIONS)
        for k, lab in enumerate(labels):
            res = aat.alt_test(lab, phys)
            assert res.by_question is not None
            for unit, r in (("answer", res), ("question", res.by_question)):
                found[unit][k] += (r.passed, r.omega, r.rho)
    print(
        f"{args.sims} simulated core benchmarks ({CORE_QUESTIONS} questions x 5 answers, "
        f"{N_PHYSICIANS} physicians), seed {args.seed}, epsilon {aat.EPSILON}, q {aat.FDR}"
    )
    print(
        "| judge (true kappa d) | accuracy | pass, answers as instances | omega | rho "
        "| pass, questions as instances | omega | rho |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for k, target in enumerate(TARGETS):
        d = true_d(args.seed, panel, judges[k])
        cells = []
        for unit in ("answer", "question"):
            p, omega, rho = found[unit][k] / args.sims
            se = math.sqrt(p * (1 - p) / args.sims)
            cells += [f"{p:.1%} (± {se:.1%})", f"{omega:.2f}", f"{rho:.2f}"]
        name = "as good as the physicians" if target == 0 else f"d = {target:+.2f}"
        print(f"| {name} ({d:+.3f}) | {judges[k]:.4f} | " + " | ".join(cells) + " |")
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
