"""How often ``medqade verify`` passes a faithful record and fails a changed one (issue 35).

Usage: python bench/verify_power.py [--runs N] [--resamples R] [--k 10,20,40,80]

Simulated, no model: a record's K sampled questions (half core, the strata of the bootstrap)
hold five labels each, drawn as the paper's judges label (Richtig 50%, Falsch 45%, Keine
Angabe 5%). The judge asked again reproduces each stored label with probability ``p`` (its
run-to-run agreement; else it gives one of the two other labels), and a share ``f`` of the
stored labels was changed after the run (a label replaced by another: what a submitter who
edits the file does). The rule is the command's (:func:`medqade.measures.reproduces`): pass
when the upper bound of the PA's 95% question-bootstrap interval reaches the reference,
:data:`medqade.measures.REFERENCE_PA` (0.98) for a record without a self-consistency of its own.

Printed: the share of ``N`` runs that pass, per K, p and f (seeds 0..N-1; Monte-Carlo standard
error at most 0.5/sqrt(N)).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from medqade.measures import REFERENCE_PA, reproduces, rerun_agreement

LABEL_SHARES = (0.45, 0.50, 0.05)  # Falsch, Richtig, Keine Angabe (codes 0, 1, 2)
CASES = (  # (run-to-run p, share f changed): faithful judges, then changed records
    (1.0, 0.0),
    (0.99, 0.0),
    (0.98, 0.0),
    (0.97, 0.0),
    (1.0, 0.05),
    (1.0, 0.10),
    (0.99, 0.10),
)


def _other(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each label replaced by one of the two others, at random."""
    return (labels + rng.integers(1, 3, size=labels.shape)) % 3


def passes(k: int, p: float, f: float, seed: int, resamples: int) -> bool:
    rng = np.random.default_rng([seed, k, int(p * 1000), int(f * 1000)])
    truth = rng.choice(3, size=(k, 5), p=LABEL_SHARES)
    again = np.where(rng.random((k, 5)) < p, truth, _other(truth, rng))
    stored = np.where(rng.random((k, 5)) < f, _other(truth, rng), truth)
    strata = np.array([0] * ((k + 1) // 2) + [1] * (k // 2))
    found = rerun_agreement(stored, again, strata, resamples, seed)
    return reproduces(found.pa, REFERENCE_PA)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--k", default="10,20,40,80")
    args = parser.parse_args()
    ks = [int(k) for k in args.k.split(",")]
    start = time.perf_counter()
    print(f"share of {args.runs} runs passing (reference PA {REFERENCE_PA})")
    print("p (run-to-run) | changed | " + " | ".join(f"K={k} ({5 * k} answers)" for k in ks))
    for p, f in CASES:
        cells = []
        for k in ks:
            rate = np.mean([passes(k, p, f, s, args.resamples) for s in range(args.runs)])
            cells.append(f"{rate:.1%}")
        print(f"{p:.2f} | {f:.0%} | " + " | ".join(cells))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
